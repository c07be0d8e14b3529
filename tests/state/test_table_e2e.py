"""The table's state over real sockets: consequences, GM actions, roles, secrecy, undo, reconnects."""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets

from protocol.v1 import challenge as challenge_t
from protocol.v1 import feats as feats_t
from protocol.v1 import flairs as flairs_t
from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.boons import BoonsCheck
from protocol.v1.challenge import ChallengeCheck, ChallengeChoice
from protocol.v1.facets import FacetsCheck
from protocol.v1.feats import FeatsCheck
from protocol.v1.flairs import FlairsCheck, FlairsChoose
from sidecar.client import RequestFailed


class RawPlayer:
    """A player socket that records every raw frame it receives, to check secrecy on the wire."""

    def __init__(self, ws, frames):
        self.ws, self.frames = ws, frames

    @classmethod
    async def join(cls, sidecar, user="p-raw", since=None):
        ws = await websockets.connect(sidecar.url, subprotocols=["verdict.v1"], compression=None)
        await ws.send(
            json.dumps(
                {
                    "type": "hello",
                    "table": sidecar.keys.table,
                    "key": sidecar.user_key(user),
                    "user": user,
                    "since": since,
                }
            )
        )
        frames = [await ws.recv()]
        self = cls(ws, frames)
        self.task = asyncio.create_task(self._read())
        return self

    async def _read(self):
        try:
            async for f in self.ws:
                self.frames.append(f)
        except websockets.ConnectionClosed:
            pass

    async def close(self):
        await self.ws.close()
        await self.task

    def text(self) -> str:
        return "\n".join(self.frames)

    async def wait_for(self, text: str, timeout: float = 30.0) -> None:
        deadline = asyncio.get_running_loop().time() + timeout
        while text not in self.text():
            assert asyncio.get_running_loop().time() < deadline, f"{text!r} never reached the player"
            await asyncio.sleep(0.01)

    async def barrier(self, gm) -> None:
        """A public roll after everything sent so far: once it arrives, every earlier frame has too."""
        label = f"barrier-{gm.new_id()}"
        await roll(gm, FacetsCheck(pool=1), label=label)
        await self.wait_for(label)


async def gm_op(gm, op):
    return await gm.request(m.Gm(id=gm.new_id(), op=op))


async def state(c):
    return (await c.request(m.State(id=c.new_id()))).snapshot


async def roll(c, check, **kw):
    return await c.request(m.Roll(id=c.new_id(), check=check, **kw))


async def test_challenge_margins_change_strain_and_the_choice_is_a_follow_up(sidecar):
    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    r = await roll(p, ChallengeCheck(cl=2, modifier=0, dice=[7]), actor="Ayla")  # level 2 = CL: +1 strain
    assert r.result.outcome == "success_at_cost"
    assert [e.event for e in r.events] == [challenge_t.StrainChanged(actor="Ayla", delta=1, cause=r.seq)]
    r = await roll(p, ChallengeCheck(cl=2, modifier=0, dice=[3]), actor="Ayla")  # level 1: miss by 1, +2
    assert (await state(gm)).actors["Ayla"].strain == 3
    r = await roll(p, ChallengeCheck(cl=1, modifier=0, dice=[11]), actor="Ayla")  # +2: a choice
    assert r.result.choice == ["game_changer", "strain"]
    other = await sidecar.client("player", user="p2")
    with pytest.raises(RequestFailed) as e:
        await other.request(m.Follow(id="x1", check=r.check, action=ChallengeChoice(option="strain")))
    assert e.value.code == "not_your_check"
    f = await p.request(m.Follow(id="f1", check=r.check, action=ChallengeChoice(option="strain")))
    assert f.result.chosen == "strain"
    assert (await state(gm)).actors["Ayla"].strain == 2
    with pytest.raises(RequestFailed) as e:
        await p.request(m.Follow(id="f2", check=r.check, action=ChallengeChoice(option="game_changer")))
    assert e.value.code == "choice_already_made"
    r = await roll(p, ChallengeCheck(cl=1, modifier=0, dice=[12]), actor="Ayla")  # +2 again
    await p.request(m.Follow(id="f3", check=r.check, action=ChallengeChoice(option="game_changer")))
    s = await state(gm)
    assert s.actors["Ayla"].game_changers == 1 and s.actors["Ayla"].strain == 2
    r = await roll(p, ChallengeCheck(cl=1, modifier=20, dice=[2]), actor="Ayla")  # epic success: -2
    assert r.result.outcome == "epic_success" and r.result.complication == "remove"
    assert (await state(gm)).actors["Ayla"].strain == 0
    r = await roll(p, ChallengeCheck(cl=3, modifier=-30, dice=[20]), actor="Ayla")  # level 0 vs CL 3: -3, +4
    assert r.result.outcome == "failure" and r.result.strain == 4
    r = await roll(p, ChallengeCheck(cl=4, modifier=-30, dice=[20]), actor="Ayla")  # -4: epic failure
    assert r.result.outcome == "epic_failure" and r.result.condition
    s = await state(gm)
    assert s.actors["Ayla"].strain == 4 and len(s.actors["Ayla"].conditions) == 1
    for c in (gm, p, other):
        await c.close()


async def test_epic_failures_add_conditions_and_hidden_complications_and_the_fourth_takes_down(sidecar):
    gm = await sidecar.client("gm")
    raw = await RawPlayer.join(sidecar)
    p = await sidecar.client("player", user="p1")
    await gm_op(gm, t.SceneActivate(scene="Vault"))
    for _ in range(4):
        r = await roll(p, ChallengeCheck(cl=3, modifier=0, dice=[1]), actor="Bo")  # a natural 1
        assert r.result.outcome == "epic_failure" and r.result.condition
    s = await state(gm)
    bo = s.actors["Bo"]
    assert len(bo.conditions) == 4 and bo.taken_down
    origins = sorted(c.origin for c in s.scenes["Vault"].complications)
    assert origins == ["epic_failure"] * 4 + ["taken_down"]
    assert all(c.hidden for c in s.scenes["Vault"].complications)
    ps = await state(p)
    assert ps.actors["Bo"].taken_down and ps.scenes.get("Vault", t.SceneState()).complications == []
    await raw.barrier(gm)
    assert "complication_added" not in raw.text()
    await raw.close()
    await gm.close()
    await p.close()


async def test_facets_harm_lands_on_both_sides_and_facets_are_created(sidecar):
    gm = await sidecar.client("gm")
    await roll(gm, FacetsCheck(pool=2, kind="opposition", dice=[4, 2]), actor="Ayla", target="Orc")
    await roll(gm, FacetsCheck(pool=2, kind="opposition", dice=[1, 1]), actor="Ayla", target="Orc")
    await roll(gm, FacetsCheck(pool=2, kind="interpersonal", dice=[6, 6]), actor="Ayla", target="Orc", scene="Hall")
    s = await state(gm)
    assert (s.actors["Ayla"].scratches, s.actors["Ayla"].wounds, len(s.actors["Ayla"].conditions)) == (1, 1, 1)
    assert (s.actors["Orc"].scratches, s.actors["Orc"].wounds, len(s.actors["Orc"].conditions)) == (1, 1, 1)
    assert [f.nature for f in s.actors["Ayla"].facets] == ["detrimental"]
    assert [f.nature for f in s.scenes["Hall"].facets] == ["beneficial"]
    await gm.close()


async def test_wyrd_points_are_spent_and_refused_when_short(sidecar):
    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    with pytest.raises(RequestFailed) as e:
        await roll(p, FeatsCheck(level=4, wyrd=1, dice=[8, 8]), actor="Cai")
    assert e.value.code == "insufficient_wyrd"
    await gm_op(gm, feats_t.WyrdGrant(actor="Cai", amount=7))
    r = await roll(p, FeatsCheck(level=4, wyrd=1, dice=[8, 8]), actor="Cai")
    assert r.result.cost == 5 and r.result.bought == ["white"]
    assert (await state(gm)).actors["Cai"].wyrd == 2
    await gm.close()
    await p.close()


async def test_only_the_gm_does_gm_actions(sidecar):
    p = await sidecar.client("player", user="p1")
    o = await sidecar.client("observer", user="o1")
    with pytest.raises(RequestFailed) as e:
        await gm_op(p, challenge_t.ComplicationAdd(scene="s", text="x"))
    assert e.value.code == "forbidden"
    with pytest.raises(RequestFailed) as e:
        await roll(o, FacetsCheck(pool=1))
    assert e.value.code == "forbidden"
    await p.close()
    await o.close()


async def test_hidden_complications_never_reach_a_player_until_revealed(sidecar):
    gm = await sidecar.client("gm")
    raw = await RawPlayer.join(sidecar)
    secret = "Assassins wait on the roof"
    done = await gm_op(gm, challenge_t.ComplicationAdd(scene="Inn", text=secret, hidden=True))
    kid = done.events[0].event.complication
    await gm_op(gm, challenge_t.ComplicationEdit(complication=kid, text=secret + " (three)"))
    await raw.barrier(gm)
    assert secret not in raw.text() and kid not in raw.text()
    await gm_op(gm, challenge_t.ComplicationReveal(complication=kid))
    await raw.barrier(gm)
    assert secret + " (three)" in raw.text()
    await raw.close()
    p = await sidecar.client("player", user="late")
    assert [c.text for c in p.welcome.snapshot.scenes["Inn"].complications] == [secret + " (three)"]
    await gm_op(gm, challenge_t.ComplicationConvert(complication=kid, cl=3))
    r = await roll(p, ChallengeCheck(cl=3, modifier=5, complication=kid, dice=[12]), actor="Ayla")
    assert r.result.outcome == "success"
    assert (await state(gm)).scenes["Inn"].complications == []
    await gm.close()
    await p.close()


async def test_lurking_trial_names_stay_secret_until_the_flair_choice(sidecar):
    gm = await sidecar.client("gm")
    raw = await RawPlayer.join(sidecar, user="p1")
    p = await sidecar.client("player", user="p1")
    await gm_op(gm, flairs_t.LurkingSet(trials=["harmful", "foolish"], actor="Ayla"))
    snap = await state(p)
    lurking = [lk for s in snap.scenes.values() for lk in s.lurking]
    assert [(lk.count, lk.trials) for lk in lurking] == [(2, None)]
    r = await roll(p, FlairsCheck(rank=3, dice=[6, 6, 2]), actor="Ayla")
    assert r.result.lurking == 2 and r.result.lurking_trials is None
    await raw.barrier(gm)
    assert "harmful" not in raw.text() and "foolish" not in raw.text()
    gm_seen = [x for x in [await gm.next()] if isinstance(x, m.Rolled)]
    assert gm_seen and gm_seen[0].result.lurking_trials == ["harmful", "foolish"]
    f = await p.request(m.Follow(id="ch", check=r.check, action=FlairsChoose(flairs=["unscathed"])))
    assert f.result.revealed and f.result.banished == ["harmful"]
    assert "foolish" in json.dumps(json.loads(raw.frames[-1])) or "foolish" in raw.text()
    await raw.close()
    await gm.close()
    await p.close()


async def test_blind_and_gm_only_rolls_stay_off_players_sockets(sidecar):
    gm = await sidecar.client("gm")
    roller = await sidecar.client("player", user="p1")
    raw = await RawPlayer.join(sidecar, user="p2")
    blind = await roll(roller, FacetsCheck(pool=3), mode="blind", label="secret-blind")
    assert blind.result is None  # the roller learns only that it happened
    gm_roll = await roll(roller, FacetsCheck(pool=3), mode="gm", label="secret-gmroll")
    assert gm_roll.result is not None
    seen = [await gm.next(), await gm.next()]
    assert all(isinstance(s, m.Rolled) and s.result is not None for s in seen)
    await raw.barrier(gm)
    assert "secret-blind" not in raw.text() and "secret-gmroll" not in raw.text()
    await raw.close()
    await gm.close()
    await roller.close()


async def test_undo_reverses_the_last_actions_with_their_consequences(sidecar):
    gm = await sidecar.client("gm")
    await roll(gm, ChallengeCheck(cl=2, dice=[3]), actor="Ayla")  # +2 strain
    await roll(gm, ChallengeCheck(cl=3, dice=[1]), actor="Ayla", scene="S")  # epic failure: condition + complication
    s = await state(gm)
    assert s.actors["Ayla"].strain == 2 and len(s.actors["Ayla"].conditions) == 1 and s.scenes["S"].complications
    await gm_op(gm, t.Undo(count=1))
    s = await state(gm)
    assert s.actors["Ayla"].strain == 2 and s.actors["Ayla"].conditions == [] and "S" not in s.scenes
    await gm_op(gm, t.Undo(count=1))
    assert (await state(gm)).actors.get("Ayla", t.ActorState()).strain == 0
    with pytest.raises(RequestFailed) as e:
        await gm_op(gm, t.Undo(count=1))
    assert e.value.code == "nothing_to_undo"
    # nothing was deleted
    kinds = [st for _, st in sidecar.ledger.events(sidecar.keys.table)]
    assert len(kinds) == 7
    await gm.close()


async def test_reconnect_with_a_gap_gets_exactly_the_missed_events(sidecar):
    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    await roll(p, FacetsCheck(pool=1), actor="A")
    seen = p.seq
    await p.close()
    await roll(gm, ChallengeCheck(cl=2, dice=[7]), actor="A")  # public: roll + strain
    await gm_op(gm, challenge_t.ComplicationAdd(scene="S", text="hidden thing", hidden=True))  # not for players
    await gm_op(gm, challenge_t.ComplicationAdd(scene="S", text="open thing", hidden=False))
    back = await sidecar.client("player", user="p1", since=seen)
    kinds = [type(e.event).__name__ for e in back.welcome.events]
    assert kinds == ["RollEvent", "StrainChanged", "ComplicationAdded"]
    assert back.welcome.events[-1].event.text == "open thing"
    # numbered in the player's own count: the hidden complication is no event of theirs, not even a gap
    assert back.welcome.seq == seen + 3
    assert [e.seq for e in back.welcome.events] == [seen + 1, seen + 2, seen + 3]
    assert back.welcome.snapshot is None
    fresh = await sidecar.client("player", user="p9")
    assert fresh.welcome.snapshot is not None and fresh.welcome.events == []
    for c in (gm, back, fresh):
        await c.close()


async def test_extended_checks_accumulate(sidecar):
    gm = await sidecar.client("gm")
    done = await gm_op(gm, t.ExtendedStart(name="Vault", threshold=3, time_unit="hour", limit=3, trial=1))
    xid = done.events[0].event.extended
    # ability die face 4 = SS (2 successes); trial face 1 = blank
    r = await roll(gm, BoonsCheck(ability=1, trial=1, dice=[4, 1]), extended=xid)
    assert r.result.extended.progress == 2
    r = await roll(gm, BoonsCheck(ability=1, trial=1, dice=[2, 1]), extended=xid)
    assert r.result.extended.status == "complete"
    s = await state(gm)
    assert (s.extended[xid].progress, s.extended[xid].attempts, s.extended[xid].status) == (3, 2, "complete")
    with pytest.raises(RequestFailed) as e:
        await roll(gm, BoonsCheck(ability=1, trial=1), extended=xid)
    assert e.value.code == "extended_complete"
    await gm.close()


async def test_a_group_check_gathers_every_participants_roll(sidecar):
    from protocol.v1.flairs import FlairsParticipant

    gm = await sidecar.client("gm")
    ash = await sidecar.client("player", user="ash")
    bree = await sidecar.client("player", user="bree")
    party = [FlairsParticipant(name="Ash", rank=2), FlairsParticipant(name="Bree", rank=1, edges=1)]
    done = await gm_op(gm, t.GatherStart(name="Room trap", check=FlairsCheck(group=party, trap=True)))
    gid = done.events[0].event.gather
    assert done.events[0].event.parts == ["Ash", "Bree"]
    r1 = await ash.request(m.Roll(id="a1", check=FlairsCheck(rank=2, dice=[2, 1]), gather=gid, part="Ash"))
    assert r1.result.simple and r1.result.outcome == "failure"
    assert not any(isinstance(e.event, t.GatherResolved) for e in r1.events)
    with pytest.raises(RequestFailed) as e:
        await ash.request(m.Roll(id="a2", check=FlairsCheck(rank=2), gather=gid, part="Ash"))
    assert e.value.code == "part_already_rolled"
    r2 = await bree.request(m.Roll(id="b1", check=FlairsCheck(rank=1, dice=[1, 2]), gather=gid, part="Bree"))
    resolved = [e.event for e in r2.events if isinstance(e.event, t.GatherResolved)]
    assert resolved and resolved[0].result.outcome == "failure"
    assert resolved[0].result.springs == ["Ash", "Bree"]  # both tied lowest
    snap = await state(gm)
    assert snap.gathers[gid].result.outcome == "failure"
    with pytest.raises(RequestFailed) as e:
        await bree.request(m.Roll(id="b2", check=FlairsCheck(rank=1), gather=gid, part="Bree"))
    assert e.value.code == "gather_complete"
    for c in (gm, ash, bree):
        await c.close()


async def test_an_opposed_check_gathers_both_sides(sidecar):
    from protocol.v1.boons import BoonsPool

    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    done = await gm_op(
        gm, t.GatherStart(name="Arm wrestle", check=BoonsCheck(ability=1, opponent=BoonsPool(ability=1)))
    )
    gid = done.events[0].event.gather
    await p.request(m.Roll(id="o1", check=BoonsCheck(ability=1, dice=[2]), gather=gid, part="actor"))
    r = await gm.request(m.Roll(id="o2", check=BoonsCheck(ability=1, dice=[2]), gather=gid, part="defender"))
    resolved = [e.event for e in r.events if isinstance(e.event, t.GatherResolved)]
    assert resolved[0].result.winner == "defender"  # a tie goes to the defender
    with pytest.raises(RequestFailed) as e:
        await gm_op(gm, t.GatherStart(check=FacetsCheck(pool=2)))
    assert e.value.code == "not_a_gathered_check"
    await gm.close()
    await p.close()


async def test_undo_a_single_consequence(sidecar):
    gm = await sidecar.client("gm")
    await roll(gm, ChallengeCheck(cl=4, dice=[1]), actor="Ayla", scene="S")  # roll, condition, complication
    s = await state(gm)
    assert len(s.actors["Ayla"].conditions) == 1 and len(s.scenes["S"].complications) == 1
    await gm_op(gm, t.Undo(count=1, events=True))  # only the complication
    s = await state(gm)
    assert len(s.actors["Ayla"].conditions) == 1 and s.scenes.get("S", t.SceneState()).complications == []
    await gm.close()
