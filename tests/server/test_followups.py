"""Every follow-up and multi-person check over a real websocket, the forbidden ones included."""

from __future__ import annotations

import pytest

from protocol.v1 import flairs as flairs_t
from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.boons import BoonsCheck, BoonsPool
from protocol.v1.challenge import ChallengeChoice
from protocol.v1.feats import FeatsCheck
from protocol.v1.flairs import (
    FlairsBargain,
    FlairsCheck,
    FlairsChoose,
    FlairsNameTrials,
    FlairsParticipant,
    FlairsReveal,
)
from sidecar.client import RequestFailed

from ..wire import gm_op, state


async def roll(c, check, **kw):
    return await c.request(m.Roll(id=c.new_id(), check=check, **kw))


async def follow(c, check_id, action):
    return await c.request(m.Follow(id=c.new_id(), check=check_id, action=action))


async def refused(coro) -> str:
    with pytest.raises(RequestFailed) as e:
        await coro
    return e.value.code


async def test_devils_bargain(sidecar):
    p = await sidecar.client("player", user="p1")
    gm = await sidecar.client("gm")
    ok = await roll(p, FlairsCheck(rank=2, dice=[3, 2]))
    assert ok.result.outcome == "failure"
    other = await sidecar.client("player", user="p2")
    assert await refused(follow(other, ok.check, FlairsBargain(trial="loud", dice=[6]))) == "not_your_check"
    f = await follow(p, ok.check, FlairsBargain(trial="loud", dice=[6]))
    assert f.result.outcome == "triumph" and f.result.bargain == "loud"
    assert any(s.source == "bargain" and s.name == "loud" for s in f.result.standing)
    assert await refused(follow(p, ok.check, FlairsBargain(trial="slow", dice=[6]))) == "bargain_twice"
    success = await roll(p, FlairsCheck(rank=2, dice=[5, 2]))
    assert await refused(follow(p, success.check, FlairsBargain(trial="slow"))) == "bargain_not_failure"
    untrained = await roll(p, FlairsCheck(rank=0, dice=[2, 3]))
    assert await refused(follow(p, untrained.check, FlairsBargain(trial="slow"))) == "bargain_needs_rank"
    group = await roll(
        p, FlairsCheck(group=[FlairsParticipant(name="A", rank=1), FlairsParticipant(name="B", rank=1)], dice=[1, 2])
    )
    assert await refused(follow(p, group.check, FlairsBargain(trial="slow"))) == "bargain_in_group_check"
    for c in (p, gm, other):
        await c.close()


# --- no devil's bargain during group checks ---------------------------------------------------------------


async def test_a_bargain_on_a_group_checks_part_is_refused(sidecar):
    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    done = await gm_op(
        gm,
        t.GatherStart(
            check=FlairsCheck(group=[FlairsParticipant(name="Ash", rank=2), FlairsParticipant(name="Bree", rank=2)])
        ),
    )
    gid = done.events[0].event.gather
    part = await roll(p, FlairsCheck(dice=[2, 1]), gather=gid, part="Ash")
    assert part.result.outcome == "failure"
    assert await refused(follow(p, part.check, FlairsBargain(trial="loud", dice=[6]))) == "bargain_in_group_check"
    await roll(gm, FlairsCheck(dice=[5, 1]), gather=gid, part="Bree")
    snap = await state(gm)
    g = snap.gathers[gid]
    assert g.rolled["Ash"] == [2, 1] and g.result.outcome == "success"  # half succeed; the part kept its faces
    for c in (gm, p):
        await c.close()


# --- a devil's bargain after the Judge chose a trial ----------------------------------------------------


async def test_a_bargain_after_the_judge_named_the_trial_stands_it_twice(sidecar):
    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    r = await roll(p, FlairsCheck(rank=3, dice=[3, 3, 1]))
    await follow(gm, r.check, FlairsNameTrials(trials=["costly"]))
    b = await follow(p, r.check, FlairsBargain(trial="costly", dice=[2]))
    assert [(s.source, s.name) for s in b.result.standing] == [("pair", "costly"), ("bargain", "costly")]
    assert await refused(follow(p, r.check, FlairsBargain(trial="loud", dice=[6]))) == "bargain_twice"
    # after the lurking trials were revealed too
    await gm_op(gm, flairs_t.LurkingSet(trials=["loud"], actor="Ayla"))
    lr = await roll(p, FlairsCheck(rank=2, dice=[3, 2]), actor="Ayla")
    await follow(gm, lr.check, FlairsReveal())
    b2 = await follow(p, lr.check, FlairsBargain(trial="loud", dice=[1]))
    assert [(s.source, s.name) for s in b2.result.standing] == [("lurking", "loud"), ("bargain", "loud")]
    for c in (gm, p):
        await c.close()


async def test_flair_choice_rules(sidecar):
    p = await sidecar.client("player", user="p1")
    gm = await sidecar.client("gm")
    r = await roll(p, FlairsCheck(rank=4, dice=[6, 6, 4, 4]))
    assert r.result.flairs == 2
    assert await refused(follow(p, r.check, FlairsChoose(flairs=["quiet", "quiet"]))) == "flair_chosen_twice"
    assert await refused(follow(p, r.check, FlairsChoose(flairs=["quiet", "swift", "careful"]))) == "too_many_flairs"
    f = await follow(p, r.check, FlairsChoose(flairs=["quiet", "swift"]))
    assert f.result.chosen_flairs == ["quiet", "swift"]
    assert await refused(follow(p, r.check, FlairsChoose(flairs=["quiet"]))) == "flairs_already_chosen"
    # the Judge names the trials of a failure with pairs; players cannot
    fail = await roll(p, FlairsCheck(rank=3, dice=[2, 2, 1]))
    assert fail.result.trials == 1
    assert await refused(follow(p, fail.check, FlairsNameTrials(trials=["costly"]))) == "forbidden"
    named = await follow(gm, fail.check, FlairsNameTrials(dice=[4]))  # a random trial: d6 over the six
    assert [s.name for s in named.result.standing] == ["harmful"]
    assert await refused(follow(p, fail.check, FlairsReveal())) == "forbidden"
    for c in (p, gm):
        await c.close()


async def test_group_check_and_room_trap(sidecar):
    gm = await sidecar.client("gm")
    party = [FlairsParticipant(name=n, rank=1) for n in ("Ash", "Bree", "Cole", "Dane")]
    r = await roll(gm, FlairsCheck(group=party, trap=True, dice=[4, 2, 5, 1]))
    assert r.result.outcome == "success"  # half succeed
    r = await roll(gm, FlairsCheck(group=party, trap=True, dice=[4, 2, 1, 1]))
    assert r.result.outcome == "failure" and r.result.springs == ["Cole", "Dane"]
    await gm.close()


async def test_challenge_choice_once_and_only_when_offered(sidecar):
    from protocol.v1.challenge import ChallengeCheck

    p = await sidecar.client("player", user="p1")
    plain = await roll(p, ChallengeCheck(cl=2, dice=[12]))  # +1: no choice
    assert await refused(follow(p, plain.check, ChallengeChoice(option="strain"))) == "no_choice_offered"
    await p.close()


async def test_feats_wyrd_and_limits_over_the_wire(sidecar):
    p = await sidecar.client("player", user="p1")
    r = await roll(p, FeatsCheck(level=1, dice=[7, 1, 1]))
    assert r.result.success and r.result.degree == 0
    r = await roll(p, FeatsCheck(level=-9))
    assert r.result.success and r.result.dice == []
    assert await refused(roll(p, FeatsCheck(level=9))) == "wyrd_feat_required"
    r = await roll(p, FeatsCheck(ability=5, opposing=6, dice=[7, 3, 3]))
    assert r.result.level == 1 and r.result.success
    await p.close()


async def test_boons_opposed_assisted_group(sidecar):
    p = await sidecar.client("player", user="p1")
    # ability die faces: 2 = S, 4 = SS; a tie goes to the defender
    tie = await roll(p, BoonsCheck(ability=1, opponent=BoonsPool(ability=1), dice=[2, 2]))
    assert tie.result.winner == "defender"
    win = await roll(p, BoonsCheck(ability=1, opponent=BoonsPool(ability=1), dice=[4, 2]))
    assert win.result.winner == "actor"
    assisted = await roll(p, BoonsCheck(ability=1, rank=1, assists=[3, 2]))
    assert sorted(assisted.result.assist_dice) == ["ability", "boon"]
    # extra helpers add no dice: `assists` lists the two whose dice count, a third is refused
    assert await refused(roll(p, BoonsCheck(ability=1, rank=1, assists=[1, 1, 1]))) == "too_many_assists"
    ordered = await roll(p, BoonsCheck(ability=1, rank=1, assists=[1, 3]))
    assert ordered.result.assist_dice == ["boon", "ability"]
    group = await roll(p, BoonsCheck(ability=2, performer_rank=3, participant_ranks=[3, 1, 2]))
    assert group.result.group_banes == 2
    await p.close()
