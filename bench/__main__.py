"""``python -m bench [--full | --smallest] [--only FIGURE ...] [--no-append]``: every figure against its anchor.

Quick by default (a few minutes); ``--full`` runs longer windows and more rounds; ``--smallest`` runs each
figure at the least size that makes all its rows, in seconds, to show that it runs (the tests do). Each figure's
table is printed as it completes; at the end all of them are appended to BENCHMARKS.md with the
command, the date, the machine and its load average (other work on the machine moves these figures).
Everything stays on 127.0.0.1, with bounded counts and times, and stops by itself.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import UTC, datetime
from typing import Any, cast

from .common import ROOT, Row, dict_table, machine, raise_nofile, table

FIGURES = ("engine", "rtt", "load", "memory", "odds", "several", "growth")
TITLES = {
    "engine": "1. Engine throughput (complete resolutions per second)",
    "rtt": "2. Round trip over the websocket (roll to rolled, loopback)",
    "load": "3. Load (1,000 connections in tables of 8, every roll broadcast)",
    "memory": "4. Memory (resident, idle connections)",
    "odds": "5. Exact odds (cold, first, cached; against icepool)",
    "several": "6. Several sidecars over one PostgreSQL ledger (the load of 3; against one sidecar on SQLite)",
    "growth": "7. A long campaign's restart (first load and memory from a snapshot; against a full fold)",
}


def rows(name: str, full: bool = False, smallest: bool = False) -> list[Row] | list[dict[str, Any]] | None:
    """One figure's rows (the odds figure's as plain dicts; None if it is not in this build). ``smallest`` runs it
    at the least size that still makes every one of its rows: it shows that the figure runs, not what it measures."""
    if name == "engine":
        from . import engine

        return engine.smallest() if smallest else engine.run(full=full)
    if name == "rtt":
        from . import rtt

        return rtt.smallest() if smallest else rtt.run(full=full)
    if name == "load":
        from . import load

        return load.smallest() if smallest else load.run(full=full)
    if name == "memory":
        from . import memory

        return memory.smallest() if smallest else memory.run(full=full)
    if name == "odds":
        try:
            from . import odds
        except ImportError:
            return None
        return odds.smallest() if smallest else odds.run(quick=not full)
    if name == "several":
        from . import several

        return several.smallest() if smallest else several.run(full=full)
    if name == "growth":
        from . import growth

        return growth.smallest() if smallest else growth.run(full=full)
    raise ValueError(f"no figure {name!r}")


def render(found: list[Row] | list[dict[str, Any]] | None) -> str:
    """A figure's rows as the Markdown table BENCHMARKS.md keeps."""
    if found is None:
        return "_The exact-odds figures are not in this build._"
    if found and isinstance(found[0], dict):
        return dict_table(found)
    return table(cast(list[Row], found))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    p.add_argument("--full", action="store_true", help="the long runs (about 10 minutes)")
    p.add_argument("--only", nargs="+", choices=FIGURES, help="run only these figures")
    p.add_argument("--no-append", action="store_true", help="print, but do not append to BENCHMARKS.md")
    p.add_argument(
        "--smallest",
        action="store_true",
        help="each figure at the least size that makes all its rows, to see that it runs (implies --no-append)",
    )
    args = p.parse_args(argv)
    raise_nofile()
    started = datetime.now(UTC)
    load_before = os.getloadavg()
    size = "smallest" if args.smallest else "full" if args.full else "quick"
    command = (
        "python -m bench"
        + (f" --{size}" if size != "quick" else "")
        + (f" --only {' '.join(args.only)}" if args.only else "")
    )
    head = [
        f"### {started:%Y-%m-%d %H:%M} UTC, {size}",
        "",
        f"- command: `{command}` (`make bench` runs `python -m bench`)",
        f"- machine: {machine()}",
        f"- load average before: {load_before[0]:.2f} (1 min)",
        "",
    ]
    print("\n".join(head), flush=True)
    sections = []
    t0 = time.monotonic()
    for name in args.only or FIGURES:
        t = time.monotonic()
        body = render(rows(name, args.full, args.smallest))
        section = f"#### {TITLES[name]}\n\n{body}\n"
        print(section + f"({time.monotonic() - t:.0f} s)\n", flush=True)
        sections.append(section)
    tail = f"- took {time.monotonic() - t0:.0f} s; load average after: {os.getloadavg()[0]:.2f}\n"
    print(tail)
    if not args.no_append and not args.smallest:
        path = ROOT / "BENCHMARKS.md"
        text = path.read_text() if path.exists() else "# Benchmarks\n\n## Runs\n"
        path.write_text(text.rstrip("\n") + "\n\n" + "\n".join(head) + "\n" + "\n".join(sections) + "\n" + tail)
        print(f"appended to {path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
