"""The projection's fold (sidecar/state/projection.py): the table's own events folded by the table, every other
event by the rule set whose part owns its class, a rebuild after an undo equal to a fold of the events that still
count, and a snapshot as flat as the wire wants it."""

from __future__ import annotations

import msgspec

from protocol.v1 import challenge as challenge_t
from protocol.v1 import feats as feats_t
from protocol.v1 import table as t
from sidecar.engine import registry
from sidecar.state.projection import Projection


def _events() -> list[tuple[int, object]]:
    return [
        (1, t.SceneActivated(scene="Docks")),
        (2, t.ConditionAdded(actor="Ayla", condition="c1", text="bruised")),
        (3, challenge_t.StrainChanged(actor="Ayla", delta=2)),
        (4, feats_t.WyrdChanged(actor="Ayla", delta=3)),
        (
            5,
            t.ExtendedStarted(extended="x1", name="Climb", threshold=5, time_unit="round", limit=None, scene="Docks"),
        ),
        (6, t.ConditionAdded(actor="Bree", condition="c2")),
    ]


def test_the_table_folds_its_own_events():
    p = Projection.build(_events())
    assert p.scene == "Docks" and "Docks" in p.scenes
    assert [c.id for c in p.actor_state("Ayla").conditions] == ["c1"]
    assert p.extended["x1"].threshold == 5 and p.extended["x1"].status == "in_progress"
    p.apply(7, t.ExtendedProgressed(extended="x1", added=5, progress=5, attempts=1, status="success"))
    assert p.extended["x1"].progress == 5 and p.extended["x1"].status == "success"
    p.apply(8, t.ConditionRemoved(actor="Ayla", condition="c1"))
    assert p.actor_state("Ayla").conditions == [] and p.seq == 8


def test_a_rule_sets_event_goes_to_the_part_that_owns_its_class():
    assert registry.part_of_event(challenge_t.StrainChanged(actor="A", delta=1))[0] == "challenge"
    assert registry.part_of_event(feats_t.WyrdChanged(actor="A", delta=1))[0] == "feats"
    assert registry.part_of_event(t.ConditionAdded(actor="A", condition="c")) is None  # the table's own
    p = Projection.build(_events())
    a = p.actor_state("Ayla")
    assert a.strain == 2 and a.wyrd == 3
    p.apply(7, challenge_t.StrainChanged(actor="Ayla", set=1))
    assert p.actor_state("Ayla").strain == 1
    p.apply(
        8,
        challenge_t.ComplicationAdded(complication="k1", scene="Docks", text="fog", origin="gm", hidden=False),
    )
    assert [c.id for c in p.snapshot().scenes["Docks"].complications] == ["k1"]


def test_a_rebuild_after_undo_equals_a_fold_of_what_still_counts():
    events = _events()
    p = Projection.build(events)
    p.apply(7, t.Undone(seqs=[3, 6]))
    kept = [(s, e) for s, e in events if s not in (3, 6)]
    fresh = Projection.build(kept)
    assert p.undone == {3, 6}
    assert msgspec.structs.replace(p.snapshot(), seq=0) == msgspec.structs.replace(fresh.snapshot(), seq=0)
    assert p.actor_state("Ayla").strain == 0 and "Bree" not in p.actors and p.seq == 7


def test_a_rebuild_reads_back_from_its_source():
    events = _events()
    p = Projection.build(events, source=lambda upto: [(s, e) for s, e in events if s <= upto])
    p.apply(7, t.Undone(seqs=[4]))
    assert p.actor_state("Ayla").wyrd == 0 and p.actor_state("Ayla").strain == 2


def test_an_event_no_part_folds_changes_nothing():
    class Stray(msgspec.Struct):
        actor: str = "Ayla"

    p = Projection.build(_events())
    before = msgspec.json.encode(p.snapshot())
    p.apply(7, Stray())
    assert registry.part_of_event(Stray()) is None
    assert p.seq == 7
    assert msgspec.json.encode(msgspec.structs.replace(p.snapshot(), seq=6)) == before


def test_the_snapshot_is_flat_each_rule_sets_fields_beside_the_tables():
    snap = msgspec.json.decode(msgspec.json.encode(Projection.build(_events()).snapshot()))
    ayla = snap["actors"]["Ayla"]
    assert ayla["conditions"] == [{"id": "c1", "text": "bruised"}]
    assert ayla["strain"] == 2 and ayla["wyrd"] == 3
    assert not any(isinstance(v, dict) for v in ayla.values())  # no rule set nests its fields
    assert snap["scene"] == "Docks" and "Docks" in snap["scenes"]


def test_a_stored_state_unfolds_to_the_same_snapshot():
    events = _events()
    p = Projection.build(events)
    raw = msgspec.msgpack.encode(p.folded())
    q = Projection.unfolded(msgspec.msgpack.decode(raw, type=type(p.folded())), lambda upto: events)
    assert q.snapshot() == p.snapshot()
