"""Regenerate ``protocol/schema/v1.json`` from the Structs: ``python -m protocol.generate``.

A test fails when the checked-in schema differs from what this produces.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from protocol.v1.messages import CLIENT_TYPES, SERVER_TYPES, AnyClientMessage, AnyServerMessage

SCHEMA_PATH = Path(__file__).parent / "schema" / "v1.json"


def schema() -> str:
    _, components = msgspec.json.schema_components([AnyClientMessage, AnyServerMessage], ref_template="#/$defs/{name}")
    doc = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "verdict.v1",
        "title": "Verdict protocol v1",
        "description": "Every websocket message of protocol v1 (subprotocol verdict.v1). Generated from protocol/v1/*.py.",
        "oneOf": [
            {
                "title": "client message",
                "anyOf": [{"$ref": f"#/$defs/{t.__name__}"} for t in CLIENT_TYPES],
            },
            {
                "title": "server message",
                "anyOf": [{"$ref": f"#/$defs/{t.__name__}"} for t in SERVER_TYPES],
            },
        ],
        "$defs": components,
    }
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


def main() -> None:
    SCHEMA_PATH.parent.mkdir(parents=True, exist_ok=True)
    SCHEMA_PATH.write_text(schema())
    print(f"wrote {SCHEMA_PATH}")


if __name__ == "__main__":
    main()
