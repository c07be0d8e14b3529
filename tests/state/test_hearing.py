"""Who hears what (sidecar/state/hearing.py), on a real ledger without sockets: each viewer's share of an action
(``audiences``), a rule set's part asked what only the GM hears, and the players' view a GM's snapshot carries
(``public_view``) holding nothing a GM-only or blind roll changed."""

from __future__ import annotations

import msgspec
import pytest

from protocol.v1 import challenge as challenge_t
from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar.state import hearing
from sidecar.state.ledger import SqliteLedger
from sidecar.state.table import Table
from sidecar.state.visibility import Viewer

GM = Viewer("gm", "gm-user")
ALICE = Viewer("player", "alice")
BOB = Viewer("player", "bob")
VIEWERS = [("gm", GM), ("alice", ALICE), ("bob", BOB), ("public", hearing.PUBLIC)]
WOUNDED = FacetsCheck(pool=1, kind="opposition", dice=[3])  # a failure: a wound
CATASTROPHE = FacetsCheck(pool=2, kind="opposition", dice=[1, 1])  # a wound, a condition, a facet


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
    return hearing.Action(pending, request="r")


def _roll(tb: Table, check, **kw):
    # the GM's connection rolling for a player names that player (as the hub passes the user it acts as)
    return _commit(tb, tb.prepare_roll(m.Roll(id="r", check=check, **kw), GM, kw.get("user", GM.user)))


def _told(tb: Table, action) -> set[str]:
    return {who for _, keys in hearing.audiences(tb, action, VIEWERS) for who in keys}


def test_a_public_roll_is_everyones_a_gm_only_roll_the_gms_and_its_rollers(table):
    assert _told(table, _roll(table, WOUNDED, actor="Ayla")) == {"gm", "alice", "bob", "public"}
    assert _told(table, _roll(table, CATASTROPHE, actor="Ayla", mode="gm", user="alice")) == {"gm", "alice"}


def test_a_blind_rolls_roller_hears_that_it_happened_not_its_result(table):
    action = _roll(table, CATASTROPHE, actor="Bree", mode="blind", user="bob")
    assert _told(table, action) == {"gm", "bob"}
    [(frames, _)] = [g for g in hearing.audiences(table, action, [("bob", BOB)])]
    assert isinstance(frames[0], m.Rolled) and frames[0].result is None and frames[0].events == []


def test_a_rule_sets_part_decides_what_only_the_gm_hears(table):
    hidden = _commit(table, table.prepare_op(challenge_t.ComplicationAdd(scene="Docks", text="ambush")))
    assert [st.vis for _, st in hidden.pending.events] == ["gm"]  # the part's heard_by: off-screen is the GM's
    assert _told(table, hidden) == {"gm"}
    shown = _commit(table, table.prepare_op(challenge_t.ComplicationAdd(scene="Docks", text="fog", hidden=False)))
    assert _told(table, shown) == {"gm", "alice", "bob", "public"}


def test_the_players_view_holds_nothing_a_hidden_roll_changed(table):
    _roll(table, WOUNDED, actor="Ayla")
    _roll(table, CATASTROPHE, actor="Ayla", mode="gm", user="alice")
    _roll(table, CATASTROPHE, actor="Bree", mode="blind", user="bob")
    gm = hearing.snapshot(table, GM)
    public = gm.public
    assert gm.actors["Ayla"].wounds == 2 and len(gm.actors["Ayla"].conditions) == 1
    assert public.actors["Ayla"].wounds == 1 and public.actors["Ayla"].conditions == []
    assert "Bree" not in public.actors or public.actors["Bree"].conditions == []
    assert public == hearing.public_view(table)
    assert msgspec.json.encode(public.actors) == msgspec.json.encode(table.snapshot(hearing.PUBLIC).actors)
    blob = msgspec.json.encode(public)
    for name, actor in gm.actors.items():
        for c in actor.conditions:
            assert c.id.encode() not in blob, name
    assert hearing.snapshot(table, ALICE).public is msgspec.UNSET  # only a GM's snapshot carries it
