"""The benchmarks' in-process parts run against the ledger as it is: `make bench` is not part of the suite, so
a change to the ledger's interface would otherwise break it unseen (it did once: a request without its
requester made the round trip's parts fail with a SQL error)."""

import importlib.util
import shutil
from pathlib import Path

from bench import memory, rtt


def test_the_round_trips_ledger_parts_append_through_the_ledgers_own_interface():
    label, on_loop, threaded, direct = rtt._ledger_parts("disk", count=5)
    assert label.startswith("disk")
    assert on_loop > 0 and threaded > 0 and direct > 0


def test_the_round_trips_durable_commit_floor_runs(tmp_path):
    assert rtt.durable_commit(tmp_path, count=5) > 0


def test_the_memory_figure_starts_its_servers_from_written_bytecode(tmp_path, monkeypatch):
    # A server that compiles the project itself starts with megabytes of freed heap its first connections reuse.
    for package in memory.PACKAGES:
        shutil.copytree(memory.ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(memory, "ROOT", tmp_path)
    memory.compiled()
    sources = list((tmp_path / "sidecar").rglob("*.py"))
    assert sources
    assert [p for p in sources if not Path(importlib.util.cache_from_source(str(p))).exists()] == []
