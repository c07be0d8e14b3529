"""The benchmarks run against the code as it is: `make bench` is not part of the suite, so a change would
otherwise break a figure unseen (it did: a request without its requester made the round trip's parts fail with a
SQL error; the load driver read the event loop's CPU of a group of sidecars that had none, and figure 6 crashed).
Every figure of `python -m bench` runs here once at its smallest size; what it measures is not asserted."""

import importlib.util
import math
import shutil
from pathlib import Path

import pytest

from bench import memory, rtt
from bench.__main__ import FIGURES, main, render, rows
from bench.common import ROOT, Row
from tests.pgserver import MISSING, bin_dir

# Each figure starts servers and client processes of its own: one after another, in one worker of `pytest -n`.
_one_worker = pytest.mark.xdist_group("bench_figures")

_SEVERAL_CASES = [
    "1 sidecar on PostgreSQL",
    "2 sidecars on PostgreSQL, round robin",
    "2 sidecars on PostgreSQL, routed by table",
]


@_one_worker
@pytest.mark.slow
@pytest.mark.parametrize("name", FIGURES)
def test_every_figure_runs_at_its_smallest_size_and_makes_its_rows(name):
    if name == "several" and bin_dir() is None:
        pytest.skip(MISSING)
    found = rows(name, smallest=True)
    assert found, f"figure {name} made no rows"
    if isinstance(found[0], Row):
        assert all(isinstance(r, Row) and math.isfinite(r.value) for r in found), found
    else:
        assert all(isinstance(r, dict) and r for r in found), found
    assert len(render(found).splitlines()) == 2 + len(found)
    if name == "several":
        cases = [r.case for r in found if isinstance(r, Row)]
        for case in _SEVERAL_CASES:
            assert f"rolls/s, {case}" in cases and f"errors, {case}" in cases, cases
        assert "server CPU per roll, 2 sidecars on PostgreSQL, routed by table" in cases


def test_the_command_runs_the_smallest_figures_without_touching_the_benchmarks_file(capsys):
    before = (ROOT / "BENCHMARKS.md").stat().st_mtime_ns
    assert main(["--smallest", "--only", "engine", "odds"]) == 0
    said = capsys.readouterr().out
    assert "python -m bench --smallest --only engine odds" in said
    assert "#### 1. Engine throughput" in said and "#### 5. Exact odds" in said
    assert "| engine | `facets` 5-die pool |" in said
    assert (ROOT / "BENCHMARKS.md").stat().st_mtime_ns == before


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
