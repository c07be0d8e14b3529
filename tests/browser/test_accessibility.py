"""axe-core in the browser: the roll dialog, a card of each rule set and the tracker have no serious or
critical accessibility violation (labels, names, contrast, keyboard reach)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import API, add_complications, connected

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
SYSTEMS = ("facets", "challenge", "flairs", "feats", "boons")


def violations(page, selector: str) -> list[str]:
    """Serious and critical axe violations inside ``selector``, one line each."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        """async (selector) => {
          const r = await axe.run(document.querySelector(selector), {resultTypes: ["violations"]});
          return r.violations.filter((v) => ["serious", "critical"].includes(v.impact))
            .map((v) => `${v.impact} ${v.id}: ${v.help} -> ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
        }""",
        selector,
    )
    return found


def test_dialog_cards_and_tracker_have_no_serious_violations(table):
    if not AXE.exists():
        pytest.fail("axe-core is missing: run `make test-browser` (it installs the npm packages)")
    gm, ayla = table.open("gm1"), table.open("p1")
    connected(gm, ayla)
    problems: dict[str, list[str]] = {}
    for system in SYSTEMS:
        ayla.evaluate(f"{API}.roll({{actor: 'actorAyla', system: '{system}', label: 'Check of {system}'}})")
        dialog = ayla.locator(".verdict-roll-dialog")
        dialog.wait_for()
        dialog.locator(".verdict-odds-legend li").first.wait_for(timeout=5000)
        problems[f"dialog {system}"] = violations(ayla, ".verdict-roll-dialog")
        dialog.locator("button[type=submit]").click()
        dialog.wait_for(state="detached")
        for page, who in ((ayla, "player"), (gm, "GM")):
            sel = f".chat-message:has(.verdict-card[data-system='{system}'])"
            page.wait_for_selector(sel, timeout=5000)
            page.wait_for_timeout(150)
            problems[f"card {system} ({who})"] = violations(page, sel)
    add_complications(gm, "A hidden ward", "A loose board")
    problems["tracker (GM)"] = violations(gm, ".verdict-tracker")
    ayla.click("#scene-controls [data-tool='verdict-tracker']")
    ayla.locator(".verdict-tracker .verdict-complication").first.wait_for(timeout=5000)
    problems["tracker (player)"] = violations(ayla, ".verdict-tracker")
    bad = {k: v for k, v in problems.items() if v}
    assert not bad, "\n".join(f"{k}: {line}" for k, v in bad.items() for line in v)
