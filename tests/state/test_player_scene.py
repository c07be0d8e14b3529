"""A player's roll is in the table's active scene: what is keyed by scene (lurking trials waiting for anyone in
it, the complications an epic failure adds and an epic success removes, the facets a triumph creates) is the
GM's to place, never the player's to choose. Over a real socket: a player naming another scene is refused
(`forbidden`), nothing of the roll is applied and the connection stays up; the GM may name any scene."""

from __future__ import annotations

import asyncio
import json

import websockets

from protocol.v1 import flairs as flairs_t
from protocol.v1 import table as t
from protocol.v1.challenge import ChallengeCheck
from protocol.v1.facets import FacetsCheck
from protocol.v1.flairs import FlairsCheck

from ..wire import gm_op, refused, roll, state


async def test_a_player_cannot_move_a_roll_out_of_the_active_scene(sidecar):
    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    await gm_op(gm, t.SceneActivate(scene="Mill"))
    # the Judge's trials wait for anyone in the mill; a player naming another scene would dodge them
    await gm_op(gm, flairs_t.LurkingSet(trials=["loud", "harmful"], scene="Mill"))
    head = (await state(gm)).seq
    code = await refused(roll(p, FlairsCheck(rank=3, dice=[5, 4, 2]), actor="Ayla", scene="Crypt"))
    assert code == "forbidden"
    snap = await state(gm)
    assert snap.seq == head, "a refused roll appends nothing"
    assert [lk.trials for lk in snap.scenes["Mill"].lurking] == [["loud", "harmful"]]
    # the same socket goes on: a roll that names no scene is in the mill, and takes the trials
    r = await roll(p, FlairsCheck(rank=3, dice=[5, 4, 2]), actor="Ayla")
    assert r.scene == "Mill"
    snap = await state(gm)
    assert snap.scenes["Mill"].lurking == []
    assert snap.seq > head
    # naming the active scene itself is accepted, and so is an empty name (none)
    assert (await roll(p, FacetsCheck(pool=1, dice=[4]), scene="Mill")).scene == "Mill"
    assert (await roll(p, FacetsCheck(pool=1, dice=[4]), scene="")).scene == "Mill"
    # an epic failure's complication lands in the active scene, not one the player names
    assert await refused(roll(p, ChallengeCheck(cl=3, dice=[1]), actor="Ayla", scene="Crypt")) == "forbidden"
    fail = await roll(p, ChallengeCheck(cl=3, dice=[1]), actor="Ayla")
    assert fail.result.outcome == "epic_failure" and fail.scene == "Mill"
    snap = await state(gm)
    assert "Crypt" not in snap.scenes and len(snap.scenes["Mill"].complications) == 1
    # the GM places a roll in any scene
    assert (await roll(gm, FacetsCheck(pool=1, dice=[4]), scene="Crypt")).scene == "Crypt"
    for c in (gm, p):
        await c.close()


async def test_with_no_active_scene_a_players_roll_names_none(sidecar):
    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    assert await refused(roll(p, FacetsCheck(pool=1, dice=[6, 6]), scene="Crypt")) == "forbidden"
    r = await roll(p, FacetsCheck(pool=1, dice=[4]))
    assert r.scene is None
    assert (await roll(gm, FacetsCheck(pool=1, dice=[4]), scene="Crypt")).scene == "Crypt"
    for c in (gm, p):
        await c.close()


async def test_the_refusal_on_the_wire_names_the_scene_to_use(sidecar):
    """A raw JSON client: the error frame echoes the request id, names the code and the active scene."""
    gm = await sidecar.client("gm")
    await gm_op(gm, t.SceneActivate(scene="Mill"))
    async with websockets.connect(sidecar.url, subprotocols=["verdict.v1"]) as ws:
        await ws.send(
            json.dumps({"type": "hello", "table": sidecar.keys.table, "key": sidecar.user_key("p1"), "user": "p1"})
        )
        assert json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] == "welcome"
        frame = {"type": "roll", "id": "r1", "check": {"system": "facets", "pool": 2}, "scene": "Crypt"}
        await ws.send(json.dumps(frame))
        err = json.loads(await asyncio.wait_for(ws.recv(), 5))
        while err["type"] != "error":
            err = json.loads(await asyncio.wait_for(ws.recv(), 5))
        assert err["id"] == "r1" and err["code"] == "forbidden"
        assert "'Mill'" in err["message"] and "scene" in err["message"]
        await ws.send(json.dumps({**frame, "id": "r2", "scene": None}))
        rolled = json.loads(await asyncio.wait_for(ws.recv(), 5))
        while rolled.get("id") != "r2":
            rolled = json.loads(await asyncio.wait_for(ws.recv(), 5))
        assert rolled["type"] == "rolled" and rolled["scene"] == "Mill"
    await gm.close()
