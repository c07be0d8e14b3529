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
