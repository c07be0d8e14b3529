"""A popped-out combat tracker is a window whose frame header comes before the tracker's own: the Verdict
button sits in the tracker's header, not in the window's title bar, in v13 (same document) and v14 (a
document of its own)."""

from __future__ import annotations

import pytest

from .helpers import connected

pytestmark = pytest.mark.browser


@pytest.mark.generations(13, 14)
def test_the_popped_out_trackers_button_sits_in_the_tracker(table, generation):
    gm = table.open("gm1", "challenge")
    connected(gm)
    gm.evaluate("standin.popoutCombat()")
    popout = gm.frame_locator("#combat-popout-window") if generation >= 14 else gm.locator("#combat-popout-window")
    button = popout.locator(".verdict-open-tracker")
    button.wait_for(timeout=15000)
    assert button.count() == 1
    assert popout.locator(".window-header .verdict-open-tracker").count() == 0
    assert popout.locator("#combat-popout .combat-tracker-header .verdict-open-tracker").count() == 1
    button.click()
    gm.locator(".verdict-tracker").wait_for(timeout=15000)
