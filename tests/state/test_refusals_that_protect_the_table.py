"""Checks a player could use to slip past the table's rules, refused whole over a real socket: naming no
lurking trials to dodge the Judge's, a lurking set beyond the limit that would block every later check,
and Wyrd Points spent by a roll that names no one (docs/rules/flairs.md, docs/rules/feats.md)."""

from __future__ import annotations

import pytest

from protocol.v1 import feats as feats_t
from protocol.v1 import flairs as flairs_t
from protocol.v1 import table as t
from protocol.v1.feats import FeatsCheck
from protocol.v1.flairs import FlairsCheck
from tests.wire import gm_op, refused, roll, state


async def test_a_player_cannot_name_no_lurking_trials_to_dodge_the_judges(sidecar):
    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    await gm_op(gm, flairs_t.LurkingSet(trials=["loud", "harmful"], actor="hero"))
    dodge = FlairsCheck(rank=2, dice=[6, 3], lurking_trials=[])
    assert await refused(roll(p, dodge, actor="hero")) == "forbidden"
    # Nothing of it applied: the trials still wait, and the next full check takes them.
    r = await roll(p, FlairsCheck(rank=2, dice=[6, 3]), actor="hero")
    assert (r.result.lurking, r.result.trials) == (2, 2)
    # The GM may still roll with no lurking trials named: their waiting ones are then taken as usual.
    await gm_op(gm, flairs_t.LurkingSet(trials=["slow"], actor="hero"))
    g = await roll(gm, FlairsCheck(rank=2, dice=[6, 3], lurking_trials=[]), actor="hero")
    assert (g.result.lurking, g.result.trials) == (1, 1)
    await gm.close()
    await p.close()


async def test_more_lurking_trials_than_the_limit_are_refused_when_set(sidecar):
    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    too_many = flairs_t.LurkingSet(trials=["loud"] * 13, actor="hero")
    assert await refused(gm_op(gm, too_many)) == "too_many_lurking"
    # Nothing stored: the hero's next full check is not blocked and takes no trial.
    r = await roll(p, FlairsCheck(rank=2, dice=[6, 3]), actor="hero")
    assert (r.result.lurking, r.result.trials) == (0, 0)
    twelve = flairs_t.LurkingSet(trials=["loud"] * 12, actor="hero")
    await gm_op(gm, twelve)
    r = await roll(p, FlairsCheck(rank=2, dice=[6, 3]), actor="hero")
    assert r.result.lurking == 12
    await gm.close()
    await p.close()


@pytest.mark.parametrize("check", [FeatsCheck(level=8, wyrd=3), FeatsCheck(level=12, wyrd_feat=True)])
async def test_a_player_spending_wyrd_points_names_whose_they_are(sidecar, check):
    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    assert await refused(roll(p, check)) == "actor_required"
    await gm_op(gm, feats_t.WyrdGrant(actor="hero", amount=20))
    r = await roll(p, check, actor="hero")
    snap = await state(gm)
    assert snap.actors["hero"].wyrd == 20 - r.result.cost
    # The GM rolls for a character the table does not track: nothing to charge.
    g = await roll(gm, check)
    assert g.result.cost == r.result.cost
    await gm.close()
    await p.close()


@pytest.mark.parametrize(
    ("trial", "crisis", "code"), [(-2, 0, "negative_dice"), (11, 0, "too_many_dice"), (0, 11, "too_many_dice")]
)
async def test_an_extended_check_that_could_never_be_rolled_is_refused_when_started(sidecar, trial, crisis, code):
    gm = await sidecar.client("gm")
    start = t.ExtendedStart(name="Pick the lock", threshold=5, time_unit="minute", trial=trial, crisis=crisis)
    assert await refused(gm_op(gm, start)) == code
    assert not (await state(gm)).extended  # nothing started, nothing left to block later rolls
    ok = t.ExtendedStart(name="Pick the lock", threshold=5, time_unit="minute", trial=10, crisis=0)
    await gm_op(gm, ok)
    assert len((await state(gm)).extended) == 1
    await gm.close()
