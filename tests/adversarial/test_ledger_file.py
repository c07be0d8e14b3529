"""An operator's mistake with the ledger file loses nothing acknowledged.

The SQLite ledger deleted (or replaced) under a running ``verdict serve``: the sidecar refuses writes
(``ledger_unavailable``) instead of acknowledging rolls into a file nobody will read again; at its next
start it neither creates a new default table nor overwrites the keys file over the data folder that held
one, and says what to do. Its write-ahead log (or the log's index) deleted: what the log held is saved into
the ledger file, writes are refused, and a kill -9 and a restart lose nothing acknowledged. A full disk is
logged as what it is.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import signal
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
import structlog

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar.client import Client, RequestFailed
from sidecar.state.ledger import LedgerUnavailable, SqliteLedger

from ..conftest import ROOT, Process, free_port
from ..serving import serve_command


async def _refused(request: Any) -> str:
    with pytest.raises(RequestFailed) as refused:
        await request
    return str(refused.value.code)


def _start_refused(data: Path) -> subprocess.CompletedProcess[str]:
    """`verdict serve` over ``data``, expected to refuse to start: its exit status and what it said."""
    return subprocess.run(
        serve_command(free_port(), data), cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize("mistake", ["deleted", "replaced"])
async def test_a_ledger_file_removed_under_a_running_sidecar_refuses_writes_and_a_restart_keeps_its_keys(
    tmp_path: Path, mistake: str
) -> None:
    data = tmp_path / "data"
    sidecar = Process(data, free_port())
    sidecar.start()
    keys_file = data / "default-table.keys"
    keys_before = keys_file.read_text()
    keys = sidecar.keys()
    try:
        player = await Client.connect(sidecar.url, keys.table, sidecar.user_key("p1"), user="p1")
        watcher = await Client.connect(sidecar.url, keys.table, keys.observer)
        acked = [await player.request(m.Roll(id=f"r{i}", check=FacetsCheck(pool=2))) for i in range(3)]
        ledger = data / "verdict.sqlite3"
        if mistake == "deleted":  # an operator's rm, a cleanup job
            ledger.unlink()
        else:  # another file moved into its place (a restore gone wrong)
            other = tmp_path / "other.sqlite3"
            SqliteLedger(other).close()
            shutil.move(other, ledger)
        for i in range(5):  # every write refused, none acknowledged into a file nobody will read
            assert await _refused(player.request(m.Roll(id=f"lost-{i}", check=FacetsCheck(pool=2)))) == (
                "ledger_unavailable"
            )
        assert isinstance(await player.request(m.Ping(id="up")), m.Pong)  # the socket stays up
        with pytest.raises(asyncio.TimeoutError):  # and nobody heard of a refused roll
            while True:
                heard = await watcher.next(timeout=0.5)
                assert heard.id in {a.id for a in acked}
        await player.close()
        await watcher.close()
    finally:
        sidecar.stop()
    # The next start refuses: the keys file names a table the ledger at the path does not hold.
    started = _start_refused(data)
    assert started.returncode == 2, started.stdout + started.stderr
    assert "default-table.keys" in started.stderr and keys.table in started.stderr
    assert "GM key" not in started.stdout  # no new default table's keys printed
    assert keys_file.read_text() == keys_before  # the keys file kept as it was
    held = SqliteLedger(data / "verdict.sqlite3")
    assert held.tables() == []  # never a new default table over the old folder
    held.close()


@pytest.mark.parametrize("suffix", ["-wal", "-shm"])
async def test_a_write_ahead_log_deleted_under_a_running_sidecar_loses_nothing_acknowledged_across_kill_9(
    tmp_path: Path, suffix: str
) -> None:
    data, said = tmp_path / "data", tmp_path / "serve.log"
    sidecar = Process(data, free_port(), log=said)
    sidecar.start()
    keys = sidecar.keys()
    try:
        player = await Client.connect(sidecar.url, keys.table, sidecar.user_key("p1"), user="p1")
        acked = [await player.request(m.Roll(id=f"r{i}", check=FacetsCheck(pool=2))) for i in range(20)]
        (data / f"verdict.sqlite3{suffix}").unlink()  # a cleanup job that took it for a temporary file
        for i in range(3):  # refused: a roll acknowledged now would live only in a file no restart reads
            assert await _refused(player.request(m.Roll(id=f"lost-{i}", check=FacetsCheck(pool=2)))) == (
                "ledger_unavailable"
            )
        with pytest.raises(RequestFailed) as refused:
            await player.request(m.Roll(id="lost-again", check=FacetsCheck(pool=2)))
        assert "restart the sidecar" in refused.value.message and suffix in refused.value.message
        assert isinstance(await player.request(m.Ping(id="up")), m.Pong)  # the socket stays up
        await player.close()
    finally:
        assert sidecar.stop(signal.SIGKILL) == -signal.SIGKILL  # no clean close: nothing checkpointed on the way out
    lines = [json.loads(line) for line in said.read_text().splitlines() if line.startswith("{")]
    lost = [e for e in lines if e.get("event") == "ledger_log_lost"]
    assert len(lost) == 1 and lost[0]["saved"] is True and lost[0]["file"].endswith(suffix), lost
    sidecar.start()  # the next start opens the folder as it is, and holds every acknowledged roll
    try:
        assert sidecar.keys().table == keys.table
        gm = await Client.connect(sidecar.url, keys.table, keys.gm, user="gm")
        state = await gm.request(m.State(id="s"))
        assert state.snapshot.seq == acked[-1].seq == 20
        again = await gm.request(m.Roll(id="after", check=FacetsCheck(pool=2)))
        assert again.seq == 21
        await gm.close()
    finally:
        sidecar.stop()
    ledger = SqliteLedger(data / "verdict.sqlite3")
    try:
        assert [s for s, _ in ledger.events(keys.table)] == list(range(1, 22))
    finally:
        ledger.close()


def test_a_keys_file_is_never_overwritten_and_a_restart_over_a_whole_folder_keeps_the_table(tmp_path: Path) -> None:
    data = tmp_path / "data"
    sidecar = Process(data, free_port())
    sidecar.start()
    keys_before = (data / "default-table.keys").read_text()
    table = sidecar.keys().table
    sidecar.stop()
    sidecar.start()  # the folder whole: the same table, the same keys file
    try:
        assert sidecar.keys().table == table and (data / "default-table.keys").read_text() == keys_before
    finally:
        sidecar.stop()
    ledger = SqliteLedger(data / "verdict.sqlite3")
    assert [t.id for t in ledger.tables()] == [table]
    ledger.close()


async def test_a_replaced_ledger_file_is_refused_before_the_next_batch(tmp_path: Path) -> None:
    path = tmp_path / "verdict.sqlite3"
    ledger = SqliteLedger(path)
    k = ledger.create_table("t")
    await ledger.append(k.table, [(1, b"one")], ("r1", "gm", b"reply", ""))
    path.unlink()
    with pytest.raises(LedgerUnavailable, match="deleted"):
        await ledger.append(k.table, [(2, b"two")], ("r2", "gm", b"reply", ""))
    SqliteLedger(path).close()  # a new, empty file at the path
    with pytest.raises(LedgerUnavailable, match="replaced"):
        await ledger.append(k.table, [(2, b"two")], ("r2", "gm", b"reply", ""))
    with pytest.raises(LedgerUnavailable):  # reads of the serving side are refused the same way
        await ledger.find_request(k.table, "r1")
    await ledger.aclose()
    ledger.close()


class FullLedger(SqliteLedger):
    """The SQLite ledger on a disk that fills up: no page beyond the ones it has."""

    def _connect(self) -> sqlite3.Connection:
        db = super()._connect()
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count={pages}")
        return db


async def test_a_full_disk_is_logged_as_what_it_is(tmp_path: Path) -> None:
    path = tmp_path / "verdict.sqlite3"
    plain = SqliteLedger(path)
    keys = plain.create_table("t")  # the table is made before the disk fills
    plain.close()
    ledger = FullLedger(path)

    class Writer:
        request_ids = ["big"]

        async def caught_up(self, rows: Any) -> None: ...

        async def prepare(self, answered: Any) -> Any:
            return [([(1, b"x" * 200_000)], ("big", "gm", b"reply", ""))]

        async def reset(self) -> int:
            return 0

    with structlog.testing.capture_logs() as logs, pytest.raises(LedgerUnavailable) as refused:
        await ledger.write(keys.table, 0, Writer())
    assert "database or disk is full" in refused.value.message
    said = " ".join(str(e) for e in logs)
    assert "database or disk is full" in said and "cannot rollback" not in said
    assert ledger.events(keys.table) == []
    await ledger.aclose()
    ledger.close()
