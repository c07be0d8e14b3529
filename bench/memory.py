"""Figure 4: resident memory of the sidecar idle and with 1,000 and 5,000 idle connections.

Each connection has said hello to a table of 8 (one GM, seven players), so it holds everything a
quiet player at a table costs: the socket, aiohttp's websocket state, the per-socket and per-table
records, and its share of the table. Bytes per connection is the growth from idle (tables created,
server listening) divided by the count. The same is measured for the echo anchor. The connections
are held by client processes (aiohttp); RSS is read from /proc.

The project's modules are compiled to bytecode before any server starts. A server that compiles them itself
(a fresh checkout, or ``PYTHONDONTWRITEBYTECODE`` set) starts with 1.4–2 MB of freed memory in its heap,
which its first thousand connections then reuse: the figure at 1,000 read some 2 KiB a connection lower so,
and two trees measured in different states could not be compared.
"""

from __future__ import annotations

import compileall
import gc
import time
from collections.abc import Sequence
from pathlib import Path

from .common import ROOT, ClientProcs, Row, Server, data_dir, plan_file, start_server

PROCESSES = 2
SETTLE = 2.0


def _rss_with(server: Server, connections: int, settle: float, processes: int) -> int:
    plan = plan_file(server, connections)
    try:
        with ClientProcs("bench.clients", ["idle", server.url, "--plan", str(plan)], processes) as clients:
            clients.ready()
            time.sleep(settle)
            rss = server.rss()
            clients.go("stop")
            results = clients.results(timeout=120)
    finally:
        plan.unlink()
    held = sum(r["connections"] for r in results)
    if held != connections:
        raise RuntimeError(f"only {held} of {connections} connections were held")
    return rss


def _measure(
    kind: str, counts: Sequence[int], settle: float, processes: int, data: Path | None = None
) -> dict[int, int]:
    out = {}
    for n in [0, *counts]:
        # A fresh server for each count: RSS rarely shrinks after connections close.
        with start_server(kind, data=data, tables=max(counts) // 8) as server:
            time.sleep(settle)
            out[n] = server.rss() if n == 0 else _rss_with(server, n, settle, processes)
    return out


PACKAGES = ("protocol", "sidecar", "bench")
"""The project's packages a server imports."""


def compiled() -> None:
    """Write the bytecode of :data:`PACKAGES`, whatever the environment says."""
    for package in PACKAGES:
        compileall.compile_dir(ROOT / package, quiet=1)


def run(
    full: bool = False, counts: Sequence[int] = (1000, 5000), settle: float = SETTLE, processes: int = PROCESSES
) -> list[Row]:
    """RSS idle and with each of ``counts`` idle connections (held by ``processes`` client processes), read
    ``settle`` seconds after they are in."""
    compiled()
    d = data_dir("tmpfs")
    try:
        ours = _measure("verdict", counts, settle, processes, d.path)
    finally:
        d.cleanup()
    echo = _measure("echo", counts, settle, processes)
    gc.collect()
    rows = [
        Row(
            "memory",
            "RSS idle",
            ours[0] / 2**20,
            "echo idle",
            echo[0] / 2**20,
            "MiB",
            higher_is_better=False,
            note=f"{max(counts) // 8} tables created",
        )
    ]
    for n in counts:
        rows.append(
            Row(
                "memory",
                f"RSS, {n:,} idle connections",
                ours[n] / 2**20,
                f"echo, {n:,}",
                echo[n] / 2**20,
                "MiB",
                higher_is_better=False,
            )
        )
        per, echo_per = (ours[n] - ours[0]) / n / 1024, (echo[n] - echo[0]) / n / 1024
        rows.append(
            Row("memory", f"per connection, {n:,}", per, "echo", echo_per, "KiB", higher_is_better=False, limit=64)
        )
    return rows


def smallest() -> list[Row]:
    """Every row, from two tables' connections read at once."""
    return run(counts=(16,), settle=0.0, processes=1)
