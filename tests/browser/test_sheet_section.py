"""The sheet's Verdict section as part of the sheet: inside the sheet's form (a V1 sheet's render hook gets the
whole window first, its form later), in the active tab's body on a tabbed sheet, styled as the sheet's own
lists (no browser-default indent or bullets), and only the state the world's rule set has."""

from __future__ import annotations

import pytest

from .helpers import connected
from .test_accessibility import AXE, violations

pytestmark = pytest.mark.browser

V1 = "new standin.SimpleActorSheet(game.actors.get('actorAyla'), {id: 'sheet-ayla'}).render(true)"


def _skills(table, system: str):
    world = table.make_world(system)
    table.standin.call(world.settings.__setitem__, "verdict.skillsPath", "skills")
    return table.open("gm1", system), table.open("p1", system)


def test_the_v1_section_sits_in_the_form_from_the_first_render(table):
    gm, ayla = _skills(table, "challenge")
    connected(gm, ayla)
    ayla.evaluate(f"window.__sheet = {V1.removesuffix('.render(true)')}; window.__sheet.render(true)")
    section = ayla.locator("#sheet-ayla .verdict-sheet")
    section.wait_for(timeout=15000)
    assert ayla.locator("#sheet-ayla form .verdict-sheet").count() == 1, "inside the sheet's form at once"
    assert ayla.locator("#sheet-ayla form .sheet-body .verdict-sheet").count() == 1, "in the sheet's body"
    # rendered again (its form drawn anew, the hook given the form): still one, still inside
    ayla.evaluate("window.__sheet.render(true)")
    ayla.wait_for_selector("#sheet-ayla form .sheet-body .verdict-sheet", timeout=15000)
    assert ayla.locator("#sheet-ayla .verdict-sheet").count() == 1


def test_the_section_is_styled_as_the_sheets_own_and_shows_what_the_rule_set_has(table, shot):
    gm, ayla = _skills(table, "flairs")
    connected(gm, ayla)
    ayla.evaluate(V1)
    section = ayla.locator("#sheet-ayla .verdict-sheet")
    section.locator("button[data-skill]").first.wait_for(timeout=15000)
    style = section.evaluate(
        """(s) => ({
          dd: getComputedStyle(s.querySelector('dd') ?? s).marginLeft,
          list: getComputedStyle(s.querySelector('ul')).listStyleType,
          pad: getComputedStyle(s.querySelector('ul')).paddingLeft,
        })"""
    )
    assert style == {"dd": "0px", "list": "none", "pad": "0px"}, style
    # strain, wounds and scratches are not flairs' words: none of them on the sheet
    for stat in ("strain", "wounds", "scratches", "game_changers"):
        assert section.locator(f"dd[data-stat='{stat}']").count() == 0, stat
    # the shift-click hint is written out, not a tooltip
    assert "shift-click" in section.locator(".verdict-sheet-hint").inner_text().lower()
    shot(ayla, "#sheet-ayla", "sheet-v1-flairs-dark.png")
    ayla.evaluate("document.body.classList.replace('theme-dark', 'theme-light')")
    shot(ayla, "#sheet-ayla", "sheet-v1-flairs-light.png")
    if AXE.exists():
        assert violations(ayla, "#sheet-ayla .verdict-sheet") == []


def test_a_challenge_world_shows_strain_and_conditions(table):
    gm, ayla = _skills(table, "challenge")
    connected(gm, ayla)
    ayla.evaluate(V1)
    section = ayla.locator("#sheet-ayla .verdict-sheet")
    section.locator("dd[data-stat='strain']").wait_for(timeout=15000)
    assert section.locator("dd[data-stat='conditions']").count() == 1
    assert section.locator("dd[data-stat='wounds']").count() == 0


def test_on_a_tabbed_sheet_the_section_is_in_the_active_tabs_body(table):
    gm, ayla = _skills(table, "challenge")
    connected(gm, ayla)
    # A V1 sheet with tabs, as many systems draw them: nav items and one body per tab, one active.
    ayla.evaluate(
        """(() => {
          class TabbedSheet extends standin.SimpleActorSheet {
            async _renderInner(data) {
              const form = await super._renderInner(data);
              form.querySelector('.sheet-body').innerHTML =
                '<nav class="sheet-tabs tabs"><a class="item active" data-tab="main">Main</a><a class="item" data-tab="notes">Notes</a></nav>'
                + '<div class="tab active" data-tab="main"><p>main</p></div><div class="tab" data-tab="notes"><p>notes</p></div>';
              form.querySelectorAll('nav [data-tab]').forEach((a) => a.addEventListener('click', () => {
                for (const el of form.querySelectorAll('[data-tab]')) el.classList.toggle('active', el.dataset.tab === a.dataset.tab);
              }));
              return form;
            }
          }
          return new TabbedSheet(game.actors.get('actorAyla'), {id: 'sheet-tabs'}).render(true);
        })()"""
    )
    ayla.locator("#sheet-tabs .verdict-sheet").wait_for(timeout=15000)
    assert ayla.locator("#sheet-tabs .tab.active[data-tab='main'] .verdict-sheet").count() == 1
    ayla.locator("#sheet-tabs nav [data-tab='notes']").click()
    ayla.wait_for_selector("#sheet-tabs .tab.active[data-tab='notes'] .verdict-sheet", timeout=15000)
    assert ayla.locator("#sheet-tabs .verdict-sheet").is_visible()
