"""Every surface this module draws beside the chat card, in the dark and the light scheme: the roll dialog,
the tracker, the mapping form, the GM key form and the sheet section, each screenshot into the suite's report
and checked by axe-core, and the mapping form's problem text measured for contrast against what is behind it
(WCAG AA: 4.5:1 at its size)."""

from __future__ import annotations

import pytest

from .helpers import API, add_complications, connected
from .test_accessibility import AXE, violations

pytestmark = pytest.mark.browser

THEMES = ("dark", "light")

# The contrast of an element's text against the first opaque background behind it, as a browser draws them.
CONTRAST = """(el) => {
  const rgb = (c) => { const m = c.match(/[\\d.]+/g).map(Number); return {r: m[0], g: m[1], b: m[2], a: m[3] ?? 1}; };
  const lum = ({r, g, b}) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  let bg = null;
  for (let n = el; n; n = n.parentElement) { const c = rgb(getComputedStyle(n).backgroundColor); if (c.a >= 0.99) { bg = c; break; } }
  bg ??= {r: 255, g: 255, b: 255};
  const fg = rgb(getComputedStyle(el).color);
  const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
  return (hi + 0.05) / (lo + 0.05);
}"""


def theme(page, name: str) -> None:
    page.evaluate(
        "(name) => { for (const el of document.querySelectorAll('.theme-dark, .theme-light')) "
        "{ el.classList.remove('theme-dark', 'theme-light'); el.classList.add(`theme-${name}`); } }",
        name,
    )


def check(page, selector: str, name: str, shot) -> list[str]:
    shot(page, selector, name)
    return violations(page, selector) if AXE.exists() else []


@pytest.mark.parametrize("scheme", THEMES)
def test_the_gms_surfaces_read_in_both_schemes(table, shot, scheme):
    world = table.make_world("flairs")
    table.standin.call(world.settings.__setitem__, "verdict.skillsPath", "skills")
    table.standin.call(
        world.settings.__setitem__, "verdict.mapping", {"flairs": {"rank": "@skill.value", "edges": "@nope"}}
    )
    gm, ayla = table.open("gm1", "flairs"), table.open("p1", "flairs")
    connected(gm, ayla)
    for page in (gm, ayla):
        theme(page, scheme)
    problems: dict[str, list[str]] = {}

    gm.evaluate("standin.openSettingsMenu('verdict.mappingMenu')")
    form = gm.locator("#verdict-mapping")
    problem = form.locator("tr[data-field='edges'] .verdict-mapping-problem")
    problem.wait_for(timeout=15000)
    ratio = problem.evaluate(CONTRAST)
    assert ratio >= 4.5, f"the mapping form's problem text reads at {ratio:.2f}:1"
    # The lurking trials are the GM's secret at the table, never a character's number.
    assert form.locator("tr[data-field='lurking']").count() == 0
    problems["mapping form"] = check(gm, "#verdict-mapping", f"mapping-form-{scheme}.png", shot)
    form.locator(".window-header [data-action=close]").click()

    gm.evaluate("standin.openSettingsMenu('verdict.gmKeyMenu')")
    gm.locator("#verdict-gm-key").wait_for(timeout=15000)
    problems["GM key form"] = check(gm, "#verdict-gm-key", f"gm-key-form-{scheme}.png", shot)
    gm.locator("#verdict-gm-key .window-header [data-action=close]").click()

    tracker = add_complications(gm, "A ward seals the cellar", "The miller's dogs are loose")
    gm.evaluate(f"{API}.client.gm({{op: 'lurking_set', trials: ['loud'], scene: 'scene1', actor: null}})")
    tracker.locator(".verdict-lurking li").first.wait_for(timeout=15000)
    problems["tracker"] = check(gm, ".verdict-tracker", f"tracker-gm-{scheme}.png", shot)

    ayla.evaluate(f"{API}.roll({{actor: 'actorAyla', system: 'flairs', label: 'Climb the wall'}})")
    ayla.locator(".verdict-roll-dialog .verdict-odds-legend li").first.wait_for(timeout=15000)
    problems["roll dialog"] = check(ayla, ".verdict-roll-dialog", f"dialog-flairs-player-{scheme}.png", shot)

    ayla.evaluate("new standin.SimpleActorSheet(game.actors.get('actorAyla'), {id: 'sheet-ayla'}).render(true)")
    ayla.locator("#sheet-ayla .verdict-sheet button[data-skill]").first.wait_for(timeout=15000)
    problems["sheet section"] = check(ayla, "#sheet-ayla", f"sheet-v1-{scheme}.png", shot)
    bad = {k: v for k, v in problems.items() if v}
    assert not bad, "\n".join(f"{k}: {line}" for k, v in bad.items() for line in v)
