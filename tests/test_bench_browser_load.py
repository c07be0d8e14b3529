"""The browser load figure (bench/browser_load.py) runs against the module as it is, once, at its smallest size:
Chromium on the emulated network loads the stand-in's page with the plain files and with the bundle the
release zip ships. What it measures is not asserted; what the bundle is, is: one script and one stylesheet."""

import math

import pytest

from bench import browser_load
from bench.common import Row

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("bench_figures")]


def test_the_browser_load_figure_runs_and_the_bundle_is_one_script_and_one_stylesheet():
    found = browser_load.measure(runs=1)
    assert set(found) == {"plain files", "bundle"}
    for form in found.values():
        assert len(form["ready"]) == 1 and form["ready"][0] > 0
    loaded = {
        form: sorted(r["path"] for r in f["requests"] if r["path"].endswith((".mjs", ".css")))
        for form, f in found.items()
    }
    assert loaded["bundle"] == ["/modules/verdict/scripts/verdict.min.mjs", "/modules/verdict/styles/verdict.min.css"]
    assert "/modules/verdict/scripts/verdict.mjs" in loaded["plain files"] and len(loaded["plain files"]) > 10
    rows = browser_load.rows_of(found)
    assert [r.unit for r in rows] == ["ms", "requests"]
    assert all(isinstance(r, Row) and math.isfinite(r.value) and r.anchor_value > 0 for r in rows)
