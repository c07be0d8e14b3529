"""axe-core in the browser: the roll dialog, a card of each rule set and the tracker have no serious or
critical accessibility violation (labels, names, contrast, keyboard reach)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import SETTLED
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
        dialog.locator(".verdict-odds-legend li").first.wait_for(timeout=15000)
        problems[f"dialog {system}"] = violations(ayla, ".verdict-roll-dialog")
        dialog.locator("button[type=submit]").click()
        dialog.wait_for(state="detached")
        for page, who in ((ayla, "player"), (gm, "GM")):
            sel = f".chat-message:has(.verdict-card[data-system='{system}'])"
            page.wait_for_selector(sel, timeout=15000)
            page.evaluate(SETTLED)
            problems[f"card {system} ({who})"] = violations(page, sel)
    add_complications(gm, "A hidden ward", "A loose board")
    problems["tracker (GM)"] = violations(gm, ".verdict-tracker")
    ayla.click("#scene-controls [data-tool='verdict-tracker']")
    ayla.locator(".verdict-tracker .verdict-complication").first.wait_for(timeout=15000)
    problems["tracker (player)"] = violations(ayla, ".verdict-tracker")
    bad = {k: v for k, v in problems.items() if v}
    assert not bad, "\n".join(f"{k}: {line}" for k, v in bad.items() for line in v)


def test_the_mapping_form_the_gm_key_form_and_the_sheet_section_have_no_serious_violations(table):
    if not AXE.exists():
        pytest.fail("axe-core is missing: run `make test-browser` (it installs the npm packages)")
    world = table.make_world("flairs")
    table.standin.call(world.settings.__setitem__, "verdict.skillsPath", "skills")
    table.standin.call(
        world.settings.__setitem__, "verdict.mapping", {"flairs": {"rank": "@skill.value", "edges": "@nope"}}
    )
    gm, ayla = table.open("gm1", "flairs"), table.open("p1", "flairs")
    connected(gm, ayla)
    problems: dict[str, list[str]] = {}
    gm.evaluate("standin.openSettingsMenu('verdict.mappingMenu')")
    gm.locator("#verdict-mapping tr[data-field='edges'] .verdict-mapping-problem").wait_for(timeout=15000)
    # the skill a roll is for (@skill) is previewed with one of the actor's skills
    gm.locator("#verdict-mapping select[name=actor]").select_option("actorAyla")
    gm.locator("#verdict-mapping select[name=skill]").select_option("athletics")
    gm.locator("#verdict-mapping tr[data-field='rank'] .verdict-mapping-ok:has-text('3')").wait_for(timeout=15000)
    problems["mapping form"] = violations(gm, "#verdict-mapping")
    gm.evaluate("standin.openSettingsMenu('verdict.gmKeyMenu')")
    gm.locator("#verdict-gm-key").wait_for(timeout=15000)
    problems["GM key form"] = violations(gm, "#verdict-gm-key")
    ayla.evaluate("new standin.SimpleActorSheet(game.actors.get('actorAyla'), {id: 'sheet-ayla'}).render(true)")
    ayla.locator("#sheet-ayla .verdict-sheet button[data-skill]").first.wait_for(timeout=15000)
    problems["sheet section"] = violations(ayla, "#sheet-ayla .verdict-sheet")
    bad = {k: v for k, v in problems.items() if v}
    assert not bad, "\n".join(f"{k}: {line}" for k, v in bad.items() for line in v)
