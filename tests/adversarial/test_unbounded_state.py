"""A player grows the table without bound: fresh long actors and targets on every roll, a facet from every
triumph, all of it in the state every welcome carries (so every joiner's welcome would grow with it).

Over a real socket, as such a player sends them: names beyond their bound are refused (``text_too_long``); past
the table's bound of actors, a roll naming one more is refused (``too_many_actors``), nothing recorded; a scene
at its bound of facets or complications refuses a roll that may add one, whatever its dice (a refusal that tells
nothing of a hidden roll); and the welcome a joiner gets stays within its stated bound.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from protocol.v1 import challenge as challenge_t
from protocol.v1 import facets as facets_t
from protocol.v1 import feats as feats_t
from protocol.v1 import flairs as flairs_t
from protocol.v1 import limits
from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.challenge import ChallengeCheck
from protocol.v1.facets import FacetsCheck
from sidecar.engine import registry
from sidecar.state import gm_ops
from sidecar.state.errors import ActionError
from sidecar.state.projection import Folded, Projection

from ..conftest import Sidecar
from ..wire import gm_op, refused, roll
from .conftest import Raw


async def _rolls(raw: Raw, frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Send every frame at once, then the reply to each, in order."""
    for f in frames:
        await raw.ws.send(json.dumps(f))
    ids = {f["id"] for f in frames}
    await raw.wait(lambda f: f.get("id") == frames[-1]["id"], timeout=120)
    by_id = {f["id"]: f for f in raw.decoded() if f.get("id") in ids and f.get("type") in ("rolled", "error")}
    return [by_id[f["id"]] for f in frames]


def _conflict(n: int, size: int) -> dict[str, Any]:
    """A `facets` conflict of two 6s (a triumph: a wound and a condition on the target, a facet on the roller)
    naming a fresh actor and a fresh target of ``size`` characters."""
    return {
        "type": "roll",
        "id": f"r{n}",
        "check": {"system": "facets", "pool": 2, "kind": "opposition", "dice": [6, 6]},
        "actor": f"a{n:05d}".ljust(size, "a"),
        "target": f"t{n:05d}".ljust(size, "t"),
    }


async def _welcome_bytes(sidecar: Sidecar, user: str) -> tuple[int, dict[str, Any]]:
    joiner = await Raw.join(sidecar, sidecar.user_key(user), user)
    frame = joiner.frames[0]
    await joiner.close()
    return len(frame), json.loads(frame)


async def test_fresh_long_actors_on_every_roll_stop_at_the_tables_bound(sidecar: Sidecar) -> None:
    mallory = await Raw.join(sidecar, sidecar.user_key("mallory"), "mallory")
    # names of 1,024 characters (the issue's) are beyond a name's bound: refused, nothing recorded
    long = await _rolls(mallory, [_conflict(n, 1024) for n in range(50)])
    assert {(r["type"], r["code"]) for r in long} == {("error", "text_too_long")}
    assert "`actor`" in long[0]["message"] and str(limits.NAME_CHARS) in long[0]["message"]
    # names at their bound, two fresh actors a roll: one player brings at most their share
    replies = await _rolls(mallory, [_conflict(n, limits.NAME_CHARS) for n in range(2000)])
    share = limits.ACTORS_PER_USER // 2
    assert [r["type"] for r in replies[:share]] == ["rolled"] * share
    assert {r.get("code") for r in replies[share:]} == {"too_many_actors"}
    assert "your rolls" in replies[-1]["message"]
    # the others still find room, until the table tracks the most it may
    n, players = 2000, 0
    while True:
        players += 1
        other = await Raw.join(sidecar, sidecar.user_key(f"p{players}"), f"p{players}")
        got = await _rolls(other, [_conflict(n + i, limits.NAME_CHARS) for i in range(share)])
        await other.close()
        n += share
        if got[-1]["type"] == "error":
            assert got[-1]["code"] == "too_many_actors" and "this table tracks" in got[-1]["message"], got[-1]
            break
    assert players == -(-(limits.ACTORS - limits.ACTORS_PER_USER) // limits.ACTORS_PER_USER)
    size, welcome = await _welcome_bytes(sidecar, "newcomer")
    assert len(welcome["snapshot"]["actors"]) == limits.ACTORS
    assert size <= limits.SNAPSHOT_BYTES
    assert size < 256 * 1024, size  # plain names at their longest: a small part of the bound
    # an actor the table tracks still rolls
    again = await _rolls(mallory, [{**_conflict(0, limits.NAME_CHARS), "id": "again"}])
    assert again[0]["type"] == "rolled", again
    await mallory.close()


async def test_a_scene_at_its_bound_of_facets_refuses_a_roll_that_may_add_one(sidecar: Sidecar) -> None:
    gm = await sidecar.client("gm", user="gm-1")
    await gm_op(gm, t.SceneActivate(scene="Hall"))
    anna = await sidecar.client("player", user="anna")
    for _ in range(limits.FACETS_PER_HOLDER):
        r = await roll(anna, FacetsCheck(pool=2, dice=[6, 6]), actor="Ayla")  # a triumph: a facet of the scene
        assert r.result.outcome == "triumph"
    snap = (await gm.request(m.State(id="s1"))).snapshot
    facets = snap.scenes["Hall"].facets
    assert len(facets) == limits.FACETS_PER_HOLDER
    # one more triumph would be one facet too many: the roll is refused, not its facet dropped
    assert await refused(roll(anna, FacetsCheck(pool=2, dice=[6, 6]), actor="Ayla")) == "too_many_facets"
    # a roll the sidecar rolls may triumph: refused whatever its dice, in every mode (a blind one's refusal
    # tells nothing of its hidden result)
    for mode in ("public", "gm", "blind"):
        assert await refused(roll(anna, FacetsCheck(pool=2), actor="Ayla", mode=mode)) == "too_many_facets"
    # given faces that create no facet add none: rolled
    assert (await roll(anna, FacetsCheck(pool=2, dice=[3, 2]), actor="Ayla")).result.outcome == "failure"
    # a private test adds nothing to the table: rolled
    assert (await roll(anna, FacetsCheck(pool=2), actor="Ayla", mode="self")).result is not None
    # the GM removes one: room again
    await gm_op(gm, facets_t.FacetRemove(facet=facets[0].id))
    assert (await roll(anna, FacetsCheck(pool=2), actor="Ayla")).result is not None
    await anna.close()
    await gm.close()


async def test_a_scene_at_its_bound_of_complications_refuses_a_challenge_roll(sidecar: Sidecar) -> None:
    gm = await sidecar.client("gm", user="gm-1")
    await gm_op(gm, t.SceneActivate(scene="Hall"))
    anna = await sidecar.client("player", user="anna")
    for _ in range(limits.COMPLICATIONS_PER_SCENE):
        r = await roll(anna, ChallengeCheck(cl=2, dice=[1]))  # a natural 1: the GM adds a complication
        assert r.result.outcome == "epic_failure"
    snap = (await gm.request(m.State(id="s1"))).snapshot
    assert len(snap.scenes["Hall"].complications) == limits.COMPLICATIONS_PER_SCENE
    assert await refused(roll(anna, ChallengeCheck(cl=2, dice=[1]))) == "too_many_complications"
    assert await refused(roll(anna, ChallengeCheck(cl=2), mode="blind")) == "too_many_complications"
    assert (await roll(anna, ChallengeCheck(cl=2, dice=[12]))).result.outcome == "success"  # adds none
    await gm_op(gm, challenge_t.ComplicationRemove(complication=snap.scenes["Hall"].complications[0].id))
    assert (await roll(anna, ChallengeCheck(cl=2))).result is not None
    await anna.close()
    await gm.close()


async def test_a_heros_conditions_are_bounded(sidecar: Sidecar) -> None:
    anna = await sidecar.client("player", user="anna")
    for _ in range(limits.CONDITIONS_PER_ACTOR):
        assert (await roll(anna, ChallengeCheck(cl=2, dice=[1]), actor="Ayla")).result.condition
    assert await refused(roll(anna, ChallengeCheck(cl=2, dice=[1]), actor="Ayla")) == "too_many_conditions"
    assert await refused(roll(anna, ChallengeCheck(cl=2), actor="Ayla")) == "too_many_conditions"
    await anna.close()


def _full_snapshot() -> t.Snapshot:
    """A snapshot at every bound, every text at its longest and every character one JSON escapes."""
    name, note = "\x01" * limits.NAME_CHARS, "\x01" * limits.NOTE_CHARS
    per_actor = limits.CONDITIONS // limits.ACTORS + 1
    facets = iter(range(limits.FACETS))
    actors = {
        f"{n:04d}".ljust(limits.NAME_CHARS, "\x01"): t.ActorState(
            strain=limits.STRAIN,
            conditions=[t.Condition(id=f"c{n}{i:08x}", text=note) for i in range(per_actor)][
                : limits.CONDITIONS_PER_ACTOR
            ],
            taken_down=True,
            wounds=limits.HARM,
            scratches=limits.HARM,
            facets=[facets_t.Facet(facet=note, nature="detrimental", id=f"f{next(facets):08x}")] if n % 2 else [],
            wyrd=-limits.WYRD,
            game_changers=limits.GAME_CHANGERS,
        )
        for n in range(limits.ACTORS)
    }
    rest = list(facets)
    scenes = {
        f"{n:03d}".ljust(limits.NAME_CHARS, "\x01"): t.SceneState(
            complications=[
                challenge_t.Complication(
                    id=f"k{n}{i:07x}", scene=name, text=note, origin="epic_failure", hidden=False, cl=-1000
                )
                for i in range(limits.COMPLICATIONS // limits.SCENES)
            ],
            facets=[facets_t.Facet(facet=note, nature="detrimental", id=f"f{i:08x}") for i in rest[n :: limits.SCENES]],
            lurking=[
                flairs_t.Lurking(id=f"l{n}{i:07x}", count=12, trials=["chaotic"] * 12, actor=name, scene=name)
                for i in range(limits.LURKING // limits.SCENES)
            ],
        )
        for n in range(limits.SCENES)
    }
    extended = {
        f"x{n:08x}": t.ExtendedState(
            id=f"x{n:08x}",
            name=name,
            threshold=-1000,
            time_unit=name,
            limit=-1000,
            progress=-10000,
            attempts=-10000,
            status="in_progress",
            trial=-1000,
            crisis=-1000,
            actor=name,
            scene=name,
        )
        for n in range(limits.EXTENDED + limits.ENDED_KEPT)
    }
    from protocol.v1.flairs import FlairsCheck, FlairsParticipant
    from sidecar.engine import Dice, gather

    group = [FlairsParticipant(name=f"{i:02d}".ljust(limits.NAME_CHARS, "\x01"), rank=30) for i in range(12)]
    check = FlairsCheck(group=group)
    rules = registry.ruleset_of(check)
    rolled = {name: rules.roll(part, Dice()) for name, part in gather.parts(check)}
    whole = rules.read(check, gather.whole_faces(check, rolled))
    gathers = {
        f"g{n:08x}": t.GatherState(
            id=f"g{n:08x}",
            name=name,
            check=check,
            parts=list(rolled),
            rolled=rolled,
            scene=name,
            result=whole if n >= limits.GATHERS else None,
        )
        for n in range(limits.GATHERS + limits.ENDED_KEPT)
    }
    return t.Snapshot(seq=2**63 - 1, scene=name, actors=actors, scenes=scenes, extended=extended, gathers=gathers)


def test_a_full_tables_snapshot_is_within_its_stated_bound() -> None:
    snap = _full_snapshot()
    welcome = msgspec.json.encode(
        m.Welcome(protocol=1, server="verdict", role="gm", table="t" * 128, seq=1, snapshot=snap)
    )
    assert len(welcome) <= limits.SNAPSHOT_BYTES, (len(welcome), limits.SNAPSHOT_BYTES)
    assert len(msgspec.msgpack.encode(snap)) <= limits.SNAPSHOT_BYTES


def _prepare(op: object, p: Projection) -> list[gm_ops.Told]:
    """The GM operation's events on the table ``p`` (its bounds checked first), as the table prepares them."""
    seen = gm_ops.Seen({}, lambda key: [], lambda user: p)
    return gm_ops.prepare(op, p, seen, lambda: iter(()), set())


def _table(**held: int) -> Projection:
    p = Projection()
    p.actors = {f"A{n}": t.ActorState(conditions=[], facets=[]) for n in range(held.get("actors", 0))}
    p.extended = {
        f"x{n}": t.ExtendedState(id=f"x{n}", name="", threshold=1, time_unit="h", limit=None)
        for n in range(held.get("extended", 0))
    }
    return p


@pytest.mark.parametrize(
    ("op", "held", "code"),
    [
        (challenge_t.StrainSet(actor="new", strain=1), {"actors": limits.ACTORS}, "too_many_actors"),
        (feats_t.WyrdGrant(actor="new", amount=1), {"actors": limits.ACTORS}, "too_many_actors"),
        (t.ConditionAdd(actor="new"), {"actors": limits.ACTORS}, "too_many_actors"),
        (
            facets_t.FacetAdd(facet="Slick", nature="detrimental", actor="new"),
            {"actors": limits.ACTORS},
            "too_many_actors",
        ),
        (t.ExtendedStart(name="Climb", threshold=5), {"extended": limits.EXTENDED}, "too_many_open"),
    ],
)
def test_the_gms_operations_have_the_same_bounds(op: object, held: dict[str, int], code: str) -> None:
    full = _table(**held)
    with pytest.raises(ActionError) as e:
        _prepare(op, full)
    assert e.value.code == code
    assert _prepare(op, _table())  # room on an empty table


def test_a_wyrd_grant_past_the_bound_is_refused() -> None:
    p = _table(actors=1)
    p.actors["A0"].wyrd = limits.WYRD - 1
    assert _prepare(feats_t.WyrdGrant(actor="A0", amount=1), p)
    with pytest.raises(ActionError) as e:
        _prepare(feats_t.WyrdGrant(actor="A0", amount=2), p)
    assert e.value.code == "over_limit" and str(limits.WYRD) in e.value.message
    with pytest.raises(ActionError) as e:  # spending more than held is the grant's own refusal, not a bound's
        _prepare(feats_t.WyrdGrant(actor="A0", amount=-limits.WYRD), p)
    assert e.value.code == "insufficient_wyrd"


def test_a_campaigns_ended_extended_and_gathered_checks_do_not_grow_its_state() -> None:
    events: list[object] = []
    for n in range(limits.ENDED_KEPT + 5):
        events.append(t.ExtendedStarted(extended=f"x{n}", name="Climb", threshold=1, time_unit="h", limit=None))
        events.append(t.ExtendedProgressed(extended=f"x{n}", added=1, progress=1, attempts=1, status="complete"))
    events.append(t.ExtendedStarted(extended="going", name="Row", threshold=9, time_unit="h", limit=None))
    p = Projection.build(enumerate(events, 1))
    assert list(p.extended) == [f"x{n}" for n in range(5, limits.ENDED_KEPT + 5)] + ["going"]
    full = Projection()
    full.extended = {
        f"x{n}": t.ExtendedState(id=f"x{n}", name="", threshold=1, time_unit="h", limit=None)
        for n in range(limits.EXTENDED)
    }
    with pytest.raises(ActionError) as e:
        _prepare(t.ExtendedStart(name="One more", threshold=5), full)
    assert e.value.code == "too_many_open"
    assert _prepare(t.ExtendedStart(name="One more", threshold=5), p)  # ended ones leave room


def test_whose_roll_brought_an_actor_is_folded_from_the_events_alone() -> None:
    check = FacetsCheck(pool=2, dice=[3, 2])
    result = registry.ruleset_of(check).read(check, [3, 2])
    events: list[object] = [
        t.RollEvent(check_id="c1", check=check, result=result, by="player", user="anna", actor="Ayla"),
        facets_t.HarmTaken(actor="Ayla", harm="wound", cause=1),
        t.RollEvent(check_id="c2", check=check, result=result, by="gm", user="gm-1", actor="Bo"),
        facets_t.HarmTaken(actor="Bo", harm="wound", cause=3),
        challenge_t.StrainChanged(actor="Cy", set=1, cause=5),  # a GM operation's
    ]
    p = Projection.build(enumerate(events, 1))
    assert p.brought == {"Ayla": "anna"} and p.brought_by("anna") == 1 and p.brought_by("gm-1") == 0
    stored = msgspec.msgpack.decode(msgspec.msgpack.encode(p.folded()), type=Folded)
    assert stored.brought == {"Ayla": "anna"}
    p.apply(6, t.Undone(seqs=[1, 2]))
    assert p.brought == {} and "Ayla" not in p.actors
