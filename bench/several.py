"""Figure 6: several sidecars over one PostgreSQL ledger, against one sidecar (and one on SQLite).

The load figure's shape (:mod:`bench.load`): 1,000 connections in tables of 8, every connection rolling
in a closed loop, every roll broadcast to the table. With several sidecars the connections reach them
in one of two ways. Routed by table (what deploy/Caddyfile.several does: the table id in the socket's
URL, rendezvous hashing at the proxy, :mod:`bench.routing`): a table's eight sockets reach one sidecar,
and the others never decode its events. Round robin (the way before): a table's eight people sit on
different sidecars and every roll crosses the bus (``NOTIFY``, then the events applied) to reach most
of them, on every sidecar holding the table.

PostgreSQL runs here, durable (``fsync`` and ``synchronous_commit`` on, its defaults), on the same file
system as the SQLite ledger (``synchronous=FULL``). The cost of a roll is the CPU time all the servers
(sidecars and PostgreSQL) spent per roll answered; its ratio to one sidecar's, measured in the same
run, is the figure (the issue's target: within 1.3x at 2 and 4 sidecars, routed). On a machine with
few cores, sidecars, PostgreSQL and the client processes share them: rates and latencies there show
that the rolls spread over the sidecars correctly more than how far they scale.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import Row, Server, data_dir, fs_type, percentile, run_clients, start_server
from .load import PROCESSES, measure

if TYPE_CHECKING:
    from tests.pgserver import PgServer

SIDECARS = (1, 2, 4)
RUNS = ((1, "table"), (2, "round-robin"), (2, "table"), (4, "round-robin"), (4, "table"))
"""(sidecars, routing) in the order run: the two ways alternate, so drift on the machine hits both."""
TARGET = 1.3
"""CPU per roll with several sidecars, routed by table, at most this times one sidecar's."""


class Group:
    """Several sidecars on one ledger, seen by the load driver as one server with several URLs."""

    def __init__(self, servers: list[Server], pg: PgServer | None) -> None:
        self.servers = servers
        self.pg = pg
        self.info = servers[0].info
        self.readings: list[tuple[float, float]] = []
        """Each :meth:`cpu` reading's parts: (sidecars, database)."""

    @property
    def url(self) -> str:
        return ",".join(s.url for s in self.servers)

    def cpu(self) -> float:
        parts = (sum(s.cpu() for s in self.servers), _cluster_cpu(self.pg) if self.pg is not None else 0.0)
        self.readings.append(parts)
        return sum(parts)

    def loop_cpu(self) -> float:
        """The sidecars' event loop threads (PostgreSQL has none: its CPU is all the ledger's)."""
        return sum(s.loop_cpu() for s in self.servers)

    def split(self) -> tuple[float, float]:
        """CPU seconds of the sidecars and of the database between the last two readings (a load's window)."""
        (s0, d0), (s1, d1) = self.readings[-2:]
        return s1 - s0, d1 - d0


def _cluster_cpu(pg: PgServer) -> float:
    """CPU seconds used by the PostgreSQL cluster: the postmaster, its live children and the reaped ones."""
    try:
        postmaster = int((pg.data / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, ppid = int(entry.name), int(fields[1])
        if pid == postmaster:
            total += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
        elif ppid == postmaster:
            total += int(fields[11]) + int(fields[12])
    return total / tick


@contextmanager
def _sidecars(n: int, tables: int, pg: PgServer, url: str) -> Iterator[Group]:
    """``n`` sidecars on the ledger at ``url``, the first making the tables, each with its own data folder;
    stopped and cleaned up on leaving."""
    dirs = [data_dir("disk") for _ in range(n)]
    servers: list[Server] = []
    try:
        servers.append(start_server("verdict", data=dirs[0].path, tables=tables, ledger=url))
        for i in range(1, n):
            servers.append(start_server("verdict", data=dirs[i].path, tables=0, ledger=url))
            servers[-1].info["tables"] = servers[0].info["tables"]
        time.sleep(0.5)  # the buses connect
        yield Group(servers, pg)
    finally:
        for s in servers:
            s.stop()
        for x in dirs:
            x.cleanup()


def _rtt(url: str, info: dict[str, Any], count: int) -> float:
    table, gm = info["tables"][0][:2]
    out = run_clients(
        "bench.clients",
        ["rtt", url, f"--table={table}", f"--key={gm}", "--count", str(count), "--warmup", str(count // 10)],
        1,
        timeout=300,
    )
    return percentile(out[0]["latencies_us"], 50)


def _split(r: dict[str, Any]) -> str:
    """A load's CPU per roll, sidecars and database apart."""
    done = r["rate"] * r["window"]
    sidecars, database = r["split"]
    return f"{sidecars / done * 1e6:,.0f} + {database / done * 1e6:,.0f} µs"


def _plural(n: int) -> str:
    return f"{n} sidecar{'s' if n > 1 else ''}"


def run(
    full: bool = False,
    connections: int = 1000,
    duration: float | None = None,
    rtt_count: int = 1000,
    runs: tuple[tuple[int, str], ...] = RUNS,
    cluster_each: bool = True,
    processes: int = PROCESSES,
) -> list[Row]:
    """Figure 6: ``runs`` (sidecars, routing) of ``connections`` (opened by ``processes`` client processes) rolling
    for ``duration`` seconds, each on a fresh PostgreSQL cluster (``cluster_each``; else one cluster, a fresh
    database each), against one sidecar on SQLite; each lone round trip from ``rtt_count`` rolls."""
    from tests.pgserver import MISSING, PgServer, bin_dir

    if bin_dir() is None:
        return [Row("several", f"skipped: {MISSING}", float("nan"), "", 0, "")]
    duration = duration or (30.0 if full else 10.0)
    cores = os.cpu_count() or 1
    tables = connections // 8
    d = data_dir("disk")
    try:
        with start_server("verdict", data=d.path, tables=tables) as server:
            base = measure(Group([server], None), connections, duration, processes=processes)
            base_rtt = _rtt(server.url, server.info, rtt_count)
    finally:
        d.cleanup()
    results: dict[tuple[int, str], dict[str, Any]] = {}
    rtts: dict[int, float] = {}
    shared = None if cluster_each else PgServer(durable=True).start()
    try:
        for n, route in runs:
            # A fresh cluster each (unless one is shared): no run pays for the last one's dead rows, WAL or checkpoints.
            pg = shared or PgServer(durable=True).start()
            try:
                url = pg.create_database()
                with _sidecars(n, tables, pg, url) as group:
                    results[n, route] = measure(group, connections, duration, route, processes=processes)
                    results[n, route]["split"] = group.split()
                    if n == 1:
                        first = group.servers[0]
                        rtts[n] = _rtt(first.url, first.info, rtt_count)
            finally:
                if pg is not shared:
                    pg.stop()
    finally:
        if shared is not None:
            shared.stop()
    fs = fs_type(d.path.parent)
    rows = []
    one = results[1, "table"]
    one_cost = one["cpu"] / one["rate"] * 1e6
    for (n, route), r in results.items():
        how = "" if n == 1 else (", routed by table" if route == "table" else ", round robin")
        case = f"{_plural(n)} on PostgreSQL{how}"
        note = (
            f"{cores} cores; {connections:,} connections, {duration:g} s; p50 {r['p50'] / 1000:.1f} ms; "
            f"CPU of sidecars + PostgreSQL {r['cpu']:.2f} s/s; errors {r['errors']}: {r['timeouts']} replies later "
            f"than 10 s, {r['error_replies']} error replies (SQLite: {base['errors']})"
        )
        rows.append(Row("several", f"rolls/s, {case}", r["rate"], "1 sidecar on SQLite", base["rate"], "/s", note=note))
        rows.append(
            Row(
                "several",
                f"p99 latency, {case}",
                r["p99"] / 1000,
                "SQLite p99",
                base["p99"] / 1000,
                "ms",
                higher_is_better=False,
            )
        )
        if n > 1:
            rows.append(
                Row(
                    "several",
                    f"server CPU per roll, {case}",
                    r["cpu"] / r["rate"] * 1e6,
                    "1 sidecar on PostgreSQL",
                    one_cost,
                    "µs",
                    higher_is_better=False,
                    target=TARGET if route == "table" else None,
                    note=f"sidecars + database, in this run: {_split(r)} (1 sidecar: {_split(one)})"
                    + ("" if route == "table" else "; the way before: a table's sockets on every sidecar"),
                )
            )
        rows.append(
            Row(
                "several",
                f"errors, {case}",
                r["errors"],
                "",
                0,
                "",
                higher_is_better=False,
                limit=1,
                note="must be 0",
            )
        )
    rows.append(
        Row(
            "several",
            "server CPU per roll, PostgreSQL (1 sidecar + database)",
            one_cost,
            "SQLite",
            base["cpu"] / base["rate"] * 1e6,
            "µs",
            higher_is_better=False,
            note=f"under the load above; both ledgers durable on {fs}",
        )
    )
    rows.append(
        Row(
            "several",
            "one roll's round trip (p50, alone), PostgreSQL",
            rtts[1] / 1000,
            "SQLite",
            base_rtt / 1000,
            "ms",
            higher_is_better=False,
            note="one connection, one request at a time: a commit each",
        )
    )
    return rows


def smallest() -> list[Row]:
    """Every kind of row from the least load that makes them: two tables, one sidecar and two (routed by table
    and round robin), a fraction of a second each, on one cluster."""
    runs = ((1, "table"), (2, "round-robin"), (2, "table"))
    return run(connections=16, duration=0.3, rtt_count=10, runs=runs, cluster_each=False, processes=1)


def _commits(url: str) -> int:
    """Transactions committed in the benchmark's database so far (PostgreSQL's own count)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        row = db.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()").fetchone()
    return int(row[0]) if row else 0


def routed(
    connections: int = 400,
    duration: float = 10.0,
    repeats: int = 2,
    pace: float = 0.0,
    sidecars: tuple[int, ...] = SIDECARS,
) -> list[dict[str, Any]]:
    """Each of ``sidecars`` routed by table, ``repeats`` times (the configurations alternate, so drift on a
    shared machine hits each alike): one record per run with the load average around it, the CPU of the
    sidecars and of the database per roll, and the commits per roll. For the 1.3x figure on a loaded
    machine, where one run of each says little and the medians say more."""
    from tests.pgserver import PgServer

    tables = connections // 8
    out: list[dict[str, Any]] = []
    for rep in range(repeats):
        for n in sidecars:
            pg = PgServer(durable=True).start()
            try:
                url = pg.create_database()
                with _sidecars(n, tables, pg, url) as group:
                    load_before = os.getloadavg()[0]
                    commits = _commits(url)
                    r = measure(group, connections, duration, "table", pace)
                    commits = _commits(url) - commits
                    sidecar_cpu, database_cpu = group.split()
                    done = r["rate"] * r["window"]
                    record = {
                        "repeat": rep,
                        "sidecars": n,
                        "pace": pace,
                        "load": [round(load_before, 1), round(os.getloadavg()[0], 1)],
                        "rate": round(r["rate"], 1),
                        "errors": r["errors"],
                        "cpu_us": round(r["cpu"] / r["rate"] * 1e6),
                        "sidecars_us": round(sidecar_cpu / done * 1e6),
                        "database_us": round(database_cpu / done * 1e6),
                        "commits_per_roll": round(commits / done, 2),
                        "p50_ms": round(r["p50"] / 1000, 1),
                    }
                    print(json.dumps(record), flush=True)
                    out.append(record)
            finally:
                pg.stop()
    return out


def bystanders(extra: int = 3, connections: int = 400, duration: float = 10.0) -> dict[str, Any]:
    """What sidecars that hold no table pay for another's rolls: one sidecar serves every connection in a
    closed loop while ``extra`` others only listen to the ledger; their CPU per roll of the busy one (with
    a channel per table, nothing reaches them), and the busy sidecar's and the database's."""
    from tests.pgserver import PgServer

    pg = PgServer(durable=True).start()
    try:
        url = pg.create_database()
        dirs = [data_dir("disk") for _ in range(1 + extra)]
        servers: list[Server] = []
        try:
            servers.append(start_server("verdict", data=dirs[0].path, tables=connections // 8, ledger=url))
            for i in range(extra):
                servers.append(start_server("verdict", data=dirs[i + 1].path, tables=0, ledger=url))
            time.sleep(0.5)  # the buses connect
            idle0, db0 = sum(s.cpu() for s in servers[1:]), _cluster_cpu(pg)
            load_before = os.getloadavg()[0]
            r = measure(Group(servers[:1], None), connections, duration, "table")
            done = r["rate"] * r["window"]
            record = {
                "bystanders": extra,
                "load": [round(load_before, 1), round(os.getloadavg()[0], 1)],
                "rate": round(r["rate"], 1),
                "errors": r["errors"],
                "bystanders_us": round((sum(s.cpu() for s in servers[1:]) - idle0) / done * 1e6, 1),
                "busy_sidecar_us": round(r["cpu"] / r["rate"] * 1e6),
                "database_us": round((_cluster_cpu(pg) - db0) / done * 1e6),
            }
            print(json.dumps(record), flush=True)
            return record
        finally:
            for s in servers:
                s.stop()
            for x in dirs:
                x.cleanup()
    finally:
        pg.stop()


def summary(records: list[dict[str, Any]]) -> str:
    """The medians of :func:`routed`'s records per number of sidecars, against one sidecar's."""
    by: dict[int, list[dict[str, Any]]] = {}
    for r in records:
        by.setdefault(r["sidecars"], []).append(r)
    one = statistics.median(r["cpu_us"] for r in by.get(1, records))
    lines = [
        "| sidecars | runs | rolls/s | CPU per roll (sidecars + database) | against 1 sidecar | commits per roll |"
    ]
    lines.append("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for n, rs in sorted(by.items()):
        cost = statistics.median(r["cpu_us"] for r in rs)
        lines.append(
            f"| {n} | {len(rs)} | {statistics.median(r['rate'] for r in rs):,.0f} | {cost:,.0f} µs "
            f"({statistics.median(r['sidecars_us'] for r in rs):,.0f} + "
            f"{statistics.median(r['database_us'] for r in rs):,.0f}) | {cost / one:.2f}× "
            f"| {statistics.median(r['commits_per_roll'] for r in rs):.2f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    import argparse

    p = argparse.ArgumentParser(prog="python -m bench.several", description="figure 6 routed by table, repeated")
    p.add_argument("--connections", type=int, default=400)
    p.add_argument("--duration", type=float, default=10.0)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--pace", type=float, default=0.0, help="seconds between a connection's rolls (0: closed loop)")
    p.add_argument("--sidecars", default="1,2,4")
    p.add_argument("--bystanders", type=int, default=0, help="instead: one busy sidecar and this many holding no table")
    a = p.parse_args()
    if a.bystanders:
        for _ in range(a.repeats):
            bystanders(a.bystanders, a.connections, a.duration)
        raise SystemExit(0)
    records = routed(a.connections, a.duration, a.repeats, a.pace, tuple(int(x) for x in a.sidecars.split(",")))
    print(summary(records))
