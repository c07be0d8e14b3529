"""The module's JSDoc types of the protocol (vtt-module/scripts/generated/protocol.mjs) are written from the
schema: the checked-in file is what `make schema` writes, and it types every definition and field the schema has."""

from __future__ import annotations

import json
import re

import pytest

from protocol import typedefs


def _schema() -> dict:
    return json.loads(typedefs.SCHEMA_PATH.read_text())


def test_typedefs_are_current():
    assert typedefs.TYPEDEFS_PATH.read_text() == typedefs.source(), (
        "run `make schema` and commit vtt-module/scripts/generated/protocol.mjs"
    )


def test_every_definition_and_field_is_typed():
    text = typedefs.TYPEDEFS_PATH.read_text()
    blocks = {}
    for block in re.findall(r"/\*\*.*?\*/", text, re.S):
        (name,) = re.findall(r"@typedef \{.*\} (\w+)$", block, re.M)
        blocks[name] = block
    schema = _schema()
    unions = set(typedefs.union_names(schema).values())
    assert {"AnyCheck", "AnyResult", "AnyEvent", "AnyOp", "AnyOdds", "AnyAction"} <= unions
    assert set(blocks) == set(schema["$defs"]) | unions | {"AnyClientMessage", "AnyServerMessage"}
    for name, definition in schema["$defs"].items():
        required = set(definition.get("required", ()))
        for field in definition.get("properties", {}):
            slot = field if field in required else f"[{field}]"
            assert re.search(rf"@property \{{.+\}} {re.escape(slot)}(\s|$)", blocks[name], re.M), (name, field)


def test_schema_nodes_become_typescript_types():
    unions = {("A", "B"): "AnyThing"}

    def t(node: dict) -> str:
        return typedefs.type_of(node, unions)

    assert t({"anyOf": [{"type": "string"}, {"type": "null"}]}) == "string|null"
    assert t({"type": "array", "items": {"$ref": "#/$defs/Facet"}}) == "Array<Facet>"
    assert t({"type": "object", "additionalProperties": {"type": "integer"}}) == "Record<string, number>"
    assert t({"type": "object"}) == "Record<string, unknown>"
    assert t({"enum": ["gm", "player"]}) == '"gm"|"player"'
    assert t({"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}]}) == "[string, boolean]"
    tagged = {"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}], "discriminator": {"propertyName": "kind"}}
    assert t(tagged) == "AnyThing"
    assert t({}) == "unknown"
    with pytest.raises(ValueError, match="outside"):
        t({"$ref": "#/elsewhere/A"})


def test_a_union_is_named_for_its_field_and_its_definition_when_the_short_name_is_taken():
    def tagged(*names: str) -> dict:
        return {"anyOf": [{"$ref": f"#/$defs/{n}"} for n in names], "discriminator": {"propertyName": "kind"}}

    schema = {
        "$defs": {
            "A": {"properties": {"kind": {"enum": ["a"]}}},
            "B": {"properties": {"kind": {"enum": ["b"]}}},
            "Holder": {
                "properties": {"item": tagged("A", "B"), "maybe": {"anyOf": [tagged("A", "B"), {"type": "null"}]}}
            },
            "Other": {"properties": {"item": tagged("B", "A")}},
        }
    }
    assert typedefs.union_names(schema) == {("A", "B"): "AnyItem", ("B", "A"): "AnyOtherItem"}
    text = typedefs.source(schema)
    assert " * @property {AnyItem|null} [maybe]" in text
    assert " * @typedef {A|B} AnyItem" in text
    assert text.rstrip().endswith("export {};")
