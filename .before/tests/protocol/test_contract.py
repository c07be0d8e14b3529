"""The wire contract: golden vectors round-trip byte for byte; the schema is not stale."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from protocol import generate
from protocol.v1 import codec
from protocol.v1.messages import CLIENT_TYPES

VECTORS = sorted((Path(__file__).resolve().parents[2] / "protocol" / "vectors").glob("*.json"))
CLIENT_TAGS = {t.__struct_config__.tag for t in CLIENT_TYPES}


def test_there_are_vectors():
    assert len(VECTORS) >= 20


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_vector_round_trips(path):
    raw = path.read_bytes().rstrip(b"\n")
    kind = msgspec.json.decode(raw)["type"]
    msg = codec.decode_client(raw) if kind in CLIENT_TAGS else codec.decode_server(raw)
    assert codec.encode(msg) == raw
    # and through MessagePack, the other encoding, without loss
    mp = codec.encode(msg, msgpack=True)
    back = codec.decode_client(mp, msgpack=True) if kind in CLIENT_TAGS else codec.decode_server(mp, msgpack=True)
    assert back == msg


def test_schema_is_current():
    assert generate.SCHEMA_PATH.read_text() == generate.schema(), "run `make schema` and commit protocol/schema/v1.json"
