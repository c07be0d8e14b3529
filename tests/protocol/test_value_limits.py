"""Integers beyond 64 signed bits and texts beyond MAX_TEXT are refused wherever they sit in a request,
naming where; everything within the limits decodes (the quick check and the one that names the place agree)."""

from __future__ import annotations

import json

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.v1 import codec
from protocol.v1.codec import INT_MAX, INT_MIN, MAX_TEXT, ProtocolError


def _roll(**check: object) -> bytes:
    return json.dumps({"type": "roll", "id": "r1", "check": {"system": "challenge", "cl": 3, **check}}).encode()


@pytest.mark.parametrize(
    ("frame", "code", "where"),
    [
        (_roll(modifier=INT_MAX + 1), "invalid_message", "`check.modifier`"),
        (_roll(modifier=INT_MIN - 1), "invalid_message", "`check.modifier`"),
        (_roll(dice=[3, 2**64]), "invalid_message", "`check.dice[1]`"),
        (
            json.dumps({"type": "roll", "id": "r1", "check": {"system": "facets", "pool": 2}, "label": "x" * 1025}),
            "text_too_long",
            "`label`",
        ),
        (
            json.dumps(
                {"type": "gm", "id": "g1", "op": {"op": "complication_add", "scene": "S", "text": "é" * (MAX_TEXT + 1)}}
            ),
            "text_too_long",
            "`op.text`",
        ),
    ],
)
@pytest.mark.parametrize("wire", ["text", "bytes", "msgpack"])
def test_what_does_not_fit_is_refused_with_its_place(frame, code, where, wire):
    if wire == "bytes":
        frame = frame.encode() if isinstance(frame, str) else frame
    elif wire == "msgpack":
        try:
            frame = msgspec.msgpack.encode(json.loads(frame))
        except OverflowError:
            pytest.skip("MessagePack cannot carry this integer at all")
    with pytest.raises(ProtocolError) as err:
        codec.decode_client(frame, msgpack=wire == "msgpack")
    assert err.value.code == code and where in err.value.message
    assert err.value.id in ("r1", "g1")


@pytest.mark.parametrize("wire", ["text", "bytes", "msgpack"])
def test_a_small_frame_with_an_integer_out_of_range_is_refused(wire):
    """The quick check by a frame's bytes lets none through: the limits hold in frames of a few bytes."""
    for value in (INT_MAX + 1, 2**64 - 1, INT_MIN - 1, 10**30):
        data = {"type": "roll", "id": "r1", "check": {"system": "challenge", "cl": 3, "modifier": value}}
        if wire == "msgpack":
            if value > 2**64 - 1 or value < INT_MIN:
                continue  # MessagePack cannot carry it at all
            frame: bytes | str = msgspec.msgpack.encode(data)
        else:
            frame = json.dumps(data) if wire == "text" else json.dumps(data).encode()
        assert len(frame) < 200
        with pytest.raises(ProtocolError) as err:
            codec.decode_client(frame, msgpack=wire == "msgpack")
        assert err.value.code == "invalid_message" and "`check.modifier`" in err.value.message


@settings(deadline=None)
@given(
    modifier=st.integers(INT_MIN, INT_MAX),
    label=st.text(max_size=MAX_TEXT),
    dice=st.lists(st.integers(1, 20), max_size=3),
)
def test_what_fits_decodes(modifier, label, dice):
    frame = json.dumps(
        {"type": "roll", "id": "r", "label": label, "check": {"system": "challenge", "cl": 1, "modifier": modifier}}
    )
    msg = codec.decode_client(frame)
    assert msg.label == label and msg.check.modifier == modifier
    assert codec.decode_client(json.dumps({"type": "roll", "id": "r", "check": {"system": "facets", "pool": 3}}))
    if dice:
        assert codec.decode_client(_roll(dice=dice)).check.dice == dice
