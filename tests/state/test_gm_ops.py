"""The GM's operations (sidecar/state/gm_ops.py): the table's own answered by ``prepare`` itself, a rule set's
handed to its owner, one over the table's bounds refused first with its code, an unknown one refused, and
nothing of a refused operation prepared."""

from __future__ import annotations

import msgspec
import pytest

from protocol.v1 import challenge as challenge_t
from protocol.v1 import feats as feats_t
from protocol.v1 import limits
from protocol.v1 import table as t
from protocol.v1.base import Op
from sidecar.state.errors import ActionError
from sidecar.state.gm_ops import Seen, prepare
from sidecar.state.projection import Projection
from sidecar.state.stored import Stored


def _seen(state: Projection, conditions=None) -> Seen:
    return Seen(conditions=conditions or {}, heard=lambda key: [], seen_by=lambda user: state)


def _prepare(op, state: Projection, history=(), undone=frozenset(), conditions=None):
    return prepare(op, state, _seen(state, conditions), lambda: list(history), set(undone))


def _refused(op, state: Projection, **kw) -> str:
    before = msgspec.json.encode(state.snapshot())
    with pytest.raises(ActionError) as e:
        _prepare(op, state, **kw)
    assert msgspec.json.encode(state.snapshot()) == before  # nothing half-applied
    return e.value.code


def test_the_tables_own_operations():
    state = Projection()
    [(ev, vis, owner)] = _prepare(t.SceneActivate(scene="Docks"), state)
    assert ev == t.SceneActivated(scene="Docks") and (vis, owner) == ("all", None)
    [(ev, _, _)] = _prepare(t.ExtendedStart(name="Climb", threshold=4), state)
    assert isinstance(ev, t.ExtendedStarted) and ev.threshold == 4 and ev.extended
    added = [ev for ev, _, _ in _prepare(t.ConditionAdd(actor="Ayla", text="bruised"), state)]
    assert isinstance(added[0], t.ConditionAdded) and added[0].text == "bruised"


def test_a_condition_removed_is_told_as_it_was_added():
    state = Projection.build([(1, t.ConditionAdded(actor="Ayla", condition="c1"))])
    [(ev, vis, owner)] = _prepare(
        t.ConditionRemove(actor="Ayla", condition="c1"), state, conditions={"c1": ("roller_gm", "alice")}
    )
    assert ev == t.ConditionRemoved(actor="Ayla", condition="c1") and (vis, owner) == ("roller_gm", "alice")
    assert _refused(t.ConditionRemove(actor="Ayla", condition="nope"), state) == "unknown_condition"


def test_undo_names_the_last_action_with_its_consequences():
    history = [
        (3, Stored("all", None, challenge_t.StrainChanged(actor="Ayla", delta=1, cause=2))),
        (2, Stored("all", None, t.ConditionAdded(actor="Ayla", condition="c1"))),
        (1, Stored("all", None, t.SceneActivated(scene="Docks"))),
    ]
    [(ev, _, _)] = _prepare(t.Undo(), Projection(), history=history)
    assert ev == t.Undone(seqs=[2, 3])
    [(ev, _, _)] = _prepare(t.Undo(events=True), Projection(), history=history)
    assert ev == t.Undone(seqs=[3])
    assert _refused(t.Undo(), Projection(), history=history, undone={1, 2, 3}) == "nothing_to_undo"


def test_a_rule_sets_operation_goes_to_its_owner():
    state = Projection()
    evs = [ev for ev, _, _ in _prepare(challenge_t.StrainSet(actor="Ayla", strain=3), state)]
    assert [type(ev) for ev in evs] == [challenge_t.StrainChanged] and evs[0].set == 3
    evs = [ev for ev, _, _ in _prepare(feats_t.WyrdGrant(actor="Ayla", amount=2), state)]
    assert [type(ev) for ev in evs] == [feats_t.WyrdChanged] and evs[0].delta == 2


def test_an_operation_over_the_tables_bounds_is_refused_first():
    full = [
        (n, t.ExtendedStarted(extended=f"x{n}", name="x", threshold=1, time_unit="round", limit=None))
        for n in range(1, limits.EXTENDED + 1)
    ]
    state = Projection.build(full)
    assert _refused(t.ExtendedStart(name="one more", threshold=2), state).startswith("too_many")
    # the bound is checked before the operation's own checks: a bad threshold is still the bound's refusal
    assert _refused(t.ExtendedStart(name="bad", threshold=0), state).startswith("too_many")
    worn = Projection.build(
        [(n, t.ConditionAdded(actor="Ayla", condition=f"c{n}")) for n in range(1, limits.CONDITIONS_PER_ACTOR + 1)]
    )
    assert _refused(t.ConditionAdd(actor="Ayla"), worn).startswith("too_many")


def test_an_operation_of_no_known_rule_set_is_refused():
    class Unheard(Op, tag="unheard_op"):
        actor: str = "Ayla"

    assert _refused(Unheard(), Projection()) == "unknown_op"
