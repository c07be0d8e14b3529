"""``python -m bench [--full | --smallest] [--only FIGURE ...] [--runs N] [--no-write]``: every figure against
its anchor.

Quick by default (a few minutes); ``--full`` runs longer windows and more rounds; ``--smallest`` runs each
figure at the least size that makes all its rows, in seconds, to show that it runs (the tests do). ``--runs N``
runs each figure N times and keeps each case's median run (a shared machine moves single runs). Each figure's
table is printed as it completes; then each one run replaces that figure's table in BENCHMARKS.md (between
its markers), with the date, the machine, the event loop and the load average it was measured under: the file
holds today's figures, and git the runs before. Everything stays on 127.0.0.1, with bounded counts and
times, and stops by itself.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from .common import LOOP_ENV, ROOT, Row, dict_table, loop_name, machine, median_rows, raise_nofile, table


@dataclass(frozen=True)
class Figure:
    """One figure of ``python -m bench``: its title, and the module of ``bench`` that measures it, whose
    ``run(full=False)`` and ``smallest()`` return its rows (:class:`Row` s, or plain dicts for a table of
    its own shape)."""

    title: str
    module: str
    optional: bool = False
    """Its module may be missing from a build (its imports not installed): the figure says so instead."""


FIGURES: dict[str, Figure] = {
    "engine": Figure("1. Engine throughput (complete resolutions per second)", "engine"),
    "rtt": Figure("2. Round trip over the websocket (roll to rolled, loopback)", "rtt"),
    "load": Figure("3. Load (1,000 connections in tables of 8, every roll broadcast)", "load"),
    "memory": Figure("4. Memory (resident, idle connections)", "memory"),
    "odds": Figure("5. Exact odds (cold, first, cached; against icepool)", "odds", optional=True),
    "several": Figure(
        "6. Several sidecars over one PostgreSQL ledger (the load of 3; against one sidecar on SQLite)", "several"
    ),
    "growth": Figure(
        "7. A long campaign's restart (first load and memory from a snapshot; against a full fold)", "growth"
    ),
    "browser_load": Figure(
        "8. Module load time (Chromium at 100 ms and 10 Mbit/s: page start to the module's ready, the bundle "
        "against the plain files)",
        "browser_load",
    ),
    "browser_chatlog": Figure(
        "9. A long campaign's chat log (F5 with 2,000 Verdict messages, GM and player; against plain Foundry messages)",
        "browser_chatlog",
    ),
}
"""Every figure, in the order they run and BENCHMARKS.md lists them. A new figure is one line here (and a
section with its markers in BENCHMARKS.md, which :func:`write` fills)."""
TITLES = {name: figure.title for name, figure in FIGURES.items()}

Rows = list[Row] | list[dict[str, Any]]


def rows(name: str, full: bool = False, smallest: bool = False) -> Rows | None:
    """One figure's rows (None if it is not in this build). ``smallest`` runs it at the least size that still
    makes every one of its rows: it shows that the figure runs, not what it measures."""
    figure = FIGURES.get(name)
    if figure is None:
        raise ValueError(f"no figure {name!r}")
    try:
        module = importlib.import_module(f"{__package__}.{figure.module}")
    except ImportError:
        if figure.optional:
            return None
        raise
    found: Rows = module.smallest() if smallest else module.run(full=full)
    return found


def median_of(runs: list[Rows | None]) -> Rows | None:
    """A figure's rows over several runs: each case's median run (:func:`~bench.common.median_rows`); a
    figure of plain dicts keeps its last run."""
    if any(r is None for r in runs):
        return None
    if runs and runs[0] and isinstance(runs[0][0], Row):
        return median_rows([cast(list[Row], r) for r in runs])
    return runs[-1]


def render(found: Rows | None) -> str:
    """A figure's rows as the Markdown table BENCHMARKS.md keeps."""
    if found is None:
        return "_This figure is not in this build._"
    if found and isinstance(found[0], dict):
        return dict_table(found)
    return table(cast(list[Row], found))


def begin_marker(name: str) -> str:
    return f"<!-- figure {name}: written by `python -m bench`; edit the text around it, not this -->"


def end_marker(name: str) -> str:
    return f"<!-- /figure {name} -->"


def write(text: str, name: str, body: str) -> str:
    """``text`` (BENCHMARKS.md) with figure ``name``'s table between its markers made ``body``."""
    begin, end = begin_marker(name), end_marker(name)
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise ValueError(f"BENCHMARKS.md has no markers for figure {name!r}: {begin!r} ... {end!r}")
    return pattern.sub(lambda _: f"{begin}\n{body}\n{end}", text, count=1)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    p.add_argument("--full", action="store_true", help="the long runs (about 10 minutes)")
    p.add_argument("--only", nargs="+", choices=list(FIGURES), help="run only these figures")
    p.add_argument("--runs", type=int, default=1, help="run each figure this many times; keep each case's median")
    p.add_argument(
        "--no-write", "--no-append", dest="no_write", action="store_true", help="print, but leave BENCHMARKS.md be"
    )
    p.add_argument(
        "--smallest",
        action="store_true",
        help="each figure at the least size that makes all its rows, to see that it runs (implies --no-write)",
    )
    args = p.parse_args(argv)
    raise_nofile()
    size = "smallest" if args.smallest else "full" if args.full else "quick"
    command = (
        "python -m bench"
        + (f" --{size}" if size != "quick" else "")
        + (f" --only {' '.join(args.only)}" if args.only else "")
        + (f" --runs {args.runs}" if args.runs > 1 else "")
    )
    print(f"`{command}` on {machine()}; event loop {loop_name()} ({LOOP_ENV}= names another)\n", flush=True)
    path = ROOT / "BENCHMARKS.md"
    for name in args.only or FIGURES:
        started, load_before, t = datetime.now(UTC), os.getloadavg()[0], time.monotonic()
        body = render(median_of([rows(name, args.full, args.smallest) for _ in range(max(1, args.runs))]))
        said = (
            f"_{started:%Y-%m-%d %H:%M} UTC, `{command}`, {size}"
            + (f", median of {args.runs} runs" if args.runs > 1 else "")
            + f"; {machine()}; event loop {loop_name()} (the servers); load average {load_before:.1f} "
            f"before, {os.getloadavg()[0]:.1f} after; {time.monotonic() - t:.0f} s._"
        )
        print(f"#### {FIGURES[name].title}\n\n{body}\n\n{said}\n", flush=True)
        if not args.no_write and not args.smallest:
            path.write_text(write(path.read_text(), name, f"{said}\n\n{body}"))
            print(f"(written to {path.name})\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
