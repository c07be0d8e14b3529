"""Figure 3: load. 1,000 connections in tables of 8 (one GM, seven players), every roll broadcast.

Client processes (:mod:`bench.clients` ``load``, aiohttp) open the connections, say hello, and once
all are in, every connection rolls in a closed loop for a fixed time: one request in flight, the next
sent when its reply is in, while it also takes the seven other players' broadcasts. Figures: rolls
answered per second over the window, p99 of the request-to-reply time, and errors (error replies,
replies missing after 10 s, connections lost or refused), which must be 0. The anchor is the echo
server (:mod:`bench.serve`) answering and broadcasting frames of the same size to the same groups.
Verdict runs with its ledger on the disk and on tmpfs. The server's CPU use over the window says
whether it was the bottleneck (1 s per s is one core, all a Python process can use).
"""

from __future__ import annotations

import time
from typing import Any

from .common import ClientProcs, Measured, Row, data_dir, percentile, plan_file, start_server

PROCESSES = 2


def measure(
    server: Measured,
    connections: int,
    duration: float,
    route: str = "round-robin",
    pace: float = 0.0,
    processes: int = PROCESSES,
) -> dict[str, Any]:
    """``connections`` (in tables of 8, opened by ``processes`` client processes) rolling against ``server`` for
    ``duration`` seconds: the rate, the latencies, the errors, and the server's CPU over the window."""
    plan = plan_file(server, connections)
    args = ["load", server.url, "--plan", str(plan), "--duration", str(duration), "--route", route]
    args += ["--pace", str(pace)]
    try:
        with ClientProcs("bench.clients", args, processes) as clients:
            clients.ready()
            cpu0, loop0, t0 = server.cpu(), server.loop_cpu(), time.monotonic()
            clients.go()
            results = clients.results(timeout=duration + 120)
            window = time.monotonic() - t0
            cpu = (server.cpu() - cpu0) / window
            loop_cpu = (server.loop_cpu() - loop0) / window
    finally:
        plan.unlink()
    lat = [x for r in results for x in r["latencies_us"]]
    completed = sum(r["completed"] for r in results)
    elapsed = max(r["elapsed"] for r in results)
    errors = sum(r["errors"] + r["timeouts"] + r["connect_failures"] for r in results)
    errors += connections - sum(r["connections"] for r in results) - sum(r["connect_failures"] for r in results)
    return {
        "rate": completed / elapsed,
        "p99": percentile(lat, 99),
        "p50": percentile(lat, 50),
        "errors": errors,
        "cpu": cpu,
        "loop_cpu": loop_cpu,
        "window": window,
        "received": sum(r["received"] for r in results) / elapsed,
        "timeouts": sum(r["timeouts"] for r in results),
        "error_replies": sum(r["errors"] for r in results),
    }


def run(
    full: bool = False, connections: int = 1000, duration: float | None = None, processes: int = PROCESSES
) -> list[Row]:
    duration = duration or (30.0 if full else 10.0)
    results: dict[str, dict[str, Any]] = {}
    for where in ("disk", "tmpfs"):
        d = data_dir(where)
        try:
            with start_server("verdict", data=d.path, tables=connections // 8) as server:
                results[d.label] = measure(server, connections, duration, processes=processes)
        finally:
            d.cleanup()
    with start_server("echo", reply_size=450) as server:
        echo = measure(server, connections, duration, processes=processes)
    rows = []
    for label, r in results.items():
        note = (
            f"{connections:,} connections, {duration:g} s; p50 {r['p50'] / 1000:.1f} ms; "
            f"server CPU {r['cpu']:.2f} s/s (echo {echo['cpu']:.2f}); frames out {r['received']:,.0f}/s"
        )
        rows.append(
            Row(
                "load",
                f"rolls/s, ledger on {label}",
                r["rate"],
                "echo broadcast",
                echo["rate"],
                "/s",
                target=0.7,
                note=note,
            )
        )
        rows.append(
            Row(
                "load",
                f"p99 latency, ledger on {label}",
                r["p99"] / 1000,
                "echo p99",
                echo["p99"] / 1000,
                "ms",
                higher_is_better=False,
                target=2.0,
            )
        )
        rows.append(
            Row(
                "load",
                f"server CPU per roll, ledger on {label}",
                r["cpu"] / r["rate"] * 1e6,
                "echo's per roll",
                echo["cpu"] / echo["rate"] * 1e6,
                "µs",
                higher_is_better=False,
                note="the server's own cost, less moved by other work on the machine than the rates; "
                f"{r['loop_cpu'] / r['rate'] * 1e6:,.0f} µs of it on the event loop's thread, the rest the ledger's",
            )
        )
        rows.append(
            Row(
                "load",
                f"errors, ledger on {label}",
                r["errors"],
                "",
                0,
                "",
                higher_is_better=False,
                limit=1,
                note="must be 0" + (f"; echo had {echo['errors']}" if echo["errors"] else ""),
            )
        )
    return rows


def smallest() -> list[Row]:
    """Every row of the figure from the least load that makes them: two tables, a fraction of a second."""
    return run(connections=16, duration=0.3, processes=1)
