"""The SQLite ledger's ways of committing: on the loop's thread, on the writer thread, or chosen per turn."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from sidecar.state.ledger import LedgerUnavailable, SqliteLedger


@pytest.mark.parametrize("commit", SqliteLedger.COMMITS)
def test_every_append_is_stored_once_committed(tmp_path: Path, commit: str) -> None:
    ledger = SqliteLedger(tmp_path / "v.sqlite3", commit=commit)
    tables = [ledger.create_table(f"t{i}").table for i in range(5)]

    async def main() -> None:
        await ledger.append(tables[0], [(1, b"lone")], ("r-lone", "gm", b"reply", ""))
        # Appends made in one turn of the loop share a commit; each table's seqs stay in order.
        for seq in range(2, 6):
            await asyncio.gather(
                *(ledger.append(t, [(seq, b"e%d" % seq)], (f"r-{t}-{seq}", "gm", b"r", "")) for t in tables[1:])
            )

    asyncio.run(main())
    ledger.close()
    again = SqliteLedger(tmp_path / "v.sqlite3")
    assert again.events(tables[0]) == [(1, b"lone")]
    for t in tables[1:]:
        assert again.events(t) == [(seq, b"e%d" % seq) for seq in range(2, 6)]
        assert again.request(t, f"r-{t}-5") is not None
    again.close()


def test_by_default_every_commit_runs_on_the_writer_thread_never_the_loops(tmp_path: Path) -> None:
    """A disk that stops answering must hold up a thread the loop does not wait for, even for a lone append."""
    threads: list[int] = []

    class Watched(SqliteLedger):
        def _write(self, db: Any, batch: Any) -> None:
            threads.append(threading.get_ident())
            super()._write(db, batch)

    ledger = Watched(tmp_path / "v.sqlite3")
    assert ledger.commit == "thread"
    a, b = ledger.create_table("a").table, ledger.create_table("b").table

    async def main() -> int:
        await ledger.append(a, [(1, b"x")], None)  # a lone append, the writer idle
        await asyncio.gather(ledger.append(a, [(2, b"y")], None), ledger.append(b, [(1, b"z")], None))
        return threading.get_ident()

    loop_thread = asyncio.run(main())
    assert threads and loop_thread not in threads
    assert ledger.events(a) == [(1, b"x"), (2, b"y")] and ledger.events(b) == [(1, b"z")]
    ledger.close()


def test_a_failed_commit_fails_every_append_of_its_turn_and_stores_none(tmp_path: Path) -> None:
    ledger = SqliteLedger(tmp_path / "v.sqlite3", commit="loop")
    a = ledger.create_table("a").table

    async def main() -> list[object]:
        await ledger.append(a, [(1, b"x")], None)
        # seq 1 again: the primary key refuses it, and the other append of the same turn goes with it
        return await asyncio.gather(
            ledger.append(a, [(1, b"dup")], None), ledger.append(a, [(2, b"y")], None), return_exceptions=True
        )

    results = asyncio.run(main())
    assert all(isinstance(r, Exception) for r in results)
    assert ledger.events(a) == [(1, b"x")]
    ledger.close()


def test_an_unknown_commit_mode_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="commit must be one of"):
        SqliteLedger(tmp_path / "v.sqlite3", commit="sometimes")


def test_a_snapshot_or_a_prune_on_a_disk_that_stops_answering_is_refused_within_the_bound(tmp_path: Path) -> None:
    """Housekeeping writes wait on the reader thread like any read: bounded, the loop never held."""
    answering = threading.Event()

    class Stuck(SqliteLedger):
        def store_snapshot_sync(self, table_id: str, seq: int, version: str, data: bytes) -> None:
            answering.wait()
            super().store_snapshot_sync(table_id, seq, version, data)

        def prune_requests_sync(self, batch: int = 2000) -> int:
            answering.wait()
            return super().prune_requests_sync(batch)

    ledger = Stuck(tmp_path / "v.sqlite3")
    ledger.guard.bound = 0.3
    a = ledger.create_table("a").table

    async def main() -> None:
        for call in (ledger.store_snapshot(a, 1, "v", b"state"), ledger.prune_requests()):
            with pytest.raises(LedgerUnavailable, match="took longer than 0.3 s"):
                await asyncio.wait_for(call, 5)
        assert ledger.guard.down is None  # housekeeping that waits is not a store held down
        answering.set()
        await ledger.aclose()

    asyncio.run(main())
    ledger.close()
