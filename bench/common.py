"""Shared by the figures: the machine, percentiles, rows and tables, servers in child processes."""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")

LOOP_ENV = "BENCH_LOOP"
"""Names the event loop of every server of a run, Verdict's and the echo's (``uvloop`` or ``asyncio``); unset,
the one ``verdict serve`` runs on by default, so every figure is what a sidecar started as shipped does. The
client processes keep asyncio's own: the same driver against every server."""


def loop_name() -> str:
    """The event loop this run measures on: ``$BENCH_LOOP``, else ``verdict serve``'s default."""
    from sidecar.server.run import loop_to_run

    return loop_to_run(os.environ.get(LOOP_ENV) or None)


def run_on_loop(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on the loop of :func:`loop_name`, made as ``verdict serve`` makes it."""
    import asyncio

    from sidecar.server.run import new_loop

    name = loop_name()
    with asyncio.Runner(loop_factory=lambda: new_loop(name) or asyncio.new_event_loop()) as runner:
        return runner.run(main)


def raise_nofile() -> int:
    """Lift this process's open-file limit to its hard limit (thousands of sockets need it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def machine() -> str:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{os.cpu_count()} cores ({cpu or platform.machine()}), Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}"
    )


def percentile(values: Sequence[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank) of ``values``."""
    if not values:
        return float("nan")
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(p / 100 * len(s) + 0.5) - 1))
    return s[k]


@dataclass
class Row:
    """One figure: Verdict's value against its anchor's, and the target on their ratio."""

    figure: str
    case: str
    value: float
    anchor: str
    anchor_value: float
    unit: str
    higher_is_better: bool = True
    target: float | None = None
    """The ratio to meet: at least this (higher is better) or at most this (lower is better)."""
    note: str = ""
    limit: float | None = None
    """An absolute target on the value itself (at most this), where the issue sets one."""

    @property
    def ratio(self) -> float:
        if not self.anchor_value:
            return float("nan")
        return self.value / self.anchor_value

    @property
    def met(self) -> bool | None:
        if self.limit is not None:
            return self.value < self.limit
        if self.target is None:
            return None
        return self.ratio >= self.target if self.higher_is_better else self.ratio <= self.target


def median_rows(runs: Sequence[Sequence[Row]]) -> list[Row]:
    """One row per case over several runs of a figure: the row of the run whose ratio is the median (its
    value and its anchor measured together, as every ratio is), the median value where there is no anchor,
    and the worst where the value itself has a limit (errors: every run must have none)."""
    out = []
    for at, first in enumerate(runs[0]):
        same = [run[at] for run in runs if at < len(run) and run[at].case == first.case]
        if first.limit is not None:
            chosen = max(same, key=lambda r: r.value)
        elif first.anchor:
            chosen = sorted(same, key=lambda r: r.ratio if r.ratio == r.ratio else float("inf"))[(len(same) - 1) // 2]
        else:
            chosen = sorted(same, key=lambda r: r.value)[(len(same) - 1) // 2]
        note = f"{chosen.note}; " if chosen.note else ""
        out.append(
            dataclasses.replace(chosen, note=f"{note}median of {len(same)} runs" if len(same) > 1 else chosen.note)
        )
    return out


def fmt(v: float) -> str:
    if v != v:
        return "-"
    if float(v).is_integer() and abs(v) < 100:
        return str(int(v))
    if abs(v) >= 100:
        return f"{v:,.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def table(rows: Sequence[Row]) -> str:
    """A Markdown table of ``rows``."""
    out = [
        "| figure | case | Verdict | anchor | anchor's | ratio | target | met | note |",
        "| --- | --- | ---: | --- | ---: | ---: | --- | --- | --- |",
    ]
    for r in rows:
        if r.limit is not None:
            target, met = f"< {r.limit:g} {r.unit}", "yes" if r.met else "**no**"
        elif r.target is None:
            target, met = "", ""
        else:
            target = f"{'≥' if r.higher_is_better else '≤'} {r.target:g}×"
            met = "yes" if r.met else "**no**"
        anchor_value = fmt(r.anchor_value) if r.anchor else ""
        ratio = f"{r.ratio:.2f}×" if r.anchor and r.anchor_value else ""
        out.append(
            f"| {r.figure} | {r.case} | {fmt(r.value)} {r.unit} | {r.anchor} | {anchor_value} | {ratio} | "
            f"{target} | {met} | {r.note} |"
        )
    return "\n".join(out)


def dict_table(rows: Sequence[dict[str, Any]]) -> str:
    """A Markdown table of plain dicts (the odds figures), columns in first-seen order."""
    cols: list[str] = []
    for r in rows:
        cols += [k for k in r if k not in cols]
    out = ["| " + " | ".join(cols) + " |", "| " + " | ".join("---" for _ in cols) + " |"]
    for r in rows:
        cells = [fmt(v) if isinstance(v, float) else str(v) for v in (r.get(c, "") for c in cols)]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


# --- child processes ------------------------------------------------------------------------


def python() -> str:
    return sys.executable


class Measured(Protocol):
    """What the load driver (:func:`bench.load.measure`) and the plans it writes need of a server: one sidecar,
    a group of sidecars on one ledger, or the echo anchor alike."""

    @property
    def url(self) -> str:
        """Where the connections go: one websocket URL, or several joined by commas (a group's sidecars)."""
        ...

    @property
    def info(self) -> dict[str, Any]:
        """What :mod:`bench.serve` printed as it started (its ``tables``: a Verdict server's tables and keys)."""
        ...

    def cpu(self) -> float:
        """CPU seconds the server's processes have used (the difference over a window is its cost)."""
        ...

    def loop_cpu(self) -> float:
        """CPU seconds the servers' event loop threads have used (a part of :meth:`cpu`)."""
        ...


@dataclass
class Server:
    """A server (Verdict or the echo anchor) in a child process; see :mod:`bench.serve`."""

    proc: subprocess.Popen[str]
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def port(self) -> int:
        return int(self.info["port"])

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def pid(self) -> int:
        return self.proc.pid

    def rss(self) -> int:
        """Resident memory of the server process, in bytes."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise RuntimeError("no VmRSS")

    def cpu(self) -> float:
        """CPU seconds (user + system) the server process has used."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def loop_cpu(self) -> float:
        """CPU seconds the server's main thread (its event loop) has used; the rest of :meth:`cpu` is its
        other threads' (the ledger's writer and reader)."""
        fields = Path(f"/proc/{self.pid}/task/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_server(
    kind: str,
    *,
    data: Path | None = None,
    tables: int = 1,
    reply_size: int = 0,
    timeout: float = 120.0,
    ledger: str | None = None,
) -> Server:
    """Start ``python -m bench.serve`` and wait for the line that says where it listens."""
    cmd = [python(), "-m", "bench.serve", kind, "--tables", str(tables), "--reply-size", str(reply_size)]
    if data is not None:
        cmd += ["--data", str(data)]
    if ledger is not None:
        cmd += ["--ledger", ledger]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True)
    server = Server(proc)
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line or time.monotonic() > deadline:
        server.stop()
        raise RuntimeError(f"the {kind} server did not start")
    server.info = json.loads(line)
    return server


def run_clients(module: str, args: list[str], count: int, timeout: float) -> list[dict[str, Any]]:
    """Run ``count`` client processes of ``python -m <module> <args>`` that each print one JSON line."""
    procs = [
        subprocess.Popen(
            [python(), "-m", module, *args, "--index", str(i), "--of", str(count)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(count)
    ]
    out = []
    try:
        for p in procs:
            stdout, _ = p.communicate(timeout=timeout)
            if p.returncode != 0:
                raise RuntimeError(f"a {module} client failed with status {p.returncode}")
            out.append(json.loads(stdout.strip().splitlines()[-1]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return out


# --- data directories -------------------------------------------------------------------------


def fs_type(path: Path) -> str:
    """The file system ``path`` lives on (from /proc/mounts), e.g. ``ext4`` or ``tmpfs``."""
    best, kind = "", "unknown"
    try:
        for line in Path("/proc/mounts").read_text().splitlines():
            parts = line.split()
            mount, typ = parts[1], parts[2]
            if (str(path) + "/").startswith(mount.rstrip("/") + "/") and len(mount) > len(best):
                best, kind = mount, typ
    except OSError:
        pass
    return kind


@dataclass
class DataDir:
    label: str
    path: Path

    def cleanup(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def data_dir(where: str) -> DataDir:
    """A fresh ledger directory: ``disk`` (beside the repo, so fsync costs what it costs there) or
    ``tmpfs`` (/dev/shm, where fsync returns at once: the figure without the disk)."""
    if where == "tmpfs":
        base = Path("/dev/shm")
        if not base.is_dir():
            raise RuntimeError("no /dev/shm here")
    else:
        base = ROOT
    path = Path(tempfile.mkdtemp(prefix=".bench-data-", dir=base))
    return DataDir("tmpfs" if where == "tmpfs" else f"disk ({fs_type(path)})", path)


class ClientProcs:
    """Client processes that connect, say ``ready``, wait for a line on stdin, and print a JSON result."""

    def __init__(self, module: str, args: list[str], count: int) -> None:
        self.procs = [
            subprocess.Popen(
                [python(), "-m", module, *args, "--index", str(i), "--of", str(count)],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stdin=subprocess.PIPE,
                text=True,
            )
            for i in range(count)
        ]

    def ready(self) -> None:
        for p in self.procs:
            assert p.stdout is not None
            line = p.stdout.readline().strip()
            if line != "ready":
                raise RuntimeError(f"a client process did not get ready (said {line!r})")

    def go(self, word: str = "go") -> None:
        for p in self.procs:
            assert p.stdin is not None
            p.stdin.write(word + "\n")
            p.stdin.flush()

    def results(self, timeout: float) -> list[dict[str, Any]]:
        out = []
        for p in self.procs:
            stdout, _ = p.communicate(timeout=timeout)
            if p.returncode != 0:
                raise RuntimeError(f"a client process failed with status {p.returncode}")
            out.append(json.loads(stdout.strip().splitlines()[-1]))
        return out

    def kill(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()

    def __enter__(self) -> ClientProcs:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()


def plan_file(server: Measured, connections: int, per_table: int = 8) -> Path:
    """Which connection joins which table as whom: one GM and the rest players, distinct users."""
    tables = server.info["tables"] or [[f"echo-{i}", "-", "-"] for i in range(connections // per_table)]
    plan = []
    for table, gm, player, *rest in tables[: connections // per_table]:
        users = rest[0] if rest else {}
        plan.append(
            [table, [[gm, "gm"], *[[users.get(f"player-{j}", player), f"player-{j}"] for j in range(1, per_table)]]]
        )
    fd, name = tempfile.mkstemp(prefix="verdict-bench-plan-", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump({"tables": plan}, f)
    return Path(name)
