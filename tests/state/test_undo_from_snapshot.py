"""An undo after the newest snapshot rebuilds the table's state from that snapshot and the events after it,
not from the whole history: the events read are counted, on a table's load and on a GM's undo over a real
socket; the state it leaves is a full fold's, for the GM and for players. An undo that reaches behind the
snapshot still rebuilds from the history."""

from __future__ import annotations

from pathlib import Path

import msgspec

from protocol.v1 import challenge as challenge_t
from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.challenge import ChallengeCheck
from protocol.v1.facets import FacetsCheck
from sidecar.client import Client
from sidecar.state.keys import derive_user_key
from sidecar.state.ledger import SqliteLedger
from sidecar.state.table import SNAPSHOT_VERSION, Table
from sidecar.state.visibility import Viewer

from ..server.test_snapshots import CountingLedger, campaign, running

EVENTS = 3_000
VIEWERS = [Viewer("gm", "gm"), Viewer("player", "ann"), Viewer("player", "bo"), Viewer("player", None)]


def _snapshotted(path: Path) -> tuple[str, int]:
    """A campaign of ``EVENTS`` events with a snapshot at its head (the players' views held)."""
    keys = campaign(path, EVENTS)
    ledger = SqliteLedger(path)
    table = Table(keys.table, ledger)
    table.load()
    for viewer in VIEWERS:
        table.snapshot(viewer)
    ledger.store_snapshot_sync(keys.table, table.head, SNAPSHOT_VERSION, table.saved())
    ledger.close()
    return keys.table, table.head


def _act(table: Table, pending: object) -> None:
    table.ledger.append_sync(table.id, pending.encoded(), None)  # type: ignore[attr-defined]
    table.commit(pending)  # type: ignore[arg-type]


def _seen(table: Table) -> list[bytes]:
    return [msgspec.json.encode(table.snapshot(viewer)) for viewer in VIEWERS]


def _full(path: Path, table_id: str) -> list[bytes]:
    ledger = SqliteLedger(path)
    full = Table(table_id, ledger)
    full.load()
    seen = _seen(full)
    ledger.close()
    return seen


async def test_a_load_with_an_undo_after_the_snapshot_reads_only_the_events_after_it(tmp_path):
    path = tmp_path / "v.sqlite3"
    table_id, at = _snapshotted(path)
    ledger = SqliteLedger(path)
    table = Table(table_id, ledger)
    table.restore(ledger.snapshot(table_id)[2], ledger.events(table_id, at))  # type: ignore[index]
    for mode in ("public", "gm", "blind"):  # rolls with consequences, one a player's secret
        msg = m.Roll(id="r", check=ChallengeCheck(cl=4, modifier=-30, dice=[20]), actor="Ayla", mode=mode)
        _act(table, table.prepare_roll(msg, Viewer("player", "ann"), "ann"))
    _act(table, table.prepare_op(challenge_t.StrainSet(actor="Ayla", strain=0)))
    _act(table, table.prepare_op(t.Undo(count=2)))
    tail = len(ledger.events(table_id, at))
    ledger.close()

    counting = CountingLedger(path)
    again = Table(table_id, counting)
    await again.read()
    assert counting.reads == [(at, tail)]  # the events after the snapshot, none before
    assert _seen(again) == _full(path, table_id)
    counting.close()


async def test_a_gm_undo_after_the_snapshot_reads_no_event_behind_it(tmp_path):
    path = tmp_path / "v.sqlite3"
    table_id, at = _snapshotted(path)
    ledger = CountingLedger(path)
    async with running(ledger, tmp_path) as (hub, url):
        gm_key = _gm_key(ledger, table_id)
        gm = await Client.connect(url, table_id, gm_key, user="gm")
        ann = await Client.connect(url, table_id, derive_user_key(ledger.user_secret(table_id), "ann"), user="ann")  # type: ignore[arg-type]
        for i, mode in enumerate(("public", "gm", "self")):
            await ann.request(m.Roll(id=f"r{i}", check=FacetsCheck(pool=2, dice=[1, 1]), actor="Bo", mode=mode))
        await ann.request(m.State(id="s"))  # her view held
        ledger.reads.clear()
        done = await gm.request(m.Gm(id="undo", op=t.Undo(count=2)))
        # the look back for the actions reads back one chunk (it sees an older action, so that the two are
        # the newest); the rebuild reads nothing behind the snapshot (before: all 3,000 events)
        assert done.events and sum(n for _, n in ledger.reads) <= 256 + 10, ledger.reads
        table = hub.tables[table_id].table
        assert table.blocking_reads == 0
        live = _seen(table)
        # an undo that reaches behind the snapshot rebuilds from the history, and answers alike
        ledger.reads.clear()
        await gm.request(m.Gm(id="undo-far", op=t.Undo(count=50)))
        assert any(since < at for since, _ in ledger.reads) and table.blocking_reads == 0
        far = _seen(table)
        await gm.close()
        await ann.close()
    assert live != far
    assert far == _full(path, table_id)
    ledger.close()


def _gm_key(ledger: SqliteLedger, table_id: str) -> str:
    """A fresh GM key for the table (the campaign's keys were shown once)."""
    return ledger.rotate_keys(table_id).gm
