"""The table's side of the second rules pass, on a real ledger without sockets: a devil's bargain on a
group check's part, the GM's difficulty, the GM's hand on facets and harm, the epic success's removal."""

from __future__ import annotations

import pytest

from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.flairs import FlairsBargain, FlairsCheck, FlairsParticipant
from sidecar.state.ledger import SqliteLedger
from sidecar.state.table import ActionError, Table
from sidecar.state.visibility import Viewer

GM = Viewer("gm", "gm-user")
P1 = Viewer("player", "p1")
P2 = Viewer("player", "p2")


@pytest.fixture
def table(tmp_path):
    ledger = SqliteLedger(tmp_path / "v.sqlite3")
    keys = ledger.create_table("t")
    tb = Table(keys.table, ledger)
    tb.load()
    yield tb
    ledger.close()


def _commit(tb: Table, pending):
    tb.ledger.append_sync(tb.id, pending.encoded(), None)
    tb.commit(pending)
    return pending


def roll(tb: Table, check, viewer=P1, **kw):
    return _commit(tb, tb.prepare_roll(m.Roll(id="x", check=check, **kw), viewer, viewer.user))


def follow(tb: Table, check_id, action, viewer=P1):
    return _commit(tb, tb.prepare_follow(m.Follow(id="x", check=check_id, action=action), viewer, viewer.user))


def op(tb: Table, o):
    return _commit(tb, tb.prepare_op(o))


def refused(fn, *args, **kw) -> str:
    with pytest.raises(ActionError) as e:
        fn(*args, **kw)
    return e.value.code


# --- 1. no devil's bargain during group checks ------------------------------------------------------------


def test_no_bargain_on_a_part_of_a_group_check(table):
    op(table, t.GatherStart(check=FlairsCheck(group=[FlairsParticipant(name="A", rank=2), FlairsParticipant(name="B", rank=2)])))
    g = next(iter(table.state.gathers.values()))
    part = roll(table, FlairsCheck(dice=[2, 1]), gather=g.id, part="A")
    assert part.result.outcome == "failure"
    head = table.head
    code = refused(table.prepare_follow, m.Follow(id="b", check=part.check_id, action=FlairsBargain(trial="loud", dice=[6])), P1, "p1")
    assert code == "bargain_in_group_check" and table.head == head
    # the same faces outside a group check may take the bargain
    alone = roll(table, FlairsCheck(rank=2, simple=True, dice=[2, 1]))
    assert follow(table, alone.check_id, FlairsBargain(trial="loud", dice=[6])).result.outcome == "success"


# --- 3. the GM's difficulty stands --------------------------------------------------------------------


def _complication(tb: Table, hidden=False, cl=None) -> str:
    cid = op(tb, t.ComplicationAdd(scene="Dock", text="Locked gate", hidden=hidden)).events[0][1].event.complication
    if cl is not None:
        op(tb, t.ComplicationConvert(complication=cid, cl=cl))
    return cid


def test_a_converted_complication_is_addressed_at_the_gms_cl(table):
    from protocol.v1.challenge import ChallengeCheck

    cid = _complication(table, cl=4)
    head = table.head
    assert refused(roll, table, ChallengeCheck(cl=1, complication=cid, dice=[20])) == "difficulty_mismatch"
    assert table.head == head and cid in table.state.complications
    r = roll(table, ChallengeCheck(cl=4, complication=cid, dice=[20]), actor="Ayla")
    assert r.result.outcome == "success_at_cost" and cid not in table.state.complications  # 20 is level 4


def test_only_a_converted_complication_the_roller_may_see_can_be_addressed(table):
    from protocol.v1.challenge import ChallengeCheck

    hidden = _complication(table, hidden=True)
    plain = _complication(table)
    assert refused(roll, table, ChallengeCheck(cl=1, complication=hidden, dice=[20])) == "unknown_complication"
    assert refused(roll, table, ChallengeCheck(cl=1, complication=plain, dice=[20])) == "complication_not_converted"
    assert refused(roll, table, ChallengeCheck(cl=1, complication=hidden, dice=[20]), viewer=GM) == "complication_not_converted"
    assert refused(roll, table, ChallengeCheck(cl=1, complication="k-none", dice=[20])) == "unknown_complication"
    assert {hidden, plain} <= set(table.state.complications)


def test_an_extended_roll_takes_the_gms_difficulty(table):
    from protocol.v1.boons import BoonsCheck

    xid = op(table, t.ExtendedStart(name="Pick the lock", threshold=5, trial=2, crisis=1)).events[0][1].event.extended
    for check in (BoonsCheck(ability=1, trial=1), BoonsCheck(ability=1, crisis=2), BoonsCheck(ability=1, trial=2, upgrade=1),
                  BoonsCheck(ability=1, threshold=2), BoonsCheck(ability=1, progress=4), BoonsCheck(ability=1, limit=9)):
        assert refused(roll, table, check, extended=xid) == "difficulty_mismatch", check
    r = roll(table, BoonsCheck(ability=1, dice=[4, 1, 1, 1]), extended=xid)
    assert r.result.types == ["ability", "trial", "trial", "crisis"]
    r = roll(table, BoonsCheck(ability=1, trial=2, crisis=1, threshold=5, dice=[4, 1, 1, 1]), extended=xid)  # repeating it is fine
    assert r.result.extended.progress == 4 and r.result.extended.attempts == 2
