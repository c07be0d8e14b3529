"""The long chat log's figure (bench/browser_chatlog.py) runs against the code as it is, at its smallest size:
a log of a batch and a half, loaded as the GM and as a player. What it measures is not asserted, only that it
makes every one of its rows."""

import math

import pytest

from bench import browser_chatlog
from bench.common import Row


@pytest.mark.xdist_group("bench_figures")
@pytest.mark.slow
@pytest.mark.browser
def test_the_chat_log_figure_runs_at_its_smallest_size_and_makes_its_rows():
    rows = browser_chatlog.smallest()
    cases = [r.case for r in rows]
    for who in ("GM", "player"):
        for case in (
            "F5 to the cards on screen drawn",
            "F5 to the whole batch's cards drawn",
            "main thread busy after F5",
            "module's main-thread time after F5",
            "requests after F5",
            "requests when drawn again",
            "requests scrolling back one batch",
            "longest module script after F5",
            "longest module script scrolling back",
        ):
            assert f"{case}, {who}" in cases, cases
    assert all(isinstance(r, Row) and math.isfinite(r.value) for r in rows), rows
