"""Rules and input over a real websocket: what the texts forbid is refused, what they allow goes through,
and a misspelled field is refused with its name and place instead of being dropped."""

from __future__ import annotations

import json

import msgspec
import pytest
import websockets

from protocol.v1 import challenge as challenge_t
from protocol.v1 import facets as facets_t
from protocol.v1 import messages as m
from protocol.v1 import table as t
from sidecar.client import RequestFailed

from ..wire import follow, gm_op, refused, roll, state


async def _raw(sidecar, role="gm", user="u1", msgpack=False):
    proto = "verdict.v1+msgpack" if msgpack else "verdict.v1"
    ws = await websockets.connect(sidecar.url, subprotocols=[proto], compression=None)
    hello = {
        "type": "hello",
        "protocol": 1,
        "table": sidecar.keys.table,
        "key": getattr(sidecar.keys, role),
        "client": "t",
        "user": user,
    }
    await ws.send(msgspec.msgpack.encode(hello) if msgpack else json.dumps(hello))
    welcome = _load(await ws.recv())
    assert welcome["type"] == "welcome"
    return ws


def _load(frame):
    return msgspec.msgpack.decode(frame) if isinstance(frame, bytes) else json.loads(frame)


async def ask(ws, obj, msgpack=False):
    await ws.send(msgspec.msgpack.encode(obj) if msgpack else json.dumps(obj))
    while True:
        reply = _load(await ws.recv())
        if reply.get("id") == obj.get("id"):
            return reply


# --- unknown fields ---------------------------------------------------------------------------------------

UNKNOWN = [
    # (the message, the field's place as the error names it)
    (
        {"type": "roll", "id": "a", "check": {"system": "boons", "ability": 1, "opponent": {"abilty": 3}}},
        "$.check.opponent.abilty",
    ),
    (
        {"type": "roll", "id": "a", "check": {"system": "boons", "ability": 1, "opponent": {"ability": 1, "trial": 2}}},
        "$.check.opponent.trial",
    ),
    (
        {"type": "roll", "id": "a", "check": {"system": "flairs", "group": [{"name": "a", "rnak": 2}]}},
        "$.check.group[0].rnak",
    ),
    ({"type": "roll", "id": "a", "check": {"system": "facets", "pool": 2}, "dice": [6, 6]}, "$.dice"),
    ({"type": "roll", "id": "a", "check": {"system": "challenge", "cl": 2, "modifer": 3}}, "$.check.modifer"),
    (
        {"type": "odds", "id": "a", "check": {"system": "feats", "ability": 1, "difficulty": 2, "wyrd_die": ["red"]}},
        "$.check.wyrd_die",
    ),
    (
        {
            "type": "follow",
            "id": "a",
            "check": "x",
            "action": {"action": "flairs_bargain", "trial": "loud", "die": [6]},
        },
        "$.action.die",
    ),
    ({"type": "gm", "id": "a", "op": {"op": "undo", "cont": 2}}, "$.op.cont"),
    (
        {
            "type": "gm",
            "id": "a",
            "op": {"op": "gather_start", "check": {"system": "flairs", "group": [{"name": "a", "rank": 1, "edge": 1}]}},
        },
        "$.op.check.group[0].edge",
    ),
    ({"type": "state", "id": "a", "full": True}, "$.full"),
    ({"type": "verify", "id": "a", "check": "x", "hash": "y"}, "$.hash"),
    ({"type": "ping", "id": "a", "at": 1}, "$.at"),
]


@pytest.mark.parametrize("msgpack", [False, True], ids=["json", "msgpack"])
@pytest.mark.parametrize("msg, where", UNKNOWN, ids=[w for _, w in UNKNOWN])
async def test_unknown_fields_are_refused_with_their_place(sidecar, msg, where, msgpack):
    ws = await _raw(sidecar, msgpack=msgpack)
    reply = await ask(ws, msg, msgpack)
    assert reply["type"] == "error" and reply["code"] == "invalid_message", reply
    assert f"`{where}`" in reply["message"], reply["message"]
    # nothing happened, and the socket stays up
    state = await ask(ws, {"type": "state", "id": "s"}, msgpack)
    assert state["snapshot"]["seq"] == 0
    await ws.close()


async def test_an_unknown_field_in_hello_is_refused(sidecar):
    ws = await websockets.connect(sidecar.url, subprotocols=["verdict.v1"], compression=None)
    await ws.send(json.dumps({"type": "hello", "table": sidecar.keys.table, "key": sidecar.keys.gm, "usr": "u1"}))
    reply = json.loads(await ws.recv())
    assert reply["code"] == "invalid_message" and "`$.usr`" in reply["message"]
    await ws.close()


# --- the GM's difficulty stands -----------------------------------------------------------------------


async def test_the_gms_cl_stands_for_a_converted_complication(sidecar):
    from protocol.v1.challenge import ChallengeCheck

    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    ward = (
        (await gm_op(gm, challenge_t.ComplicationAdd(scene="Vault", text="Magical ward", hidden=False)))
        .events[0]
        .event.complication
    )
    secret = (
        (await gm_op(gm, challenge_t.ComplicationAdd(scene="Vault", text="Assassins", hidden=True)))
        .events[0]
        .event.complication
    )
    assert (
        await refused(roll(p, ChallengeCheck(cl=1, complication=ward, dice=[20]), actor="Ayla"))
        == "complication_not_converted"
    )
    assert (
        await refused(roll(p, ChallengeCheck(cl=1, complication=secret, dice=[20]), actor="Ayla"))
        == "unknown_complication"
    )
    await gm_op(gm, challenge_t.ComplicationConvert(complication=ward, cl=4))
    try:
        await roll(p, ChallengeCheck(cl=1, complication=ward, dice=[20]), actor="Ayla")
        raise AssertionError("a roll at CL 1 removed a complication the GM set at CL 4")
    except RequestFailed as e:
        assert e.code == "difficulty_mismatch" and "CL 4" in e.error.message
    snap = await state(gm)
    assert {c.id for c in snap.scenes["Vault"].complications} == {ward, secret}
    r = await roll(p, ChallengeCheck(cl=4, complication=ward, dice=[20]), actor="Ayla")
    assert r.result.success and ward not in {c.id for c in (await state(gm)).scenes["Vault"].complications}
    for c in (gm, p):
        await c.close()


async def test_an_extended_roll_cannot_replace_the_gms_difficulty(sidecar):
    from protocol.v1.boons import BoonsCheck

    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    xid = (await gm_op(gm, t.ExtendedStart(name="Climb", threshold=4, trial=3))).events[0].event.extended
    assert await refused(roll(p, BoonsCheck(ability=2, trial=1), extended=xid)) == "difficulty_mismatch"
    r = await roll(p, BoonsCheck(ability=2), extended=xid)
    assert r.result.types == ["ability", "ability", "trial", "trial", "trial"]
    for c in (gm, p):
        await c.close()


# --- the GM's hand on facets and harm -------------------------------------------------------------------


async def test_the_gm_writes_and_corrects_facets_and_harm_over_the_wire(sidecar):
    from protocol.v1.facets import FacetsCheck

    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    await gm_op(gm, t.SceneActivate(scene="Inn"))
    r = await roll(p, FacetsCheck(pool=2, kind="opposition", dice=[6, 6]), actor="Ayla", target="Orc")
    fid = next(e.event for e in r.events if isinstance(e.event, facets_t.FacetCreated)).id
    await gm_op(gm, facets_t.FacetRename(facet=fid, text="Shattered shield"))
    seen = await p.next()
    while not isinstance(getattr(seen, "event", None), facets_t.FacetRenamed):
        seen = await p.next()
    assert seen.event.facet == fid and seen.event.text == "Shattered shield"
    assert [(f.id, f.facet) for f in (await state(p)).scenes["Inn"].facets] == [(fid, "Shattered shield")]
    own = (
        (await gm_op(gm, facets_t.FacetAdd(facet="Cursed blade", nature="detrimental", actor="Ayla")))
        .events[0]
        .event.id
    )
    await gm_op(gm, facets_t.FacetRemove(facet=fid))
    assert (await state(p)).scenes["Inn"].facets == []
    r = await roll(p, FacetsCheck(pool=2, kind="opposition", dice=[1, 1]), actor="Ayla")  # a wound and a condition
    ayla = (await state(gm)).actors["Ayla"]
    assert (ayla.wounds, len(ayla.conditions), [f.id for f in ayla.facets]) == (1, 1, [own])
    await gm_op(gm, facets_t.HarmHeal(actor="Ayla", harm="wound"))
    await gm_op(gm, t.ConditionRemove(actor="Ayla", condition=ayla.conditions[0].id))
    ayla = (await state(p)).actors["Ayla"]
    assert (ayla.wounds, ayla.conditions) == (0, [])
    assert await refused(gm_op(gm, facets_t.HarmHeal(actor="Ayla", harm="scratch"))) == "no_such_harm"
    assert await refused(gm_op(p, facets_t.HarmHeal(actor="Ayla", harm="wound"))) == "forbidden"
    assert await refused(gm_op(gm, facets_t.FacetRename(facet="nope", text="x"))) == "unknown_facet"
    await gm_op(gm, t.Undo(count=2))
    ayla = (await state(p)).actors["Ayla"]
    assert (ayla.wounds, len(ayla.conditions)) == (1, 1)
    for c in (gm, p):
        await c.close()


# --- an epic success: the GM removes a complication --------------------------------------------------------


async def test_the_gm_removes_a_complication_after_an_epic_success(sidecar):
    from protocol.v1.challenge import ChallengeCheck, ChallengeRemoveComplication

    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    await gm_op(gm, t.SceneActivate(scene="Vault"))
    ward = (
        (await gm_op(gm, challenge_t.ComplicationAdd(scene="Vault", text="Ward", hidden=False)))
        .events[0]
        .event.complication
    )
    secret = (
        (await gm_op(gm, challenge_t.ComplicationAdd(scene="Vault", text="Assassins", hidden=True)))
        .events[0]
        .event.complication
    )
    epic = await roll(p, ChallengeCheck(cl=1, modifier=5, dice=[20]), actor="Ayla")
    assert epic.result.outcome == "epic_success" and epic.result.complication == "remove"
    remove = ChallengeRemoveComplication(complication=ward)
    assert await refused(follow(p, epic.check, remove)) == "forbidden"
    done = await follow(gm, epic.check, ChallengeRemoveComplication(complication=secret))
    assert done.result.complication == "removed"
    # the player hears the follow-up, never the off-screen complication's id
    while True:
        seen = await p.next()
        if isinstance(seen, m.Followed):
            break
    assert seen.result.complication == "removed" and seen.action.complication == ""
    assert secret not in str(seen)
    assert [c.id for c in (await state(gm)).scenes["Vault"].complications] == [ward]
    assert await refused(follow(gm, epic.check, remove)) == "complication_already_removed"
    for c in (gm, p):
        await c.close()
