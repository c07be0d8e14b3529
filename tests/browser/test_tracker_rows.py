"""The tracker as a GM reads it: the badge marking a complication players cannot see shows (Foundry's own
`.hidden` hides any element of that class), every control of a row says what it does in words, editing has
Save and Cancel, "Undo last action" says which action it takes back, the extended-check form has a heading,
and a world shows only its rule set's sections."""

from __future__ import annotations

import re

import pytest

from .helpers import API, add_complications, connected
from .test_accessibility import AXE, violations

pytestmark = pytest.mark.browser


def open_tracker(page):
    page.click("#scene-controls [data-tool='verdict-tracker']")
    tracker = page.locator(".verdict-tracker")
    tracker.wait_for()
    return tracker


def test_the_hidden_badge_shows_and_every_control_says_what_it_does(table, shot):
    gm = table.open("gm1", system="challenge")
    connected(gm)
    tracker = add_complications(gm, "A ward seals the cellar", "The miller's dogs are loose")
    row = tracker.locator(".verdict-complication.is-hidden")
    badge = row.locator(".badge", has_text=re.compile("hidden", re.I))
    assert badge.count() == 1
    assert badge.is_visible(), "the GM sees the badge that marks what players cannot see"
    assert badge.inner_text().strip() == "Hidden from players"
    # No element of the module's drawing carries Foundry's utility class (core hides it).
    assert gm.locator(".verdict-tracker .hidden").count() == 0
    for name in ("Reveal", "Edit", "Make it a challenge", "Remove"):
        button = row.get_by_role("button", name=name)
        assert button.is_visible(), name
        assert name in button.inner_text()
    assert row.get_by_label("CL").is_visible()
    shot(gm, ".verdict-tracker", "tracker-rows-gm.png")

    # Edit: the text becomes a field with Save and Cancel; Cancel leaves it as it was.
    row.get_by_role("button", name="Edit").click()
    field = row.locator("input[name=edit]")
    assert field.is_visible()
    assert not row.locator(".verdict-complication-head .text").is_visible(), "the old text gives way to the field"
    field.fill("A ward of salt")
    row.get_by_role("button", name="Cancel").click()
    assert not field.is_visible()
    assert row.locator(".verdict-complication-head .text").inner_text() == "A ward seals the cellar"
    row.get_by_role("button", name="Edit").click()
    assert field.input_value() == "A ward seals the cellar"
    field.fill("A ward of salt")
    row.get_by_role("button", name="Save").click()
    gm.wait_for_selector(".verdict-tracker .verdict-complication:has-text('A ward of salt')", timeout=15000)

    # Undo says what it takes back.
    footer = tracker.locator(".verdict-tracker-footer")
    gm.wait_for_function(
        "document.querySelector('.verdict-tracker-footer .verdict-undo-what')?.innerText.includes('A ward of salt')",
        timeout=15000,
    )
    assert "Complication edited" in footer.inner_text()
    if AXE.exists():
        assert violations(gm, ".verdict-tracker") == []


@pytest.mark.parametrize(
    ("system", "shown", "absent"),
    [
        ("challenge", [], [".verdict-lurking", ".verdict-facets", ".verdict-extended"]),
        ("boons", [".verdict-extended"], [".verdict-lurking", ".verdict-facets"]),
        ("flairs", [".verdict-lurking"], [".verdict-facets", ".verdict-extended"]),
        ("facets", [".verdict-facets"], [".verdict-lurking", ".verdict-extended"]),
    ],
)
def test_a_world_shows_its_rule_sets_sections(table, system, shown, absent):
    gm = table.open("gm1", system=system)
    connected(gm)
    tracker = open_tracker(gm)
    assert tracker.locator(".verdict-complications").is_visible()
    for selector in shown:
        assert tracker.locator(selector).is_visible(), selector
    for selector in absent:
        assert tracker.locator(selector).count() == 0, selector
    if system == "boons":
        heading = tracker.get_by_role("group", name="Start an extended check")
        assert heading.is_visible()
    # The convert control is a challenge's CL: only where checks address complications.
    gm.evaluate(f"{API}.client.gm({{op: 'complication_add', scene: 'scene1', text: 'Fog', hidden: false}})")
    tracker.locator(".verdict-complication:has-text('Fog')").wait_for(timeout=15000)
    converts = tracker.locator(".verdict-complication [data-action=convert]").count()
    assert converts == (1 if system == "challenge" else 0)
