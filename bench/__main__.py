"""``python -m bench [--full] [--only FIGURE ...] [--no-append]``: every figure against its anchor.

Quick by default (a few minutes); ``--full`` runs longer windows and more rounds. Each figure's
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


def _run(name: str, full: bool) -> str:
    if name == "odds":
        try:
            from . import odds
        except ImportError:
            return "_The exact-odds figures are not in this build._"
        return dict_table(odds.run(quick=not full))
    module = __import__(f"bench.{name}", fromlist=["run"])
    rows: list[Row] = module.run(full=full)
    return table(rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    p.add_argument("--full", action="store_true", help="the long runs (about 10 minutes)")
    p.add_argument("--only", nargs="+", choices=FIGURES, help="run only these figures")
    p.add_argument("--no-append", action="store_true", help="print, but do not append to BENCHMARKS.md")
    args = p.parse_args(argv)
    raise_nofile()
    started = datetime.now(UTC)
    load_before = os.getloadavg()
    command = (
        "python -m bench" + (" --full" if args.full else "") + (f" --only {' '.join(args.only)}" if args.only else "")
    )
    head = [
        f"### {started:%Y-%m-%d %H:%M} UTC, {'full' if args.full else 'quick'}",
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
        body = _run(name, args.full)
        section = f"#### {TITLES[name]}\n\n{body}\n"
        print(section + f"({time.monotonic() - t:.0f} s)\n", flush=True)
        sections.append(section)
    tail = f"- took {time.monotonic() - t0:.0f} s; load average after: {os.getloadavg()[0]:.2f}\n"
    print(tail)
    if not args.no_append:
        path = ROOT / "BENCHMARKS.md"
        text = path.read_text() if path.exists() else "# Benchmarks\n\n## Runs\n"
        path.write_text(text.rstrip("\n") + "\n\n" + "\n".join(head) + "\n" + "\n".join(sections) + "\n" + tail)
        print(f"appended to {path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
