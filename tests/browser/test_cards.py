"""A card of each rule set, rolled from the GM's dialog, with a screenshot of each."""

from __future__ import annotations

import pytest

from .helpers import API, connected

pytestmark = pytest.mark.browser


CHECKS = {
    "challenge": {"system": "challenge", "cl": 3, "modifier": 4, "dice": [9]},
    "feats": {"system": "feats", "ability": 10, "difficulty": 12, "wyrd": 0, "dice": [8, 7, 3]},
    "boons": {
        "system": "boons",
        "ability": 3,
        "boon": 1,
        "bane": 1,
        "trial": 2,
        "crisis": 0,
        "dice": [8, 5, 2, 4, 3, 7, 1],
    },
}


def test_dialog_and_card_of_each_rule_set(table, shot):
    gm = table.open("gm1")
    gm.wait_for_selector("#verdict-status[data-state='open']", timeout=15000)
    for system in ("facets", "challenge", "flairs", "feats", "boons"):
        gm.evaluate(f"{API}.roll({{system: '{system}', label: 'A {system} check'}})")
        dialog = gm.locator(".verdict-roll-dialog")
        dialog.wait_for()
        dialog.locator(".verdict-odds-legend li").first.wait_for(timeout=15000)
        assert dialog.locator(".verdict-odds-legend").inner_text().count("%") >= 2
        shot(gm, ".verdict-roll-dialog", f"dialog-{system}.png")
        dialog.locator("button[type=submit]").click()
        dialog.wait_for(state="detached")
        card = gm.locator(f".verdict-card[data-system='{system}']")
        card.wait_for(timeout=15000)
        assert card.locator(".verdict-outcome").inner_text().strip()
        shot(gm, ".chat-message:last-child", f"card-{system}.png")
    for check in CHECKS.values():
        gm.evaluate(f"{API}.client.roll({{check: {check!r}, label: 'Given faces'}})".replace("True", "true"))
    gm.wait_for_function("document.querySelectorAll('.verdict-card').length === 8", timeout=15000)
    boons = gm.locator(".verdict-card[data-system='boons']").last
    assert boons.locator(".die.boons-ability").count() == 3
    shot(gm, ".chat-message:last-child", "card-boons-given.png")


def test_the_dialog_title_follows_the_rule_set(table):
    """Foundry writes a window's title on its first render only: the dialog must update it itself."""
    gm = table.open("gm1")
    connected(gm)
    gm.evaluate(f"{API}.roll({{system: 'facets', label: 'Titled'}})")
    dialog = gm.locator(".verdict-roll-dialog")
    dialog.wait_for()
    assert "Facets" in dialog.locator(".window-title").inner_text()
    dialog.locator("[name='system']").select_option("flairs")
    gm.wait_for_function(
        "document.querySelector('.verdict-roll-dialog .window-title').textContent.includes('Flairs')", timeout=15000
    )
