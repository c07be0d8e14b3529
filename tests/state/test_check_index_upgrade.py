"""A ledger from before the check index is indexed whole or not at all: an opening cut short while it indexes
(the sidecar killed, the disk full) leaves it as it was, and the next opening indexes it again, so that no old
check is lost to ``unknown_check``."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from protocol.v1.facets import FacetsCheck
from sidecar.state.ledger import SqliteLedger
from sidecar.state.ledger import sqlite as ledger_module
from sidecar.state.table import Table

from .test_old_checks import GM, _roll


def test_an_indexing_cut_short_is_done_again_at_the_next_opening(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.sqlite3"
    ledger = SqliteLedger(path)
    keys = ledger.create_table("campaign")
    table = Table(keys.table, ledger)
    ids = [
        _roll(table, GM, FacetsCheck(pool=2, dice=[4, 5]), mode) for mode in ("public", "gm", "blind") * 700
    ]  # no consequence: the table never fills
    before = {cid: ledger.check_events(keys.table, cid) for cid in ids}
    ledger.close()
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE check_events")  # as a ledger written before the index was

    real, seen = ledger_module.check_ids, [0]

    def killed_midway(table_id: str, data: bytes) -> set[str]:
        seen[0] += 1
        if seen[0] > 1_500:  # past the first chunks: some rows written in the indexing's transaction
            raise KeyboardInterrupt
        return real(table_id, data)

    monkeypatch.setattr(ledger_module, "check_ids", killed_midway)
    with pytest.raises(KeyboardInterrupt):
        SqliteLedger(path)
    monkeypatch.setattr(ledger_module, "check_ids", real)

    reopened = SqliteLedger(path)
    assert {cid: reopened.check_events(keys.table, cid) for cid in ids} == before
    reopened.close()
