"""Every Struct a client sends refuses unknown fields; the schema says so; what the sidecar sends stays lenient."""

from __future__ import annotations

import json

import msgspec
import pytest

from protocol import generate
from protocol.v1 import codec
from protocol.v1.boons import BoonsPool
from protocol.v1.flairs import FlairsParticipant
from protocol.v1.messages import CLIENT_TYPES
from protocol.v1.systems import ACTION_TYPES, CHECK_TYPES
from protocol.v1.table import OPS


@pytest.mark.parametrize(
    "tp", [*CLIENT_TYPES, *CHECK_TYPES, *ACTION_TYPES, *OPS, BoonsPool, FlairsParticipant], ids=lambda t: t.__name__
)
def test_client_structs_forbid_unknown_fields(tp):
    assert tp.__struct_config__.forbid_unknown_fields


def test_the_schema_forbids_unknown_fields_in_client_messages():
    defs = json.loads(generate.schema())["$defs"]
    for tp in (*CLIENT_TYPES, *CHECK_TYPES, *ACTION_TYPES, *OPS, BoonsPool, FlairsParticipant):
        assert defs[tp.__name__].get("additionalProperties") is False, tp.__name__


def test_server_messages_stay_lenient():
    # A client keeps reading a newer sidecar's messages that carry a field it does not know.
    raw = b'{"type":"pong","id":"p","later":1}'
    assert codec.decode_server(raw).id == "p"


def test_the_error_names_the_field_and_its_place():
    with pytest.raises(codec.ProtocolError) as e:
        codec.decode_client(b'{"type":"roll","id":"r","check":{"system":"flairs","group":[{"name":"a","rnak":2}]}}')
    assert e.value.code == "invalid_message" and e.value.id == "r"
    assert "`$.check.group[0].rnak`" in e.value.message


def test_checks_converted_from_dicts_refuse_unknown_fields():
    # the CLI's path: its JSON options become a check through msgspec.convert
    boons = next(t for t in CHECK_TYPES if t.__struct_config__.tag == "boons")
    with pytest.raises(msgspec.ValidationError, match="abilty"):
        msgspec.convert({"system": "boons", "opponent": {"abilty": 1}}, boons)
