"""v13's two colour schemes: the applications' on the body, the interface's on the sidebar and its chat log.
Cards read under all four combinations (a light body around a dark sidebar among them), for the GM and for a
player: axe-core finds no serious or critical problem (contrast among them), and a screenshot of each is saved
with the suite's report."""

from __future__ import annotations

import pytest

from .conftest import SETTLED
from .helpers import API, connected
from .test_accessibility import AXE, violations

pytestmark = pytest.mark.browser

ROLLS = (
    ("facets", "{system: 'facets', pool: 3, dice: [6, 6, 2]}"),
    ("challenge", "{system: 'challenge', cl: 2, modifier: 0, dice: [1]}"),
    ("flairs", "{system: 'flairs', rank: 2, dice: [3, 3]}"),
    ("boons", "{system: 'boons', ability: 2, boon: 1, bane: 1, trial: 1, crisis: 0, dice: [8, 5, 2, 4, 3]}"),
)
SCHEMES = [(apps, iface) for apps in ("light", "dark") for iface in ("light", "dark")]


def test_cards_and_windows_read_under_both_colour_schemes_in_all_four_combinations(table, shot):
    if not AXE.exists():
        pytest.fail("axe-core is missing: run `make test-browser` (it installs the npm packages)")
    gm, ayla = table.open("gm1"), table.open("p1")
    connected(gm, ayla)
    for system, check in ROLLS:
        ayla.evaluate(
            f"{API}.client.roll({{check: {check}, actor: 'actorAyla', scene: 'scene1', label: 'Under {system}'}})"
        )
        for page in (gm, ayla):
            page.locator(f"#chat-log .verdict-card[data-system='{system}'] .verdict-outcome").wait_for(timeout=15000)
    problems: dict[str, list[str]] = {}
    for apps, iface in SCHEMES:
        for page, who in ((gm, "gm"), (ayla, "player")):
            page.evaluate(f"standin.setColorScheme({apps!r}, {iface!r})")
            page.evaluate(SETTLED)
            # the card's text takes the interface's scheme, whatever the body's
            tone = page.evaluate(
                "getComputedStyle(document.querySelector('#chat-log .verdict-card')).getPropertyValue('--verdict-bad-text').trim()"
            )
            assert tone == ("#8f2f1a" if iface == "light" else "#ff9a82"), (apps, iface, tone)
            problems[f"{who}: applications {apps}, interface {iface}"] = violations(page, "#chat-log")
            shot(page, "#chat-log", f"cards-{who}-applications-{apps}-interface-{iface}.png")
    # the windows the module opens take the applications' scheme: the roll dialog and the tracker
    ayla.evaluate(f"{API}.roll({{actor: 'actorAyla', system: 'flairs', label: 'Under a window'}})")
    ayla.locator(".verdict-roll-dialog .verdict-odds-legend li").first.wait_for(timeout=15000)
    ayla.click("#scene-controls [data-tool='verdict-tracker']")
    ayla.locator(".verdict-tracker").wait_for(timeout=15000)
    for apps, iface in SCHEMES:
        ayla.evaluate(f"standin.setColorScheme({apps!r}, {iface!r})")
        ayla.evaluate(SETTLED)
        for surface, sel in (("roll dialog", ".verdict-roll-dialog"), ("tracker", ".verdict-tracker")):
            problems[f"{surface}: applications {apps}, interface {iface}"] = violations(ayla, sel)
            shot(ayla, sel, f"{surface.replace(' ', '-')}-applications-{apps}-interface-{iface}.png")
    bad = {k: v for k, v in problems.items() if v}
    assert not bad, "\n".join(f"{k}: {line}" for k, v in bad.items() for line in v)
