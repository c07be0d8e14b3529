"""Table-level rule sentences traced to cases over a real sidecar and real sockets.

docs/rules/challenge.md: strain never goes below 0; a fourth condition takes the hero down and adds a complication;
epic failures add a complication; addressing a complication and succeeding removes it; Wyrd Points are
spent; an extended check accumulates net successes and fails when its attempts run out; lurking trials
apply even on a success and stay secret until the flair choice (or the Judge's reveal). Every case was
worked out by hand from the texts.
"""

from __future__ import annotations

from protocol.v1 import challenge as challenge_t
from protocol.v1 import feats as feats_t
from protocol.v1 import flairs as flairs_t
from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.boons import BoonsCheck
from protocol.v1.challenge import ChallengeCheck, ChallengeChoice
from protocol.v1.facets import FacetsCheck
from protocol.v1.feats import FeatsCheck
from protocol.v1.flairs import FlairsCheck, FlairsChoose, FlairsReveal

from ..wire import follow, gm_op, refused, roll, state

# --- challenge: strain, conditions, complications ------------------------------------------------------


async def test_strain_never_goes_below_zero(sidecar):
    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")

    async def strain() -> int:
        return (await state(gm)).actors["Ayla"].strain

    # Epic success at strain 0 (total 30 = level 6 vs CL1): -2 is floored at 0 ...
    r = await roll(p, ChallengeCheck(cl=1, modifier=10, dice=[20]), actor="Ayla")
    assert r.result.outcome == "epic_success" and r.result.strain == -2
    assert (await state(gm)).actors.get("Ayla", t.ActorState()).strain == 0
    # ... so meeting the CL next (total 3 = level 1 = CL1) leaves 1, not -1.
    await roll(p, ChallengeCheck(cl=1, dice=[3]), actor="Ayla")
    assert await strain() == 1
    # Beat by 3 (total 16 = level 4 vs CL1) and take -2 strain: 1 - 2 is floored at 0.
    r = await roll(p, ChallengeCheck(cl=1, dice=[16]), actor="Ayla")
    assert r.result.strain_option == -2
    await follow(p, r.check, ChallengeChoice(option="strain"))
    assert await strain() == 0
    await roll(p, ChallengeCheck(cl=1, dice=[4]), actor="Ayla")  # success at a cost: +1
    assert await strain() == 1
    # A miss by 2 (total 5 = level 1 vs CL3): +3.
    await roll(p, ChallengeCheck(cl=3, dice=[5]), actor="Ayla")
    assert await strain() == 4
    assert await refused(gm_op(gm, challenge_t.StrainSet(actor="Ayla", strain=-1))) == "invalid_op"
    await gm.close()
    await p.close()


async def test_the_fourth_condition_takes_the_hero_down_and_adds_a_complication(sidecar):
    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    await gm_op(gm, t.SceneActivate(scene="Keep"))
    # A natural 1 is an epic failure whatever the total: a condition and a hidden complication, no strain.
    for _ in range(3):
        r = await roll(p, ChallengeCheck(cl=1, modifier=40, dice=[1]), actor="Bo")
        assert r.result.outcome == "epic_failure"
    s = await state(gm)
    bo = s.actors["Bo"]
    assert (len(bo.conditions), bo.taken_down, bo.strain) == (3, False, 0)
    assert [(c.origin, c.hidden) for c in s.scenes["Keep"].complications] == [("epic_failure", True)] * 3
    assert (await state(p)).scenes.get("Keep", t.SceneState()).complications == []
    # The fourth condition, here the GM's, takes Bo down and adds a complication.
    await gm_op(gm, t.ConditionAdd(actor="Bo", text="Bleeding"))
    s = await state(gm)
    assert len(s.actors["Bo"].conditions) == 4 and s.actors["Bo"].taken_down
    assert sorted(c.origin for c in s.scenes["Keep"].complications) == ["epic_failure"] * 3 + ["taken_down"]
    # A fifth condition is not a fourth: no second take-down complication.
    await roll(p, ChallengeCheck(cl=5, dice=[2]), actor="Bo")  # level 1 vs CL5: -4, epic failure
    s = await state(gm)
    assert len(s.actors["Bo"].conditions) == 5
    assert sorted(c.origin for c in s.scenes["Keep"].complications) == ["epic_failure"] * 4 + ["taken_down"]
    await gm.close()
    await p.close()


async def test_an_epic_failure_without_a_scene_still_adds_the_complication(sidecar):
    # No scene named on the roll and none active: the GM's complication is kept under the unnamed scene
    # "" instead of being lost, and it stays hidden from players.
    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    r = await roll(p, ChallengeCheck(cl=1, dice=[1]), actor="Cy")
    assert r.result.outcome == "epic_failure" and r.result.complication == "add"
    s = await state(gm)
    assert [(c.origin, c.hidden) for c in s.scenes[""].complications] == [("epic_failure", True)]
    assert (await state(p)).scenes.get("", t.SceneState()).complications == []
    await gm.close()
    await p.close()


async def test_a_hero_back_under_four_conditions_is_taken_down_again_by_the_next_fourth(sidecar):
    gm = await sidecar.client("gm")
    await gm_op(gm, t.SceneActivate(scene="Pass"))
    for _ in range(4):
        await gm_op(gm, t.ConditionAdd(actor="Cy"))
    cy = (await state(gm)).actors["Cy"]
    assert cy.taken_down
    await gm_op(gm, t.ConditionRemove(actor="Cy", condition=cy.conditions[0].id))
    assert not (await state(gm)).actors["Cy"].taken_down
    await roll(gm, ChallengeCheck(cl=2, dice=[1]), actor="Cy")
    s = await state(gm)
    assert s.actors["Cy"].taken_down
    assert sorted(c.origin for c in s.scenes["Pass"].complications) == ["epic_failure", "taken_down", "taken_down"]
    await gm.close()


async def test_addressing_a_complication_removes_it_on_any_success(sidecar):
    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    ids = []
    for text in ("Locked gate", "Rising water"):
        done = await gm_op(gm, challenge_t.ComplicationAdd(scene="Dock", text=text, hidden=False))
        ids.append(done.events[0].event.complication)
        await gm_op(gm, challenge_t.ComplicationConvert(complication=ids[-1], cl=2))
    # Meeting the CL (total 7 = level 2) is a success at a cost: a success, so the gate is gone.
    r = await roll(p, ChallengeCheck(cl=2, complication=ids[0], dice=[7]), actor="Ayla")
    assert r.result.outcome == "success_at_cost"
    # A miss by 1 (total 3 = level 1) leaves the water rising.
    r = await roll(p, ChallengeCheck(cl=2, complication=ids[1], dice=[3]), actor="Ayla")
    assert r.result.outcome == "failure"
    assert [c.text for c in (await state(gm)).scenes["Dock"].complications] == ["Rising water"]
    await gm.close()
    await p.close()


# --- facets: no automatic take-out -------------------------------------------------------------------


async def test_facets_wounds_and_conditions_are_counted_but_take_no_one_out(sidecar):
    gm = await sidecar.client("gm")
    for _ in range(4):  # catastrophe in opposition: wound + condition on the character
        await roll(gm, FacetsCheck(pool=2, kind="opposition", dice=[1, 1]), actor="Dag", target="Troll")
    await roll(gm, FacetsCheck(pool=1, kind="interpersonal", dice=[2]), actor="Dag", target="Troll")  # failure: a wound
    await roll(gm, FacetsCheck(pool=1, kind="obstacle", dice=[1]), actor="Dag")  # no harm outside conflict
    s = await state(gm)
    dag = s.actors["Dag"]
    assert (dag.wounds, len(dag.conditions), dag.scratches, dag.taken_down) == (5, 4, 0, False)
    assert "Troll" not in s.actors or (s.actors["Troll"].wounds, s.actors["Troll"].scratches) == (0, 0)
    await gm.close()


# --- feats: Wyrd Points ---------------------------------------------------------------------------------


async def test_wyrd_points_pay_for_eights_and_for_a_feat_above_eight(sidecar):
    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    await gm_op(gm, feats_t.WyrdGrant(actor="Eir", amount=19))
    # Above +8 only by spending 20 WP: 19 is not enough, and nothing is spent.
    assert await refused(roll(p, FeatsCheck(level=9, wyrd_feat=True, dice=[]), actor="Eir")) == "insufficient_wyrd"
    assert (await state(gm)).actors["Eir"].wyrd == 19
    r = await roll(p, FeatsCheck(level=8, wyrd=3, dice=[]), actor="Eir")  # three 8s: 15 WP
    assert (r.result.success, r.result.cost, r.result.dice) == (True, 15, [8, 8, 8])
    assert (await state(gm)).actors["Eir"].wyrd == 4
    await gm_op(gm, feats_t.WyrdGrant(actor="Eir", amount=16))
    r = await roll(p, FeatsCheck(ability=2, difficulty=11, wyrd_feat=True, dice=[]), actor="Eir")
    assert (r.result.success, r.result.cost, r.result.automatic) == (True, 20, True)
    assert (await state(gm)).actors["Eir"].wyrd == 0
    await gm.close()
    await p.close()


# --- boons: extended checks -------------------------------------------------------------------------


async def test_extended_check_adds_only_positive_rolls_and_fails_when_attempts_run_out(sidecar):
    gm = await sidecar.client("gm")
    done = await gm_op(gm, t.ExtendedStart(name="Decipher", threshold=4, time_unit="hour", limit=3, trial=1))
    xid = done.events[0].event.extended
    # ability face 4 = SS, trial face 1 = blank: +2.
    r = await roll(gm, BoonsCheck(ability=1, dice=[4, 1]), extended=xid)
    assert (r.result.extended.added, r.result.extended.progress, r.result.extended.status) == (2, 2, "in_progress")
    # blank against FF (trial face 3): net -2 adds nothing, but the attempt counts.
    r = await roll(gm, BoonsCheck(ability=1, dice=[1, 3]), extended=xid)
    assert (r.result.extended.added, r.result.extended.progress, r.result.extended.attempts) == (0, 2, 2)
    # S against blank: +1, 3 of 4 on the last of 3 attempts: failed.
    r = await roll(gm, BoonsCheck(ability=1, dice=[2, 1]), extended=xid)
    assert (r.result.extended.progress, r.result.extended.status) == (3, "failed")
    x = (await state(gm)).extended[xid]
    assert (x.progress, x.attempts, x.status) == (3, 3, "failed")
    assert await refused(roll(gm, BoonsCheck(ability=1), extended=xid)) == "extended_failed"
    await gm.close()


# --- flairs: lurking trials ---------------------------------------------------------------------------


async def test_lurking_trials_apply_on_a_success_and_the_judge_reveals_them_when_no_flair_was_earned(sidecar):
    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    await gm_op(gm, flairs_t.LurkingSet(trials=["loud", "costly"], actor="Ayla"))
    r = await roll(p, FlairsCheck(rank=2, dice=[6, 2]), actor="Ayla")  # a triumph without pairs
    assert (r.result.outcome, r.result.flairs, r.result.trials, r.result.lurking) == ("triumph", 0, 2, 2)
    assert r.result.lurking_trials is None and all(s.name is None for s in r.result.standing)
    assert (await refused(follow(p, r.check, FlairsReveal()))) == "forbidden"  # the Judge's to reveal
    f = await follow(gm, r.check, FlairsReveal())
    assert f.result.revealed and f.result.trials == 2
    seen = await p.request(m.Verify(id=p.new_id(), check=r.check))
    assert seen.result.lurking_trials == ["loud", "costly"] and seen.result.trials == 2
    # They were used by that check: the next one has none.
    r2 = await roll(p, FlairsCheck(rank=2, dice=[6, 2]), actor="Ayla")
    assert (r2.result.lurking, r2.result.trials) == (0, 0)
    await gm.close()
    await p.close()


async def test_a_chosen_flair_banishes_only_its_opposite_lurking_trial_then_the_rest_is_revealed(sidecar):
    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    await gm_op(gm, flairs_t.LurkingSet(trials=["loud", "slow"], actor="Ayla"))
    # A simple check takes no lurking trials: they wait for the next full check.
    s = await roll(p, FlairsCheck(rank=2, simple=True, dice=[4, 1]), actor="Ayla")
    assert s.result.lurking == 0 and s.result.trials == 0
    r = await roll(p, FlairsCheck(rank=3, dice=[5, 5, 1]), actor="Ayla")  # conflict, one flair
    assert (r.result.flairs, r.result.trials, r.result.lurking, r.result.lurking_trials) == (1, 2, 2, None)
    f = await follow(p, r.check, FlairsChoose(flairs=["quiet"]))
    assert f.result.revealed and f.result.banished == ["loud"]
    assert [(x.source, x.name) for x in f.result.standing] == [("lurking", "slow")]
    assert f.result.trials == 1
    await gm.close()
    await p.close()
