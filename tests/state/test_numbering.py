"""Each viewer's numbering (:class:`sidecar.state.hearing.Numbering`) against the plain definition: a viewer's
number of ledger seq ``s`` is how many events it is told of at or before ``s``, and a catch-up from its own
``since`` starts where its first missed event is."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from protocol.v1 import challenge as challenge_t
from protocol.v1 import facets as facets_t
from protocol.v1 import table as t
from sidecar.state.hearing import Numbering, seen
from sidecar.state.table import Stored
from sidecar.state.visibility import Viewer

VIEWERS = [
    Viewer("player", None),
    Viewer("observer", None),
    Viewer("player", "a"),
    Viewer("player", "b"),
    Viewer("gm", None),
    Viewer("gm", "a"),
]
one = st.one_of(
    st.tuples(
        st.just("event"), st.sampled_from(["all", "gm", "roller", "roller_gm"]), st.sampled_from([None, "a", "b"])
    ),
    st.tuples(st.just("undo"), st.lists(st.integers(min_value=1, max_value=60), min_size=1, max_size=3)),
)


@given(st.lists(one, min_size=1, max_size=60))
def test_numbers_and_catch_up_starts_match_the_definition(session):
    nums, restricted, rows = Numbering(), {}, []
    for seq, item in enumerate(session, start=1):
        if item[0] == "undo":
            stored = Stored(vis="all", owner=None, event=t.Undone(seqs=sorted({s for s in item[1] if s < seq})))
        else:
            stored = Stored(vis=item[1], owner=item[2], event=challenge_t.StrainChanged(actor="A", delta=1))
        if stored.vis != "all":
            restricted[seq] = (stored.vis, stored.owner)
        nums.add(seq, stored, restricted)
        rows.append((seq, stored))
    head = len(rows)
    for viewer in VIEWERS:
        stream = [s for s, stored in rows if seen(stored, restricted, viewer) is not None]
        for s in range(head + 1):
            assert nums.number(s, viewer) == sum(1 for x in stream if x <= s), (viewer, s)
        assert nums.count(viewer) == len(stream)
        for since in range(len(stream) + 1):
            start = nums.after(since, viewer)
            assert [x for x in stream if x > start] == stream[since:], (viewer, since)
            if since < len(stream):
                assert start == stream[since] - 1  # nothing read before the first missed event


def test_who_saw_a_hidden_condition_and_wound_is_kept_in_a_snapshot(tmp_path):
    """After a restart from a snapshot, the GM's removal of a blind roll's condition and heal of its wound are
    still the GM's alone, and a heal still takes the wound everyone saw first."""
    from protocol.v1 import messages as m
    from protocol.v1.facets import FacetsCheck
    from sidecar.state.ledger import SqliteLedger
    from sidecar.state.table import Table

    ledger = SqliteLedger(tmp_path / "t.sqlite3")
    table = Table(ledger.create_table("t").table, ledger)
    gm = Viewer("gm", "gm")

    def act(pending):
        ledger.append_sync(table.id, pending.encoded(), None)
        table.commit(pending)

    def roll(dice, mode):
        msg = m.Roll(id="r", check=FacetsCheck(pool=2, kind="opposition", dice=dice), actor="Ayla", mode=mode)
        act(table.prepare_roll(msg, gm, "alice"))

    roll([3, 2], "public")  # a wound everyone sees
    roll([1, 1], "blind")  # a wound and a condition only the GM sees
    assert table.snapshot(Viewer("observer", None)).actors["Ayla"].wounds == 1  # the players' view, held
    again = Table(table.id, ledger)
    again.restore(table.saved(), [])
    condition = again.state.actors["Ayla"].conditions[0].id
    removed = again.prepare_op(t.ConditionRemove(actor="Ayla", condition=condition))
    assert [(st.vis, type(st.event).__name__) for _, st in removed.events] == [("gm", "ConditionRemoved")]
    healed = again.prepare_op(facets_t.HarmHeal(actor="Ayla", harm="wound", count=2))
    assert [(st.vis, st.event.count) for _, st in healed.events] == [("all", 1), ("gm", 1)]
    ledger.close()
