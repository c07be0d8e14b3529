"""Integers beyond 64 signed bits and texts beyond MAX_TEXT are refused wherever they sit in a request,
naming where, and so is a value beyond its field's own bound (``protocol/v1/limits.py``); everything within
the limits decodes (the quick check and the one that names the place agree)."""

from __future__ import annotations

import json

import msgspec
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from protocol.v1 import codec
from protocol.v1 import messages as m
from protocol.v1.codec import INT_MAX, INT_MIN, MAX_TEXT, ProtocolError
from protocol.v1.limits import LABEL_CHARS, LEVEL

from ..conftest import Sidecar


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
    modifier=st.integers(-LEVEL, LEVEL),
    label=st.text(max_size=LABEL_CHARS),
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


# --------------------------------------------------------------------------------------------------------------
# The quick check of a small frame by its bytes (``codec._small``) lets nothing through that the full check
# (``codec._fits``) refuses: JSON escapes, MessagePack str8/bin/uint64/int64, negative numbers, in frames of at
# most MAX_TEXT bytes; and over a real socket, such a frame is refused with its code while the socket stays up.
# --------------------------------------------------------------------------------------------------------------


_INTS = st.one_of(
    st.integers(INT_MIN - 2, INT_MIN + 2),
    st.integers(INT_MAX - 2, INT_MAX + 2),
    st.integers(-(2**64), 2**64 - 1),
    st.integers(-1000, 1000),
)
_TEXT = st.text(st.characters(codec="utf-8"), max_size=60)


def _frame(since: int, client: str) -> dict[str, object]:
    """A hello: ``since`` and ``client`` are bounded by the codec's own limits alone."""
    return {"type": "hello", "table": "t1", "key": "k", "since": since, "client": client}


@settings(max_examples=400)
@given(modifier=_INTS, label=_TEXT, ascii_only=st.booleans(), wire=st.sampled_from(["json", "msgpack"]))
@example(modifier=INT_MAX + 1, label="\u0039" * 10, ascii_only=True, wire="json")
@example(modifier=-(2**63) - 1, label="", ascii_only=True, wire="json")
@example(modifier=2**64 - 1, label="\xcf", ascii_only=False, wire="msgpack")
def test_a_small_frame_is_refused_exactly_when_a_value_does_not_fit(
    modifier: int, label: str, ascii_only: bool, wire: str
) -> None:
    doc = _frame(modifier, label)
    if wire == "json":
        data = json.dumps(doc, ensure_ascii=ascii_only).encode()
    else:
        try:
            data = msgspec.msgpack.encode(doc)
        except OverflowError:
            return  # MessagePack cannot carry it at all
    fits = INT_MIN <= modifier <= INT_MAX and len(label) <= MAX_TEXT
    try:
        msg = codec.decode_client(data, msgpack=wire == "msgpack")
    except ProtocolError as exc:
        assert not fits, (data, exc.message)
        assert exc.code in ("invalid_message", "text_too_long")
    else:
        assert fits, data
        assert msg.since == modifier


def test_escaped_text_at_the_size_limit_is_measured_in_characters() -> None:
    """A text of MAX_TEXT characters fits however it is escaped; one more does not, even as escapes."""
    for n, ok in ((MAX_TEXT, True), (MAX_TEXT + 1, False)):
        for ascii_only in (True, False):
            data = json.dumps(_frame(1, "é" * n), ensure_ascii=ascii_only).encode()
            if ok:
                assert codec.decode_client(data).client == "é" * n
            else:
                with pytest.raises(ProtocolError) as err:
                    codec.decode_client(data)
                assert err.value.code == "text_too_long"


@pytest.mark.parametrize("msgpack", [False, True])
async def test_a_small_frame_over_a_limit_is_refused_over_the_socket(sidecar: Sidecar, msgpack: bool) -> None:
    gm = await sidecar.client("gm", user="gm-1", msgpack=msgpack)
    doc = {"type": "roll", "id": "r1", "check": {"system": "challenge", "cl": 3, "modifier": 2**64 - 1}}
    data: bytes | str = msgspec.msgpack.encode(doc) if msgpack else json.dumps(doc)
    assert len(data) < MAX_TEXT
    await gm.send_raw(data)
    err = await gm.next()
    assert isinstance(err, m.Error) and err.code == "invalid_message" and "check.modifier" in err.message
    pong = await gm.request(m.Ping(id="p"))  # the socket stays up
    assert isinstance(pong, m.Pong)
    await gm.close()
