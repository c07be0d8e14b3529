"""Checks a player could use to slip past the table's rules, refused whole over a real socket: naming no
lurking trials to dodge the Judge's, a lurking set beyond the limit that would block every later check,
and Wyrd Points spent by a roll that names no one (docs/rules/flairs.md, docs/rules/feats.md)."""

from __future__ import annotations

import pytest

from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.feats import FeatsCheck
from protocol.v1.flairs import FlairsCheck
from sidecar.client import RequestFailed


async def _code(coro) -> str:
    with pytest.raises(RequestFailed) as e:
        await coro
    return e.value.code


async def test_a_player_cannot_name_no_lurking_trials_to_dodge_the_judges(sidecar):
    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    await gm.request(m.Gm(id=gm.new_id(), op=t.LurkingSet(trials=["loud", "harmful"], actor="hero")))
    dodge = m.Roll(id=p.new_id(), check=FlairsCheck(rank=2, dice=[6, 3], lurking_trials=[]), actor="hero")
    assert await _code(p.request(dodge)) == "forbidden"
    # Nothing of it applied: the trials still wait, and the next full check takes them.
    r = await p.request(m.Roll(id=p.new_id(), check=FlairsCheck(rank=2, dice=[6, 3]), actor="hero"))
    assert (r.result.lurking, r.result.trials) == (2, 2)
    # The GM may still roll with no lurking trials named: their waiting ones are then taken as usual.
    await gm.request(m.Gm(id=gm.new_id(), op=t.LurkingSet(trials=["slow"], actor="hero")))
    g = await gm.request(
        m.Roll(id=gm.new_id(), check=FlairsCheck(rank=2, dice=[6, 3], lurking_trials=[]), actor="hero")
    )
    assert (g.result.lurking, g.result.trials) == (1, 1)
    await gm.close()
    await p.close()


async def test_more_lurking_trials_than_the_limit_are_refused_when_set(sidecar):
    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    too_many = t.LurkingSet(trials=["loud"] * 13, actor="hero")
    assert await _code(gm.request(m.Gm(id=gm.new_id(), op=too_many))) == "too_many_lurking"
    # Nothing stored: the hero's next full check is not blocked and takes no trial.
    r = await p.request(m.Roll(id=p.new_id(), check=FlairsCheck(rank=2, dice=[6, 3]), actor="hero"))
    assert (r.result.lurking, r.result.trials) == (0, 0)
    twelve = t.LurkingSet(trials=["loud"] * 12, actor="hero")
    await gm.request(m.Gm(id=gm.new_id(), op=twelve))
    r = await p.request(m.Roll(id=p.new_id(), check=FlairsCheck(rank=2, dice=[6, 3]), actor="hero"))
    assert r.result.lurking == 12
    await gm.close()
    await p.close()


@pytest.mark.parametrize("check", [FeatsCheck(level=8, wyrd=3), FeatsCheck(level=12, wyrd_feat=True)])
async def test_a_player_spending_wyrd_points_names_whose_they_are(sidecar, check):
    gm = await sidecar.client("gm")
    p = await sidecar.client("player", user="p1")
    assert await _code(p.request(m.Roll(id=p.new_id(), check=check))) == "actor_required"
    await gm.request(m.Gm(id=gm.new_id(), op=t.WyrdGrant(actor="hero", amount=20)))
    r = await p.request(m.Roll(id=p.new_id(), check=check, actor="hero"))
    snap = (await gm.request(m.State(id=gm.new_id()))).snapshot
    assert snap.actors["hero"].wyrd == 20 - r.result.cost
    # The GM rolls for a character the table does not track: nothing to charge.
    g = await gm.request(m.Roll(id=gm.new_id(), check=check))
    assert g.result.cost == r.result.cost
    await gm.close()
    await p.close()
