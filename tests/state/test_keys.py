"""A table's keys are stored hashed: no key is in the ledger's files."""

from __future__ import annotations

import sqlite3

from sidecar.state.ledger import SqliteLedger


def test_keys_are_stored_hashed(tmp_path):
    ledger = SqliteLedger(tmp_path / "v.sqlite3")
    keys = ledger.create_table("t")
    ledger.close()
    raw = (tmp_path / "v.sqlite3").read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("v.sqlite3-*"))
    for key in (keys.gm, keys.player, keys.observer):
        assert key.encode() not in raw
    db = sqlite3.connect(tmp_path / "v.sqlite3")
    assert db.execute("SELECT count(*) FROM tables").fetchone() == (1,)
