"""The benchmarks run against the code as it is: `make bench` is not part of the suite, so a change would
otherwise break a figure unseen.
Every figure of `python -m bench` runs here once at its smallest size; what it measures is not asserted."""

import importlib.util
import math
import shutil
from pathlib import Path

import pytest

from bench import memory, rtt
from bench.__main__ import FIGURES, begin_marker, end_marker, main, render, rows, write
from bench.common import ROOT, Row, median_rows
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
@pytest.mark.parametrize("name", [n for n in FIGURES if not n.startswith("browser_")])  # those: their own files
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


def test_every_figure_has_its_place_in_the_benchmarks_file_and_a_run_replaces_only_that():
    text = (ROOT / "BENCHMARKS.md").read_text()
    for name in FIGURES:
        assert text.count(begin_marker(name)) == 1 and text.count(end_marker(name)) == 1, name
        assert text.index(begin_marker(name)) < text.index(end_marker(name)), name
    written = write(text, "rtt", "| a | table |")
    assert f"{begin_marker('rtt')}\n| a | table |\n{end_marker('rtt')}" in written
    before, after = text.split(begin_marker("rtt")), written.split(begin_marker("rtt"))
    assert before[0] == after[0] and before[1].split(end_marker("rtt"))[1] == after[1].split(end_marker("rtt"))[1]
    assert write(written, "rtt", "| a | table |") == written
    with pytest.raises(ValueError, match="no markers for figure 'nowhere'"):
        write(text, "nowhere", "")


def test_several_runs_keep_each_cases_median_run_and_the_worst_error_count():
    def run(rate, echo, errors, commit):
        return [
            Row("load", "rolls/s", rate, "echo broadcast", echo, "/s", target=0.7),
            Row("load", "errors", errors, "", 0, "", higher_is_better=False, limit=1),
            Row("round trip, part", "commit", commit, "", 0, "µs", higher_is_better=False),
        ]

    kept = median_rows([run(700, 1000, 0, 30), run(900, 1000, 2, 10), run(400, 800, 0, 20)])
    # the ratios were 0.7, 0.9 and 0.5: the median is the first run's, value and anchor from that one run
    assert (kept[0].value, kept[0].anchor_value) == (700, 1000) and kept[0].met
    assert kept[1].value == 2 and not kept[1].met  # one run had errors: the figure has them
    assert kept[2].value == 20
    assert all(r.note.endswith("median of 3 runs") for r in kept)
