"""Figure 2: round trip over the websocket, a roll request to its ``rolled`` reply, on loopback.

The client is another process (:mod:`bench.clients` ``rtt``, the ``websockets`` library that
:mod:`sidecar.client` uses, no compression) doing one round trip after another. Verdict runs with its
ledger on the disk (an fsync per commit: what a host pays) and on tmpfs (the same work without the
fsync); the anchor is a bare aiohttp echo server answering the same request with a frame of the
size of Verdict's reply, in the same run.

The targets are against the floor a durable roll cannot go under, measured in the same run: on the disk,
p50 at most 1.3× the echo's p50 plus one durable commit (a one-row SQLite WAL commit with
``synchronous=FULL`` in the ledger's directory), p99 at most 1.5× the echo's p99 plus that commit; on tmpfs,
where the commit is nearly free, p50 and p99 at most 1.5× the echo's. Every server and the client run on
the loop ``verdict serve`` runs on by default (:func:`bench.common.loop_name`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .common import Row, Server, data_dir, percentile, run_clients, run_on_loop, start_server


def _rtt(server: Server, count: int, warmup: int) -> dict[str, Any]:
    tables = server.info["tables"] or [["echo", "-", "-"]]
    table, gm = tables[0][:2]
    # the key as ``--key=K``: a key may begin with "-" (base64url), which argparse takes for an option
    args = ["rtt", server.url, f"--table={table}", f"--key={gm}", "--count", str(count), "--warmup", str(warmup)]
    out = run_clients("bench.clients", args, 1, timeout=600)[0]
    if out["errors"]:
        raise RuntimeError(f"{out['errors']} round trips were answered with an error")
    return out


def durable_commit(directory: Path, count: int = 400) -> float:
    """p50 of one durable commit in ``directory``: a one-row SQLite insert in WAL mode with
    ``synchronous=FULL`` (an fsync per commit), in a file of its own. The floor of a roll's round trip."""
    import sqlite3
    import time

    path = directory / "floor.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB NOT NULL)")
        row = b"e" * 480
        out = []
        for i in range(count + 20):
            t = time.perf_counter()
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO t (k, v) VALUES (?, ?)", (i, row))
            db.execute("COMMIT")
            if i >= 20:
                out.append((time.perf_counter() - t) * 1e6)
        return percentile(out, 50)
    finally:
        db.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)


def run(full: bool = False, count: int | None = None, warmup: int | None = None, commits_count: int = 400) -> list[Row]:
    """``count`` round trips after ``warmup`` against each server; ``commits_count`` commits for each floor
    and each of the ledger's parts."""
    count = count or (20000 if full else 3000)
    warmup = warmup if warmup is not None else (1000 if full else 300)
    results: dict[str, dict[str, Any]] = {}
    commits: dict[str, float] = {}
    size = 0
    for where in ("disk", "tmpfs"):
        d = data_dir(where)
        try:
            commits[d.label] = durable_commit(d.path, commits_count)
            with start_server("verdict", data=d.path) as server:
                results[d.label] = out = _rtt(server, count, warmup)
                size = size or out["reply_size"]
        finally:
            d.cleanup()
    with start_server("echo", reply_size=size) as server:
        echo = _rtt(server, count, warmup)
    rows = []
    e50, e99 = percentile(echo["latencies_us"], 50), percentile(echo["latencies_us"], 99)
    for label, out in results.items():
        lat = out["latencies_us"]
        p50, p99 = percentile(lat, 50), percentile(lat, 99)
        note = f"{count:,} round trips; reply {out['reply_size']} B"
        floor, floor99 = e50 + commits[label], e99 + commits[label]
        anchor = f"echo p50 {e50:.0f} + commit {commits[label]:.0f}"
        if label == "tmpfs":  # the commit is nearly free here: the target is on the echo alone
            rows.append(
                Row(
                    "round trip",
                    f"p50, ledger on {label}",
                    p50,
                    "echo p50",
                    e50,
                    "µs",
                    higher_is_better=False,
                    target=1.5,
                    note=note,
                )
            )
            rows.append(
                Row(
                    "round trip",
                    f"p99, ledger on {label}",
                    p99,
                    "echo p99",
                    e99,
                    "µs",
                    higher_is_better=False,
                    target=1.5,
                    note=note,
                )
            )
        else:
            rows.append(
                Row(
                    "round trip",
                    f"p50, ledger on {label}",
                    p50,
                    anchor,
                    floor,
                    "µs",
                    higher_is_better=False,
                    target=1.3,
                    note=note + "; the floor: echo + one durable commit",
                )
            )
            rows.append(
                Row(
                    "round trip",
                    f"p99, ledger on {label}",
                    p99,
                    f"echo p99 {e99:.0f} + commit {commits[label]:.0f}",
                    floor99,
                    "µs",
                    higher_is_better=False,
                    target=1.5,
                    note=note,
                )
            )
        rows.append(
            Row(
                "round trip, part",
                f"one durable commit (the floor's), {label}",
                commits[label],
                "",
                0,
                "µs",
                higher_is_better=False,
                note="p50; a one-row SQLite WAL commit, synchronous=FULL, same directory",
            )
        )
    return rows + parts(commits_count)


def _ledger_parts(where: str, count: int = 400) -> tuple[str, float, float, float]:
    """p50 of a durable append committed on the loop's thread, through the writer thread, and of the
    same commit run directly, in this process: what a roll's round trip cannot do without."""
    import time

    from sidecar.state.ledger import SqliteLedger, requester

    d = data_dir(where)
    try:
        event, reply, gm = b"e" * 400, b"r" * 480, requester("gm", None)
        appended = {}
        for commit in ("loop", "thread"):
            ledger = SqliteLedger(d.path / f"{commit}.sqlite3", commit=commit)
            table = ledger.create_table("parts").table

            async def appends(ledger: SqliteLedger = ledger, table: str = table) -> list[float]:
                out = []
                for i in range(count):
                    t = time.perf_counter()
                    await ledger.append(table, [(i + 1, event)], (f"a-{i}", "gm", reply, gm))
                    out.append((time.perf_counter() - t) * 1e6)
                return out

            appended[commit] = percentile(run_on_loop(appends()), 50)
            ledger.close()
        ledger = SqliteLedger(d.path / "verdict.sqlite3")
        table = ledger.create_table("parts").table
        db = ledger._connect()
        direct = []
        for i in range(count):
            t = time.perf_counter()
            ledger._write(db, [(table, [(count + i + 1, event)], (f"b-{i}", "gm", reply, gm))])
            direct.append((time.perf_counter() - t) * 1e6)
        db.close()
        ledger.close()
        return d.label, appended["loop"], appended["thread"], percentile(direct, 50)
    finally:
        d.cleanup()


def parts(count: int = 400) -> list[Row]:
    rows = []
    for where in ("disk", "tmpfs"):
        label, on_loop, threaded, direct = _ledger_parts(where, count)
        rows.append(
            Row(
                "round trip, part",
                f"durable append committed on the loop's thread, {label}",
                on_loop,
                "",
                0,
                "µs",
                higher_is_better=False,
                note="p50; the commit below plus a turn of the loop (kept for comparison: the default commits on the writer thread)",
            )
        )
        rows.append(
            Row(
                "round trip, part",
                f"durable append via the writer thread, {label}",
                threaded,
                "",
                0,
                "µs",
                higher_is_better=False,
                note="p50; the commit below plus the hand-off to and from the thread",
            )
        )
        rows.append(
            Row(
                "round trip, part",
                f"the same commit run directly, {label}",
                direct,
                "",
                0,
                "µs",
                higher_is_better=False,
                note="p50; SQLite WAL, synchronous=FULL",
            )
        )
    return rows


def smallest() -> list[Row]:
    """Every row, from a few round trips and commits each."""
    return run(count=20, warmup=2, commits_count=5)
