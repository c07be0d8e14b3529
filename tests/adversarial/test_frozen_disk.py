"""A frozen disk under `verdict serve`: only what needs the disk waits, and no longer than the ledger's bound.

The data folder is a loop-mounted ext4 of the test's own, frozen with ``fsfreeze -f`` as snapshot and backup
tools freeze one (a stalled network disk behaves alike: writes wait in the kernel). A roll at the frozen table
is refused with ``ledger_unavailable`` within about the bound while the same sidecar answers pings, a table's
``state`` and a join's... nothing that needs the disk; after the thaw the ledger serves again by itself, on the
same sockets, and everything acknowledged is stored. All the tables of one sidecar share the one ledger file:
another table's rolls are refused too (at once, the store being known down), its pings and state answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar.client import Client, RequestFailed
from sidecar.state.ledger import BOUND, SqliteLedger

from ..conftest import Process, free_port
from ..serving import cli_keys

WITHIN = BOUND + 2.5
"""Seconds a refusal may take here for the ledger's bound (a loaded machine answers late)."""


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)


class Disk:
    """An ext4 image mounted on a loop device: a filesystem the test may freeze without touching anyone else's."""

    def __init__(self, where: Path) -> None:
        self.image, self.mount = where / "disk.img", where / "mnt"
        self.frozen = False

    def make(self) -> None:
        for tool in ("mkfs.ext4", "mount", "umount", "fsfreeze"):
            if shutil.which(tool) is None:
                pytest.skip(f"{tool} is not installed: cannot make and freeze a filesystem of the test's own")
        if os.geteuid() != 0:
            pytest.skip("mounting a loop device and fsfreeze need root")
        self.mount.mkdir()
        with self.image.open("wb") as f:
            f.truncate(64 << 20)
        made = _run("mkfs.ext4", "-q", str(self.image))
        if made.returncode != 0:
            pytest.skip(f"mkfs.ext4 failed: {made.stderr.strip()}")
        mounted = _run("mount", "-o", "loop", str(self.image), str(self.mount))
        if mounted.returncode != 0:
            pytest.skip(f"this machine does not allow a loop mount: {mounted.stderr.strip()}")

    def freeze(self) -> None:
        frozen = _run("fsfreeze", "-f", str(self.mount))
        if frozen.returncode != 0:
            pytest.skip(f"this machine does not allow fsfreeze: {frozen.stderr.strip()}")
        self.frozen = True

    def thaw(self) -> None:
        if self.frozen:
            _run("fsfreeze", "-u", str(self.mount))
            self.frozen = False

    def remove(self) -> None:
        self.thaw()
        if self.mount.is_mount():
            if _run("umount", str(self.mount)).returncode != 0:
                _run("umount", "-l", str(self.mount))


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Disk]:
    d = Disk(tmp_path)
    try:
        d.make()
        yield d
    finally:
        d.remove()  # thawed and unmounted whatever happened


async def _refusal(request: Any) -> tuple[str, float]:
    start = time.monotonic()
    with pytest.raises(RequestFailed) as refused:
        await request
    return str(refused.value.code), time.monotonic() - start


def _create_table(data: Path, name: str) -> tuple[str, str]:
    """`verdict table create` in a process of its own, as a host does: the new table's id and GM key."""
    keys = cli_keys("table", "--data", str(data), "create", name)
    return keys.table, keys.gm


async def test_a_frozen_disk_refuses_the_roll_within_the_bound_while_the_sidecar_answers_and_resumes_after(
    disk: Disk,
) -> None:
    data = disk.mount / "data"
    sidecar = Process(data, free_port())
    sidecar.start()
    try:
        keys = sidecar.keys()
        other_table, other_gm = _create_table(data, "other")
        player = await Client.connect(sidecar.url, keys.table, sidecar.user_key("p1"), user="p1")
        gm = await Client.connect(sidecar.url, keys.table, keys.gm, user="gm")
        elsewhere = await Client.connect(sidecar.url, other_table, other_gm, user="gm")
        acked = [await player.request(m.Roll(id=f"before-{i}", check=FacetsCheck(pool=2))) for i in range(5)]
        await elsewhere.request(m.Roll(id="there", check=FacetsCheck(pool=2)))

        disk.freeze()
        frozen_at = time.monotonic()
        rolling = asyncio.create_task(
            _refusal(player.request(m.Roll(id="frozen", check=FacetsCheck(pool=2)), timeout=60))
        )
        answered = 0
        while not rolling.done() and time.monotonic() - frozen_at < 30:
            # the loop is free while the commit waits in the kernel: each ping is answered (a loaded machine
            # may take a while, but far less than the freeze)
            assert isinstance(await gm.request(m.Ping(id=f"ping-{answered}"), timeout=2.0), m.Pong)
            answered += 1
            await asyncio.sleep(0.05)
        code, took = await rolling
        assert code == "ledger_unavailable" and took < WITHIN, (code, took)
        assert answered >= 3  # pings went on while the roll waited for the disk
        # still frozen: another table's pings and state are answered, its roll refused at once
        assert isinstance(await elsewhere.request(m.Ping(id="p"), timeout=2.0), m.Pong)
        assert (await elsewhere.request(m.State(id="s"), timeout=2.0)).snapshot.seq == 1
        code, took = await _refusal(elsewhere.request(m.Roll(id="also", check=FacetsCheck(pool=2)), timeout=60))
        assert code == "ledger_unavailable" and took < 1.5, (code, took)
        start = time.monotonic()  # a join needs the key read from the ledger: refused at once, the socket told why
        with pytest.raises(RequestFailed) as joining:
            await asyncio.wait_for(Client.connect(sidecar.url, other_table, other_gm, user="gm"), WITHIN)
        assert joining.value.code == "ledger_unavailable" and time.monotonic() - start < 1.5
        assert disk.frozen and time.monotonic() - frozen_at < 30

        disk.thaw()
        deadline = time.monotonic() + 30
        n = 0
        while True:  # the ledger is back by itself, on the same socket
            try:
                after = await player.request(m.Roll(id=f"after-{n}", check=FacetsCheck(pool=2)), timeout=10)
                break
            except RequestFailed as exc:
                assert exc.code == "ledger_unavailable" and time.monotonic() < deadline
                n += 1
                await asyncio.sleep(0.25)
        # the roll refused while frozen may have landed once the disk woke: its id answers with what it stored
        again = await player.request(m.Roll(id="frozen", check=FacetsCheck(pool=2)))
        assert again == await player.request(m.Roll(id="frozen", check=FacetsCheck(pool=2)))
        for c in (player, gm, elsewhere):
            await c.close()
    finally:
        disk.thaw()
        with contextlib.suppress(Exception):
            sidecar.stop()
    ledger = SqliteLedger(data / "verdict.sqlite3")
    try:
        stored = {seq for seq, _ in ledger.events(keys.table)}
        assert {a.seq for a in acked} | {after.seq} <= stored  # every acknowledged roll is on disk
        assert [s for s, _ in ledger.events(other_table)] == [1]
    finally:
        ledger.close()
