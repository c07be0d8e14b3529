"""Arithmetic the store cannot hold: no number a requester sends, and no sum the rules or the table make of
them, leaves what the rules can mean (``protocol/v1/limits.py``), let alone a signed 64-bit integer.

Over a real socket, as a hostile player or GM sends them: a Feat level below −2⁶³, Wyrd past 2⁶⁴ (after which
every MessagePack client's hello failed), a Challenge Level of 2⁶³−1: each refused with a coded error, no
traceback, the socket up, and a MessagePack client still welcomed. And as a property: any check the protocol
accepts reads without error (or is refused with a code), and every number of its result fits 64 signed bits.
"""

from __future__ import annotations

import json
import logging
import typing
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from protocol.v1 import challenge as challenge_t
from protocol.v1 import codec, limits
from protocol.v1 import facets as facets_t
from protocol.v1 import feats as feats_t
from protocol.v1 import messages as m
from protocol.v1.codec import INT_MAX, INT_MIN
from protocol.v1.errors import VerdictError
from sidecar import vocabulary
from sidecar.engine import Dice, registry
from sidecar.engine.registry import RULESETS

from ..conftest import Sidecar
from .conftest import Raw

BIG, SMALL = 2**63 - 1, -(2**63)


def _quiet(caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]) -> None:
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err and "internal_error" not in out.out + out.err
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]


async def _ask(raw: Raw, frame: dict[str, Any]) -> dict[str, Any]:
    await raw.ws.send(json.dumps(frame))
    return await raw.wait(lambda f: f.get("id") == frame["id"])


@pytest.mark.parametrize(
    ("check", "where"),
    [
        ({"system": "feats", "ability": BIG, "difficulty": SMALL}, "check.ability"),
        ({"system": "feats", "ability": 3, "difficulty": SMALL}, "check.difficulty"),
        ({"system": "feats", "level": SMALL}, "check.level"),
        ({"system": "challenge", "cl": BIG, "modifier": BIG}, "check.cl"),
        ({"system": "challenge", "cl": 2, "modifier": BIG}, "check.modifier"),
        ({"system": "facets", "pool": 2, "hindering": BIG}, "check.hindering"),
        ({"system": "boons", "ability": 2, "progress": BIG, "threshold": 5}, "check.progress"),
        ({"system": "flairs", "rank": 2, "dice": [3, BIG]}, "check.dice[1]"),
    ],
)
async def test_a_players_numbers_beyond_the_rules_are_refused_with_a_code(
    sidecar: Sidecar, check: dict[str, Any], where: str, caplog: pytest.LogCaptureFixture, capsys: Any
) -> None:
    caplog.set_level(logging.WARNING)
    anna = await Raw.join(sidecar, sidecar.user_key("anna"), "anna")
    reply = await _ask(anna, {"type": "roll", "id": "big", "check": check, "actor": "Ayla"})
    assert reply["type"] == "error" and reply["code"] == "invalid_message", reply
    assert f"`{where}`" in reply["message"], reply
    pong = await _ask(anna, {"type": "ping", "id": "still-up"})
    assert pong["type"] == "pong"
    await anna.close()
    _quiet(caplog, capsys)


async def test_wyrd_grants_beyond_the_bound_are_refused_and_msgpack_clients_are_still_welcomed(
    sidecar: Sidecar, caplog: pytest.LogCaptureFixture, capsys: Any
) -> None:
    caplog.set_level(logging.WARNING)
    gm = await Raw.join(sidecar, sidecar.keys.gm, "gm")
    for n in range(3):
        grant = {"type": "gm", "id": f"w{n}", "op": {"op": "wyrd_grant", "actor": "Ayla", "amount": BIG}}
        reply = await _ask(gm, grant)
        assert reply["type"] == "error" and reply["code"] == "invalid_message" and "`op.amount`" in reply["message"]
    most = {"type": "gm", "id": "most", "op": {"op": "wyrd_grant", "actor": "Ayla", "amount": limits.WYRD}}
    assert (await _ask(gm, most))["type"] == "done"
    for msgpack in (True, False):
        joiner = await Raw.join(sidecar, sidecar.user_key("bo"), "bo", msgpack=msgpack)
        welcome = joiner.decoded()[0]
        assert welcome["type"] == "welcome", welcome
        assert welcome["snapshot"]["actors"]["Ayla"]["wyrd"] == limits.WYRD
        await joiner.close()
    await gm.close()
    _quiet(caplog, capsys)


async def test_a_wyrd_grant_past_the_bound_is_refused_clearly(sidecar: Sidecar) -> None:
    gm = await Raw.join(sidecar, sidecar.keys.gm, "gm")
    most = {"type": "gm", "id": "most", "op": {"op": "wyrd_grant", "actor": "Ayla", "amount": limits.WYRD}}
    assert (await _ask(gm, most))["type"] == "done"
    more = {"type": "gm", "id": "more", "op": {"op": "wyrd_grant", "actor": "Ayla", "amount": 1}}
    reply = await _ask(gm, more)
    assert reply["type"] == "error" and reply["code"] == "over_limit", reply
    assert str(limits.WYRD) in reply["message"]
    await gm.close()


def test_a_sum_the_fold_makes_stays_within_its_bound() -> None:
    """What can carry a running value past its bound a step at a time (a roll's strain, harm, a game changer;
    Wyrd from a ledger written before the bound) is held at the bound by the fold."""
    from sidecar.state.projection import Projection

    events: list[object] = [feats_t.WyrdChanged(actor="A", delta=BIG) for _ in range(3)]
    events += [challenge_t.StrainChanged(actor="A", delta=4) for _ in range(limits.STRAIN)]
    events += [facets_t.HarmTaken(actor="A", harm="wound") for _ in range(limits.HARM + 5)]
    events += [challenge_t.GameChangerGained(actor="A", count=BIG)]
    p = Projection.build(enumerate(events, 1))
    a = p.actors["A"]
    assert (a.wyrd, a.strain, a.wounds, a.game_changers) == (
        limits.WYRD,
        limits.STRAIN,
        limits.HARM,
        limits.GAME_CHANGERS,
    )
    msgspec.msgpack.encode(p.snapshot())  # MessagePack carries it (it refused Wyrd past 2⁶⁴)


# --- the property: whatever the protocol accepts, the rules read within 64 bits ---------------------------------


def _ints(bounds: dict[str, int], lo: str = "min", hi: str = "max") -> st.SearchStrategy[int]:
    least, most = bounds.get(lo, INT_MIN), bounds.get(hi, INT_MAX)
    edges = st.sampled_from(sorted({least, most, 0, 1, -1, max(least, min(most, 3))}))
    return st.one_of(edges, st.integers(least, most), st.integers(max(least, -12), min(most, 12)))


def _value(tp: Any) -> st.SearchStrategy[Any]:
    """Values of a field's type within the bounds its Struct declares (those the protocol accepts)."""
    bounds = vocabulary.bounds_of(tp)
    bare, optional = vocabulary._bare(tp)
    inner: st.SearchStrategy[Any]
    if bare is bool:
        inner = st.booleans()
    elif bare is int:
        inner = _ints(bounds)
    elif bare is str:
        inner = st.text(max_size=min(bounds.get("maxLength", 8), 8))
    elif typing.get_origin(bare) is typing.Literal:
        inner = st.sampled_from(typing.get_args(bare))
    elif typing.get_origin(bare) is list:
        (item,) = typing.get_args(bare)
        item_bare, _ = vocabulary._bare(item)
        if item_bare is int:
            items: st.SearchStrategy[Any] = _ints(bounds, "itemMin", "itemMax")
        else:
            items = _value(item)
        inner = st.lists(items, max_size=min(bounds.get("maxItems", 6), 6))
    elif isinstance(bare, type) and issubclass(bare, msgspec.Struct):
        inner = _struct(bare)
    else:
        raise TypeError(f"no values for {tp!r}")
    return st.one_of(st.none(), inner) if optional else inner


def _struct(struct: type) -> st.SearchStrategy[dict[str, Any]]:
    hints = typing.get_type_hints(struct, include_extras=True)
    fields = msgspec.structs.fields(struct)
    required = {f.name: _value(hints[f.name]) for f in fields if f.required}
    optional = {f.name: _value(hints[f.name]) for f in fields if not f.required}
    return st.fixed_dictionaries(required, optional=optional)


_CHECKS = st.one_of(
    *(_struct(rs.check_type).map(lambda d, name=name: {"system": name, **d}) for name, rs in RULESETS.items())
)


def _fits(value: Any) -> bool:
    if isinstance(value, bool) or value is None or isinstance(value, (str, float)):
        return True
    if isinstance(value, int):
        return INT_MIN <= value <= INT_MAX
    if isinstance(value, dict):
        return all(_fits(v) for v in value.values())
    if isinstance(value, list):
        return all(_fits(v) for v in value)
    return False


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(check=_CHECKS)
@example(check={"system": "feats", "ability": limits.LEVEL, "difficulty": -limits.LEVEL})
@example(check={"system": "challenge", "cl": limits.LEVEL, "modifier": limits.LEVEL, "dice": [20]})
def test_any_check_the_protocol_accepts_reads_within_64_bits(check: dict[str, Any]) -> None:
    msg = codec.decode_client(json.dumps({"type": "roll", "id": "r", "check": check}))
    assert isinstance(msg, m.Roll)
    rules = registry.ruleset_of(msg.check)
    try:
        rules.validate(msg.check)
        faces = msg.check.dice if msg.check.dice is not None else rules.roll(msg.check, Dice())
        result = rules.read(msg.check, faces)
    except VerdictError:
        return  # a refusal with its code: what the rules say of a check they cannot make
    built = msgspec.to_builtins(result)
    assert _fits(built), built
    msgspec.msgpack.encode(result)  # and MessagePack carries it
