"""A snapshot and the events after it give the table a full fold gives: the GM's state, every kind of
viewer's state and numbering, over random sessions of every rule set, with undos on both sides of the
snapshot (an undo after it rebuilds from events before it)."""

from __future__ import annotations

import msgspec
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from protocol.v1 import challenge as challenge_t
from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.boons import BoonsCheck
from protocol.v1.facets import FacetsCheck
from sidecar import config
from sidecar.state.ledger import SqliteLedger
from sidecar.state.table import Table
from sidecar.state.visibility import Viewer

from .test_replay_property import ACTORS, GM, LOOKERS, OTHER, PLAYER, _apply, actions

boons = st.builds(
    lambda ability, trial: BoonsCheck(ability=len(ability), trial=len(trial), dice=ability + trial),
    st.lists(st.integers(1, 6), min_size=1, max_size=3),
    st.lists(st.integers(1, 8), min_size=0, max_size=2),
)
every_action = st.one_of(
    actions,
    st.tuples(
        st.just("roll"),
        boons,
        st.sampled_from(ACTORS + [None]),
        st.sampled_from(["public", "gm", "blind", "self"]),
        st.sampled_from([PLAYER, OTHER, GM]),
    ),
)
VIEWERS = [GM, Viewer("gm", "gm-2"), *LOOKERS]


def _seen(table: Table) -> list[bytes]:
    """Everything a viewer is told of the table: its state, its numbering and its events from the start."""
    out = [msgspec.json.encode(sorted(table.roll_seq.items())), msgspec.json.encode(sorted(table.restricted.items()))]
    checks = [st.event.check_id for _, st in table.stored(0) if isinstance(st.event, t.RollEvent)]
    for viewer in VIEWERS:
        out.append(msgspec.json.encode(table.snapshot(viewer)))
        out.append(msgspec.json.encode(table.visible(0, viewer)))
        # every check, held or read back: what verify tells of it
        out += [msgspec.json.encode(table.verify(m.Verify(id="v", check=c), viewer)) for c in checks]
    return out


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(every_action, max_size=20), st.lists(every_action, max_size=12), st.booleans())
@example(
    [("roll", FacetsCheck(pool=1, dice=[6]), None, "self", PLAYER), ("op", t.ConditionAdd(actor="Ayla"))],
    [("op", t.Undo(count=2))],
    True,
)
@example(
    [("op", challenge_t.ComplicationAdd(scene="S", text="secret-a", hidden=True)), ("reveal",)],
    [("roll", FacetsCheck(pool=1, dice=[2]), "Bram", "gm", OTHER), ("op", t.Undo(count=3, events=True))],
    False,
)
def test_a_snapshot_and_its_tail_equal_a_full_fold(tmp_path_factory, before, after, views_held):
    ledger = SqliteLedger(tmp_path_factory.mktemp("snap") / "v.sqlite3")
    keys = ledger.create_table("t")
    live = Table(keys.table, ledger)
    live.load()
    if views_held:
        for viewer in (PLAYER, OTHER):
            live.snapshot(viewer)  # held when the snapshot is written: it carries them
    for action in before:
        _apply(live, action)
    data, at = live.saved(), live.head

    # a table loaded from the snapshot alone goes on from it: its undos reach behind it
    resumed = Table(keys.table, ledger)
    resumed.restore(data, [])
    for action in after:
        _apply(resumed, action)

    tail = Table(keys.table, ledger)  # the snapshot and the events after it
    tail.restore(data, ledger.events(keys.table, at), ledger.events(keys.table, 0, at))
    full = Table(keys.table, ledger)  # every event folded
    full.load()
    assert tail.head == full.head == resumed.head
    assert _seen(tail) == _seen(full) == _seen(resumed)
    ledger.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(every_action, max_size=20), st.lists(every_action, max_size=12), st.booleans())
def test_a_snapshot_and_its_tail_hold_the_checks_a_full_fold_holds(
    tmp_path_factory, monkeypatch, before, after, views_held
):
    """The same with a table that holds few checks: which ones leave it (closed, or beyond the window) is
    a function of the events, on both sides of the snapshot and across undos; an old one answers alike."""
    monkeypatch.setattr(config, "CHECKS_HELD", 2)
    monkeypatch.setattr(config, "CHECKS_LATEST", 1)
    test_a_snapshot_and_its_tail_equal_a_full_fold.hypothesis.inner_test(  # type: ignore[attr-defined]
        tmp_path_factory, before, after, views_held
    )
