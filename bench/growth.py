"""Figure 7: what a long campaign costs a restart: the first load of a table (what its first join reads and
folds) and the resident memory it then takes, at 1,000, 10,000 and 100,000 events, from its snapshot and the
events after it, against a full fold of every event (the snapshot deleted: how every load went before);
and the memory per loaded table.

Each measurement runs in a child process of its own (``python -m bench.growth load WHERE TABLE MODE``), so its
memory is its own. The ledgers are built once in a temporary folder (rolls in every mode, a third of them a
player's; checks without follow-ups, which the table no longer holds once rolled); then the same events, and
the same snapshot, are copied into a shared PostgreSQL ledger (a real server, as ``tests/pgserver.py``
starts one) and loaded from there the same way.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .common import ROOT, Row

SIZES = (1_000, 10_000, 100_000)
TAIL = 500
"""Events after the snapshot (half the default interval between two)."""
TABLES = 200
"""Tables loaded in one process for the memory per loaded table."""


def _rss_kib() -> int:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * 4


def build(path: Path, events: int, tail: int) -> str:
    """A ledger holding a table of ``events`` events, snapshotted ``tail`` events before its head."""
    from protocol.v1 import messages as m
    from protocol.v1.facets import FacetsCheck
    from sidecar.state.ledger import SqliteLedger
    from sidecar.state.table import SNAPSHOT_VERSION, Table
    from sidecar.state.visibility import Viewer

    ledger = SqliteLedger(path, synchronous="OFF")
    keys = ledger.create_table("campaign")
    table = Table(keys.table, ledger)
    table.load()
    modes: list[m.RollMode] = ["public", "gm", "self", "public"]
    i = 0
    while table.head < events:
        viewer = Viewer("player", "ann") if i % 3 else Viewer("gm", "gm")
        msg = m.Roll(id="x", check=FacetsCheck(pool=2, dice=[1 + i % 6, 1 + i // 6 % 6]), mode=modes[i % 4])
        pending = table.prepare_roll(msg, viewer, viewer.user)
        ledger.append_sync(keys.table, pending.encoded(), None)
        table.commit(pending)
        if table.head >= events - tail and table.snapshot_seq == 0:
            table.snapshot(Viewer("player", None))  # the shared players' view held, as a table with players has
            ledger.store_snapshot_sync(keys.table, table.head, SNAPSHOT_VERSION, table.saved())
            table.snapshot_seq = table.head
        i += 1
    ledger.close()
    return keys.table


def copy_to_postgres(path: Path, table_id: str, url: str) -> str:
    """The table of the SQLite ledger at ``path`` copied, events and snapshot, into a new table at ``url``."""
    from sidecar.state.ledger import SqliteLedger, open_ledger

    source = SqliteLedger(path)
    target = open_ledger(url, Path("."))
    copy = target.create_table("campaign").table
    events = source.events(table_id)
    for at in range(0, len(events), 1000):
        target.append_sync(copy, events[at : at + 1000], None)
    found = source.snapshot(table_id)
    assert found is not None
    asyncio.run(_store(target, copy, found))
    source.close()
    target.close()
    return copy


async def _store(ledger: Any, table_id: str, found: tuple[int, str, bytes]) -> None:
    await ledger.store_snapshot(table_id, *found)
    await ledger.aclose()


def load(where: str, table_id: str, mode: str) -> dict[str, float]:
    """In this process: the table's first load (``snapshot``: as it is; ``full``: every event folded)."""
    from sidecar.state.ledger import SqliteLedger, open_ledger
    from sidecar.state.table import Table

    ledger: Any = open_ledger(where, Path(".")) if where.startswith("postgresql:") else SqliteLedger(where)
    if mode == "full":
        ledger.delete_snapshots(table_id)
    before = _rss_kib()

    async def first_load() -> dict[str, float]:
        table = Table(table_id, ledger)
        t0 = time.perf_counter()
        await table.read()
        await ledger.find_window(table_id)
        took = time.perf_counter() - t0
        rss = (_rss_kib() - before) / 1024
        held = len(table.state.checks) + sum(len(view.checks) for view in table.views.values())
        await ledger.aclose()
        return {"ms": took * 1000, "rss_mib": rss, "checks_held": held}

    figures = asyncio.run(first_load())
    ledger.close()
    return figures


def per_table(path: str, count: int) -> dict[str, float]:
    """In this process: the resident memory of ``count`` small tables loaded through the hub, per table."""
    from sidecar.server.hub import Hub
    from sidecar.state.ledger import SqliteLedger

    ledger = SqliteLedger(path)
    ids = [t.id for t in ledger.tables()]

    async def open_all() -> float:
        hub = Hub(ledger)
        before = _rss_kib()
        for table_id in ids:
            await hub.open_table(table_id)
        after = _rss_kib()
        hub.close()
        return (after - before) / len(ids)

    return {"kib": asyncio.run(open_all())}


def _child(*args: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-m", "bench.growth", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def _figures(
    rows: list[Row],
    where: str,
    size: int,
    table_id: str,
    smallest: tuple[int, dict[str, float]] | None,
    ledger: str,
) -> tuple[int, dict[str, float]]:
    """The rows of one table's loads; what they are compared with (the first size's), and at what size."""
    snap = _child("load", where, table_id, "snapshot")
    full_fold = _child("load", where, table_id, "full")  # (it deletes the snapshot: after)
    first_size, first = smallest or (size, snap)
    rows.append(
        Row(
            "7",
            f"first load at {size:,} events, {ledger}",
            snap["ms"],
            "full fold",
            full_fold["ms"],
            "ms",
            False,
            note=f"{snap['ms'] / first['ms']:.2f}× the load at {first_size:,}; checks held {snap['checks_held']:.0f}",
        )
    )
    rows.append(
        Row(
            "7",
            f"its memory at {size:,} events, {ledger}",
            snap["rss_mib"],
            "full fold",
            full_fold["rss_mib"],
            "MiB",
            False,
            note=f"{snap['rss_mib'] / max(first['rss_mib'], 0.01):.2f}× at {first_size:,}",
        )
    )
    return first_size, first


def run(full: bool = False, sizes: tuple[int, ...] = SIZES, tables: int = TABLES) -> list[Row]:
    """The first load at each of ``sizes`` events, on SQLite and PostgreSQL; the memory of ``tables`` tables."""
    from tests.pgserver import PgServer, bin_dir

    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="verdict-growth-") as tmp:
        pg = PgServer().start() if bin_dir() is not None else None
        try:
            smallest: tuple[int, dict[str, float]] | None = None
            shared: tuple[int, dict[str, float]] | None = None
            copies = []
            for size in sizes:
                path = Path(tmp) / f"t{size}.sqlite3"
                table_id = build(path, size, min(TAIL, size // 2))
                if pg is not None:  # copied before the full fold's load deletes the snapshot
                    url = pg.create_database()
                    copies.append((size, url, copy_to_postgres(path, table_id, url)))
                smallest = _figures(rows, str(path), size, table_id, smallest, "SQLite")
            for size, url, copy in copies:
                shared = _figures(rows, url, size, copy, shared, "PostgreSQL")
        finally:
            if pg is not None:
                pg.stop()
        path = Path(tmp) / "many.sqlite3"
        from sidecar.state.ledger import SqliteLedger

        ledger = SqliteLedger(path, synchronous="OFF")
        for i in range(tables):
            ledger.create_table(f"t{i}")
        ledger.close()
        each = _child("tables", str(path), str(tables))
        rows.append(Row("7", f"memory per loaded table ({tables} new tables)", each["kib"], "", 0.0, "KiB", False))
    return rows


def smallest() -> list[Row]:
    """Every row, from two small tables (the second compared with the first) and two loaded through the hub."""
    return run(sizes=(10, 20), tables=2)


if __name__ == "__main__":
    if sys.argv[1:2] == ["load"]:
        print(json.dumps(load(sys.argv[2], sys.argv[3], sys.argv[4])), flush=True)
        os._exit(0)  # (nothing left to wait for: a pool's threads are not)
    elif sys.argv[1:2] == ["tables"]:
        print(json.dumps(per_table(sys.argv[2], int(sys.argv[3]))))
    else:
        from .common import table

        print(table(run()))
