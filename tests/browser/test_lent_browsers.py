"""The browsers the tests lend their users: one given back is gone from its world and comes back empty, as a
new browser would (tests/browser/conftest.py's ``Browsers``)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_a_browser_given_back_has_left_and_comes_back_with_nothing_stored(table):
    gm = table.open("gm1")
    gm.evaluate("localStorage.setItem('left-behind', '1'); sessionStorage.setItem('left-behind', '1')")
    context = table.contexts["gm1"]
    table.leave("gm1")
    table.wait(lambda: "gm1" not in table.world.active(), "Foundry's server saw the GM leave")
    again = table.open("gm1")
    assert table.contexts["gm1"] is context  # the same browser, lent again
    assert again.evaluate("[localStorage.length, sessionStorage.length]") == [0, 0]
    assert again.evaluate("window.__errors") == []
