"""Figure 2: round trip over the websocket, a roll request to its ``rolled`` reply, on loopback.

The client is another process (:mod:`bench.clients` ``rtt``, the ``websockets`` library that
:mod:`sidecar.client` uses, no compression) doing one round trip after another. Verdict runs with its
ledger on the disk (an fsync per commit: what a host pays) and on tmpfs (the same work without the
fsync); the anchor is a bare aiohttp echo server answering the same request with a frame of the
size of Verdict's reply, in the same run.
"""

from __future__ import annotations

from typing import Any

from .common import Row, data_dir, percentile, run_clients, start_server


def _rtt(server: Any, count: int, warmup: int) -> dict[str, Any]:
    tables = server.info["tables"] or [["echo", "-", "-"]]
    table, gm, _ = tables[0]
    out = run_clients("bench.clients", ["rtt", server.url, table, gm, "--count", str(count),
                                        "--warmup", str(warmup)], 1, timeout=600)[0]
    if out["errors"]:
        raise RuntimeError(f"{out['errors']} round trips were answered with an error")
    return out


def run(full: bool = False) -> list[Row]:
    count, warmup = (20000, 1000) if full else (3000, 300)
    results: dict[str, dict[str, Any]] = {}
    size = 0
    for where in ("disk", "tmpfs"):
        d = data_dir(where)
        try:
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
        note = f"{count:,} round trips; reply {out['reply_size']} B"
        rows.append(Row("round trip", f"p50, ledger on {label}", percentile(lat, 50), "aiohttp echo p50", e50, "µs",
                        higher_is_better=False, target=1.3, note=note))
        rows.append(Row("round trip", f"p99, ledger on {label}", percentile(lat, 99), "aiohttp echo p99", e99, "µs",
                        higher_is_better=False, target=1.5, note=note))
    return rows + parts()


def _ledger_parts(where: str, count: int = 400) -> tuple[str, float, float]:
    """p50 of a durable append through the writer thread, and of the same commit run directly
    (no thread hand-off), in this process: what a roll's round trip cannot do without."""
    import asyncio
    import time

    from sidecar.state.ledger import SqliteLedger

    d = data_dir(where)
    try:
        ledger = SqliteLedger(d.path / "verdict.sqlite3")
        table = ledger.create_table("parts").table
        event, reply = b"e" * 400, b"r" * 480

        async def through_thread() -> list[float]:
            out = []
            for i in range(count):
                t = time.perf_counter()
                await ledger.append(table, [(i + 1, event)], (f"a-{i}", "gm", reply))
                out.append((time.perf_counter() - t) * 1e6)
            return out

        appended = asyncio.run(through_thread())
        db = ledger._connect()
        direct = []
        for i in range(count):
            t = time.perf_counter()
            ledger._write(db, [(table, [(count + i + 1, event)], (f"b-{i}", "gm", reply))])
            direct.append((time.perf_counter() - t) * 1e6)
        db.close()
        ledger.close()
        return d.label, percentile(appended, 50), percentile(direct, 50)
    finally:
        d.cleanup()


def parts() -> list[Row]:
    rows = []
    for where in ("disk", "tmpfs"):
        label, appended, direct = _ledger_parts(where)
        rows.append(Row("round trip, part", f"durable append via the writer thread, {label}", appended, "", 0, "µs",
                        higher_is_better=False, note="p50; the commit below plus the hand-off to and from the thread"))
        rows.append(Row("round trip, part", f"the same commit run directly, {label}", direct, "", 0, "µs",
                        higher_is_better=False, note="p50; SQLite WAL, synchronous=FULL"))
    return rows
