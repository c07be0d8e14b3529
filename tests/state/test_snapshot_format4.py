"""A table whose newest snapshot is format 4 (before each rule set kept its part of the table under its own tag,
tests/state/data/format4, written by the code of that time) is read by today's code: the old snapshot is not
decoded but the table rebuilt from its events, every viewer's snapshot exactly what it was; the format-5
snapshot written next restores to the same, and an undo after it is a full fold's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import msgspec

from protocol.v1 import table as t
from sidecar.state.ledger import SqliteLedger
from sidecar.state.table import SNAPSHOT_VERSION, Table
from sidecar.state.visibility import Viewer

DATA = Path(__file__).resolve().parent / "data" / "format4"
VIEWERS = {
    "gm": Viewer("gm", "gm"),
    "ann": Viewer("player", "ann"),
    "bo": Viewer("player", "bo"),
    "anyone": Viewer("player", None),
}


def _ledger(tmp_path: Path) -> tuple[SqliteLedger, dict]:
    shutil.copy(DATA / "verdict.sqlite3", tmp_path / "verdict.sqlite3")
    return SqliteLedger(tmp_path / "verdict.sqlite3"), json.loads((DATA / "facts.json").read_text())


def _seen(table: Table) -> dict[str, object]:
    return {name: json.loads(msgspec.json.encode(table.snapshot(v))) for name, v in VIEWERS.items()}


async def test_a_format_4_snapshot_is_rebuilt_from_the_events(tmp_path: Path) -> None:
    ledger, facts = _ledger(tmp_path)
    table_id = facts["table"]
    stored = ledger.snapshot(table_id)
    assert stored is not None and stored[:2] == (facts["head"], "4/0.1.0") != (facts["head"], SNAPSHOT_VERSION)
    table = Table(table_id, ledger)
    await table.read()
    assert table.snapshot_seq == 0  # the old snapshot was not taken: the table folded its events
    assert table.head == facts["head"]
    assert _seen(table) == facts["snapshots"]
    # what the GM alone saw stays the GM's: a hidden complication, a blind roll's condition, a secret trial
    assert facts["snapshots"]["gm"] != facts["snapshots"]["anyone"]

    # the snapshot written now is format 5, and a table read from it is the same to every viewer
    ledger.store_snapshot_sync(table_id, table.head, SNAPSHOT_VERSION, table.saved())
    again = Table(table_id, ledger)
    await again.read()
    assert again.snapshot_seq == facts["head"]
    assert _seen(again) == facts["snapshots"]

    # an undo of the last action after it rebuilds as a full fold of the events does
    for tb in (table, again):
        pending = tb.prepare_op(t.Undo(count=1))
        if tb is table:
            ledger.append_sync(table_id, pending.encoded(), None)
        tb.commit(pending)
    full = Table(table_id, ledger)
    full.load()
    assert _seen(again) == _seen(table) == _seen(full) != facts["snapshots"]
    ledger.close()
