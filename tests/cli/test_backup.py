"""`verdict backup` while a sidecar serves and rolls go on, `verdict restore` into a stopped folder."""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from pathlib import Path

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar.client import Client, RequestFailed
from sidecar.state.ledger import SqliteLedger
from tests.serving import ROOT, Process, free_port

from .running import verdict


async def _verdict_process(*args: str) -> tuple[int, str, str]:
    """``verdict ARGS`` as a separate process (the backup runs beside the serving one, as a user's would)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "sidecar.cli",
        *args,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_a_backup_under_load_restores_every_roll_acknowledged_before_it_began(tmp_path: Path) -> None:
    data, copy = tmp_path / "data", tmp_path / "campaign.sqlite3"
    sidecar = Process(data, free_port())
    sidecar.start()
    keys = sidecar.keys()
    acked: list[int] = []
    rolling = True

    async def roll(client: Client, who: str) -> None:
        n = 0
        while rolling:
            n += 1
            while True:  # as fast as the sidecar's rate limit lets one requester roll
                try:
                    reply = await client.request(m.Roll(id=f"{who}-{n}", check=FacetsCheck(pool=2)))
                    break
                except RequestFailed as exc:
                    if exc.code != "rate_limited":
                        raise
                    await asyncio.sleep(0.05)
            assert isinstance(reply, m.Rolled)
            acked.append(reply.seq)

    try:
        clients = [await Client.connect(sidecar.url, keys.table, keys.gm, user=f"gm{i}") for i in range(2)]
        rollers = [asyncio.create_task(roll(c, f"gm{i}")) for i, c in enumerate(clients)]
        while len(acked) < 50:  # a table in play before the backup begins
            await asyncio.sleep(0.01)
        before = list(acked)
        code, out, err = await _verdict_process("backup", "--data", str(data), str(copy))
        during = len(acked) - len(before)
        rolling = False
        await asyncio.gather(*rollers)
        for c in clients:
            await c.close()
    finally:
        sidecar.stop()
    assert code == 0, err
    assert out.startswith(f"backed up the ledger of {data} to {copy} (1 table, ")
    assert during > 0  # the rolls went on while the copy was made
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert not Path(f"{copy}-wal").exists()  # one self-contained file

    fresh = tmp_path / "restored"
    r = verdict("restore", "--data", str(fresh), str(copy))
    assert r.returncode == 0, r.stderr
    ledger = SqliteLedger(fresh / "verdict.sqlite3")
    try:
        held = {seq for seq, _ in ledger.events(keys.table)}
    finally:
        ledger.close()
    assert set(before) <= held

    # The restored folder serves the table with the keys the GM already has.
    (fresh / "default-table.keys").write_bytes((data / "default-table.keys").read_bytes())
    again = Process(fresh, free_port())
    again.start()
    try:
        gm = await Client.connect(again.url, keys.table, keys.gm)
        assert gm.seq >= max(before)
        await gm.close()
    finally:
        again.stop()


async def test_a_restore_is_refused_while_a_sidecar_serves_the_folder(tmp_path: Path) -> None:
    data, copy = tmp_path / "data", tmp_path / "backup.sqlite3"
    sidecar = Process(data, free_port())
    sidecar.start()
    try:
        made = verdict("backup", "--data", str(data), str(copy))
        assert made.returncode == 0, made.stderr
        r = verdict("restore", "--data", str(data), str(copy))
        assert r.returncode == 2
        assert r.stderr.startswith(f"verdict: restore: a sidecar serves {data} (process ")
        assert r.stderr.rstrip().endswith("; stop it first")
        gm = await Client.connect(sidecar.url, sidecar.keys().table, sidecar.keys().gm)  # it still serves
        assert isinstance(await gm.request(m.Ping(id="p")), m.Pong)
        await gm.close()
    finally:
        sidecar.stop()
    r = verdict("restore", "--data", str(data), str(copy))
    assert r.returncode == 0, r.stderr
    kept = [p for p in data.iterdir() if p.name.startswith("verdict.sqlite3.before-restore-")]
    assert len(kept) == 1 and f"the ledger it replaced: {kept[0]}" in r.stdout


def test_a_backup_never_overwrites_and_a_restore_takes_only_a_ledger(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert verdict("table", "--data", str(data), "create", "Friday").returncode == 0
    taken = tmp_path / "taken"
    taken.write_text("mine")
    r = verdict("backup", "--data", str(data), str(taken))
    assert r.returncode == 2 and "exists; give a new file name" in r.stderr and taken.read_text() == "mine"
    r = verdict("restore", "--data", str(data), str(taken))
    assert r.returncode == 2 and "is not an SQLite ledger" in r.stderr
    r = verdict("backup", "--data", str(tmp_path / "empty"), str(tmp_path / "x.sqlite3"))
    assert r.returncode == 2 and f"no ledger in {tmp_path / 'empty'}" in r.stderr
    r = verdict("backup", "--ledger", "postgresql://v@db/verdict", str(tmp_path / "pg"))
    assert r.returncode == 2 and "pg_dump --format=custom" in r.stderr


def test_a_restore_moves_aside_keys_that_do_not_open_it(tmp_path: Path) -> None:
    data, copy = tmp_path / "data", tmp_path / "copy.sqlite3"
    assert verdict("table", "--data", str(data), "create", "Friday").returncode == 0
    assert verdict("backup", "--data", str(data), str(copy)).returncode == 0
    (data / "default-table.keys").write_text("table 0000\ngm nope\nplayer x\nobserver y\n")
    r = verdict("restore", "--data", str(data), str(copy))
    assert r.returncode == 0, r.stderr
    assert not (data / "default-table.keys").exists() and "the keys file's keys do not open" in r.stdout
    assert os.listdir(data).count("verdict.sqlite3") == 1
