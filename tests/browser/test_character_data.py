"""Check fields from the character's own data: the GM maps a field to a roll-data path or formula once for
the world (a labelled form that says when a path does not resolve), and the roll dialog starts from the
character's numbers."""

from __future__ import annotations

import json

import pytest

from .helpers import API, connected

pytestmark = pytest.mark.browser


def _map(gm, system: str, fields: dict[str, str]):
    gm.evaluate("standin.openSettingsMenu('verdict.mappingMenu')")
    form = gm.locator("#verdict-mapping")
    form.wait_for(timeout=15000)
    form.locator("select[name=system]").select_option(system)
    form.locator(f"tr[data-field='{next(iter(fields))}']").wait_for(timeout=15000)
    form.locator("select[name=actor]").select_option("actorAyla")
    for field, expr in fields.items():
        box = form.locator(f"input[data-field='{field}']")
        box.fill(expr)
        box.dispatch_event("change")
    return form


def test_the_gm_maps_rank_to_a_skill_and_the_dialog_starts_from_it(table):
    gm, ayla = table.open("gm1", "flairs"), table.open("p1", "flairs")
    connected(gm, ayla)
    # Ayla once rolled with edges 2: the dialog remembers it for her
    ayla.evaluate("game.modules.get('verdict').api.rememberDefaults('actorAyla', 'flairs', {rank: 1, edges: 2})")
    ayla.wait_for_function(
        "game.actors.get('actorAyla').getFlag('verdict', 'defaults')?.flairs?.edges === 2", timeout=15000
    )
    form = _map(gm, "flairs", {"rank": "@skills.athletics.value", "edges": "@skills.climb.value"})
    # the form shows each mapping's value for the chosen actor, and says why one does not resolve
    form.locator("tr[data-field='rank'] .verdict-mapping-ok:has-text('3')").wait_for(timeout=15000)
    problem = form.locator("tr[data-field='edges'] .verdict-mapping-problem")
    problem.wait_for(timeout=15000)
    assert "@skills.climb.value" in problem.inner_text()
    assert form.locator("input[data-field='edges']").get_attribute("aria-invalid") == "true"
    assert form.locator("#verdict-mapping-paths option[value='@skills.athletics.value']").count() == 1
    form.locator("button[type=submit]").click()
    ayla.wait_for_function(
        "game.settings.get('verdict', 'mapping')?.flairs?.rank === '@skills.athletics.value'", timeout=15000
    )
    # the player's dialog: rank from her data, edges (not resolving) from what she used last
    ayla.evaluate(f"{API}.roll({{system: 'flairs', label: 'Climb the wall'}})")
    dialog = ayla.locator(".verdict-roll-dialog")
    dialog.wait_for(timeout=15000)
    assert dialog.locator("[name='field.rank']").input_value() == "3"
    assert dialog.locator("[name='field.edges']").input_value() == "2"
    dialog.locator(".verdict-odds-legend li").first.wait_for(timeout=15000)
    dialog.locator("button[type=submit]").click()
    ayla.locator(".verdict-card:has(.verdict-label:has-text('Climb the wall'))").wait_for(timeout=15000)
    rolls = [json.loads(f) for f in table.sent.get("gm1", []) if '"type":"roll"' in f.replace(" ", "")]
    climbs = [r for r in rolls if r.get("label") == "Climb the wall"]
    assert climbs and climbs[0]["check"]["rank"] == 3 and climbs[0]["check"]["edges"] == 2


def test_a_formula_and_the_simple_worldbuilding_preset(table):
    gm = table.open("gm1", "boons")
    connected(gm)
    form = _map(gm, "boons", {"ability": "floor((@ability + @rank) / 2) + 1"})
    form.locator("tr[data-field='ability'] .verdict-mapping-ok:has-text('3')").wait_for(timeout=15000)
    form.locator("[data-action=preset][data-preset='worldbuilding']").click()
    form.locator("input[data-field='ability'][value='@ability']").wait_for(timeout=15000)
    form.locator("tr[data-field='ability'] .verdict-mapping-ok:has-text('3')").wait_for(timeout=15000)
    # "No mapping" wipes every field: it asks first, and nothing is cleared until the GM confirms.
    form.locator("[data-action=preset][data-preset='none']").click()
    form.locator(".verdict-mapping-confirm").wait_for(timeout=15000)
    assert form.locator("input[data-field='ability']").input_value() == "@ability"
    form.locator("[data-action=preset][data-preset='keep']").click()
    form.locator(".verdict-mapping-confirm").wait_for(state="detached", timeout=15000)
    assert form.locator("input[data-field='ability']").input_value() == "@ability"
    form.locator("[data-action=preset][data-preset='none']").click()
    form.locator("[data-action=preset][data-preset='none']:has-text('Clear every field')").click()
    form.locator("input[data-field='ability'][value='']").wait_for(timeout=15000)


def _sheet_world(table):
    """A world whose settings name where the actors' skills are and map rank to the skill rolled: the GM's
    page and Ayla's, logged in to it."""
    world = table.make_world("flairs")
    table.standin.call(world.settings.__setitem__, "verdict.skillsPath", "skills")
    table.standin.call(world.settings.__setitem__, "verdict.mapping", {"flairs": {"rank": "@skill.value"}})
    return table.open("gm1", "flairs"), table.open("p1", "flairs")


@pytest.mark.parametrize("sheet", ["v1", "v2"])
def test_the_sheet_rolls_a_skill_with_the_characters_numbers(table, sheet):
    gm, ayla = _sheet_world(table)
    connected(gm, ayla)
    if sheet == "v1":
        ayla.evaluate("new standin.SimpleActorSheet(game.actors.get('actorAyla'), {id: 'sheet-ayla'}).render(true)")
    else:
        ayla.evaluate(
            "new standin.ActorSheet({document: game.actors.get('actorAyla'), id: 'sheet-ayla'}).render({force: true})"
        )
    section = ayla.locator("#sheet-ayla .verdict-sheet")
    section.wait_for(timeout=15000)
    athletics = section.locator("button[data-skill='athletics']")
    assert "Athletics" in athletics.inner_text() and "3" in athletics.inner_text()
    # a click opens the dialog prefilled from the skill
    athletics.click()
    dialog = ayla.locator(".verdict-roll-dialog")
    dialog.wait_for(timeout=15000)
    assert dialog.locator("[name='field.rank']").input_value() == "3"
    dialog.locator(".window-header [data-action=close]").click()
    dialog.wait_for(state="detached")
    # shift-click rolls at once with those values: the sidecar receives rank 1 for stealth, 3 for athletics
    section.locator("button[data-skill='stealth']").click(modifiers=["Shift"])
    ayla.locator(".verdict-card:has(.verdict-label:has-text('Stealth'))").wait_for(timeout=15000)
    rolls = [json.loads(f) for f in table.sent.get("gm1", []) if '"type":"roll"' in f.replace(" ", "")]
    assert [r["check"]["rank"] for r in rolls if r.get("label") == "Stealth"] == [1]


@pytest.mark.generations(13, 14)
def test_the_sheet_shows_the_characters_state_and_drops_it_after_an_undo(table):
    gm, ayla, bram = table.open("gm1", "challenge"), table.open("p1", "challenge"), table.open("p2", "challenge")
    connected(gm, ayla, bram)
    for page in (ayla, bram, gm):
        page.evaluate(
            "new standin.ActorSheet({document: game.actors.get('actorAyla'), id: 'sheet-ayla'}).render({force: true})"
        )
    # a failure by two levels (strain) and an epic failure (a condition) on Ayla's sheet, for every viewer
    for faces, label in ((5, "Strain"), (1, "Slip")):
        ayla.evaluate(
            f"{API}.client.roll({{check: {{system: 'challenge', cl: 3, modifier: 0, dice: [{faces}]}}, actor: 'actorAyla', label: '{label}'}})"
        )
    for page in (ayla, bram, gm):
        page.wait_for_selector("#sheet-ayla .verdict-sheet dd[data-stat='strain']:not(:has-text('0'))", timeout=15000)
        page.wait_for_selector(
            "#sheet-ayla .verdict-sheet dd[data-stat='conditions']:not(:has-text('none'))", timeout=15000
        )
    # Bram's self roll (a failure: strain for Bram) is his alone: Ayla's view of his sheet shows none of it
    bram.evaluate(
        f"{API}.client.roll({{check: {{system: 'challenge', cl: 3, modifier: 0, dice: [5]}}, actor: 'actorBram', mode: 'self', label: 'Alone'}})"
    )
    bram.locator(".verdict-card:has(.verdict-label:has-text('Alone'))").wait_for(timeout=15000)
    ayla.evaluate(
        "new standin.ActorSheet({document: game.actors.get('actorBram'), id: 'sheet-bram'}).render({force: true})"
    )
    ayla.locator("#sheet-bram .verdict-sheet dd[data-stat='strain']").wait_for(timeout=15000)
    assert ayla.locator("#sheet-bram .verdict-sheet dd[data-stat='strain']").inner_text() == "0"
    # the GM undoes the last three actions (Bram's roll, the Slip, the strain): the sheet drops the state
    gm.evaluate(f"{API}.client.gm({{op: 'undo', count: 3}})")
    for page in (ayla, gm):
        page.wait_for_selector("#sheet-ayla .verdict-sheet dd[data-stat='strain']:has-text('0')", timeout=15000)
        page.wait_for_selector("#sheet-ayla .verdict-sheet dd[data-stat='conditions']:has-text('none')", timeout=15000)


def test_a_skill_dragged_to_the_hotbar_makes_one_macro_that_rolls(table):
    gm, ayla = _sheet_world(table)
    connected(gm, ayla)
    ayla.evaluate("new standin.SimpleActorSheet(game.actors.get('actorAyla'), {id: 'sheet-ayla'}).render(true)")
    skill = ayla.locator("#sheet-ayla .verdict-sheet button[data-skill='athletics']")
    skill.wait_for(timeout=15000)
    skill.drag_to(ayla.locator("#hotbar .macro[data-slot='3']"))
    ayla.wait_for_function("game.user.hotbar?.[3] !== undefined", timeout=15000)
    skill.drag_to(ayla.locator("#hotbar .macro[data-slot='4']"))
    ayla.wait_for_function("game.user.hotbar?.[4] !== undefined", timeout=15000)
    assert ayla.evaluate("game.macros.size") == 1  # the same skill again: the same macro
    ayla.locator("#hotbar .macro[data-slot='4']").click()
    dialog = ayla.locator(".verdict-roll-dialog")
    dialog.wait_for(timeout=15000)
    assert dialog.locator("[name='field.rank']").input_value() == "3"


def test_the_dialog_offers_the_characters_skills(table):
    gm, ayla = _sheet_world(table)
    connected(gm, ayla)
    ayla.evaluate(f"{API}.roll({{actor: 'actorAyla', system: 'flairs'}})")
    dialog = ayla.locator(".verdict-roll-dialog")
    dialog.wait_for(timeout=15000)
    skill = dialog.locator("select[name=verdict-skill]")
    assert skill.locator("option").all_inner_texts() == ["—", "Athletics (3)", "Stealth (1)"]
    skill.select_option("stealth")
    ayla.wait_for_function(
        "document.querySelector(\".verdict-roll-dialog [name='field.rank']\").value === '1'", timeout=15000
    )
    dialog.locator("select[name=verdict-skill]").select_option("athletics")
    ayla.wait_for_function(
        "document.querySelector(\".verdict-roll-dialog [name='field.rank']\").value === '3'", timeout=15000
    )


def _rolls(table, label: str) -> list[dict]:
    """The roll requests the table's relay (the GM's browser) sent the sidecar under ``label``."""
    rolls = [json.loads(f) for f in table.sent.get("gm1", []) if '"type":"roll"' in f.replace(" ", "")]
    return [r for r in rolls if r.get("label") == label]


def test_the_token_hud_rolls_from_the_tokens_own_numbers(table):
    world = table.make_world("flairs")
    # the goblins' base actor has athletics 1; the first goblin's token (unlinked) has its own 4 in its delta
    table.standin.call(world.actors["actorGoblin"].__setitem__, "system", {"skills": {"athletics": {"value": 1}}})
    table.standin.call(world.tokens["tokGob1"]["delta"].__setitem__, "system", {"skills": {"athletics": {"value": 4}}})
    table.standin.call(world.settings.__setitem__, "verdict.mapping", {"flairs": {"rank": "@skills.athletics.value"}})
    gm = table.open("gm1", "flairs")
    connected(gm)
    gm.evaluate(
        """() => {
          for (const [i, id] of ["tokGob1", "tokGob2"].entries()) {
            const token = canvas.tokens.placeables.find((t) => t.id === id);
            const hud = document.createElement("div");
            hud.id = "hud-" + id;
            hud.style.cssText = `position: fixed; left: ${420 + 100 * i}px; top: 320px; z-index: 10000`;
            hud.innerHTML = '<div class="col left"></div>';
            document.body.append(hud);
            Hooks.callAll("renderTokenHUD", {object: token, actor: token.actor}, hud);
          }
        }"""
    )
    for token, rank, label in (("tokGob1", "4", "Ears climbs"), ("tokGob2", "1", "Nose climbs")):
        gm.locator(f"#hud-{token} [data-action='verdictRoll']").click()
        dialog = gm.locator(".verdict-roll-dialog")
        dialog.wait_for(timeout=15000)
        assert dialog.locator("[name='field.rank']").input_value() == rank
        dialog.locator("[name=label]").fill(label)
        dialog.locator("button[type=submit]").click()
        gm.locator(f".verdict-card:has(.verdict-label:has-text('{label}'))").wait_for(timeout=15000)
        dialog.wait_for(state="detached")
    # the sidecar received each goblin's own rank, for that token's synthetic actor, typed by no one
    ears, nose = _rolls(table, "Ears climbs"), _rolls(table, "Nose climbs")
    assert [(r["check"]["rank"], r["actor"]) for r in ears] == [(4, "Scene.scene1.Token.tokGob1")]
    assert [(r["check"]["rank"], r["actor"]) for r in nose] == [(1, "Scene.scene1.Token.tokGob2")]


def test_the_request_card_starts_from_the_rolling_players_character(table):
    table.standin.call(
        table.make_world("flairs").settings.__setitem__,
        "verdict.mapping",
        {"flairs": {"rank": "@skills.athletics.value", "edges": "@skills.stealth.value"}},
    )
    gm, ayla = table.open("gm1", "flairs"), table.open("p1", "flairs")
    connected(gm, ayla)
    gm.click("#scene-controls [data-tool='verdict-request']")
    dialog = gm.locator(".verdict-roll-dialog")
    dialog.wait_for(timeout=15000)
    # both mapped fields are left to the character until the GM sets one: edges 2 is the GM's
    dialog.locator(".verdict-from-character").nth(1).wait_for(timeout=15000)
    edges = dialog.locator("[name='field.edges']")
    edges.fill("2")
    edges.dispatch_event("change")
    gm.wait_for_function("document.querySelectorAll('.verdict-roll-dialog .verdict-from-character').length === 1")
    rank = dialog.locator("[name='field.rank']")
    note = rank.get_attribute("aria-describedby")
    assert note and "character" in dialog.locator(f"[id='{note}']").inner_text()
    dialog.locator("[name=label]").fill("Scale the tower")
    dialog.locator("button[type=submit]").click()
    dialog.wait_for(state="detached")
    card = ayla.locator(".verdict-request:has(.verdict-label:has-text('Scale the tower'))")
    card.wait_for(timeout=15000)
    assert "the character's" in card.inner_text()
    card.locator("[data-verdict-request-roll]").click()
    mine = ayla.locator(".verdict-roll-dialog")
    mine.wait_for(timeout=15000)
    # rank from Ayla's athletics (3), edges the GM's 2 (not her stealth), fixed by the request
    assert mine.locator("[name='field.rank']").input_value() == "3"
    assert not mine.locator("[name='field.rank']").is_disabled()
    assert mine.locator("[name='field.edges']").input_value() == "2"
    assert mine.locator("[name='field.edges']").is_disabled()
    mine.locator(".verdict-odds-legend li").first.wait_for(timeout=15000)
    mine.locator("button[type=submit]").click()
    mine.wait_for(state="detached")
    gm.wait_for_selector(
        ".verdict-request:has(.verdict-label:has-text('Scale the tower')) li[data-user='p1'] .verdict-outcome-chip",
        timeout=15000,
    )
    climbs = _rolls(table, "Scale the tower")
    assert [(r["check"]["rank"], r["check"]["edges"]) for r in climbs] == [(3, 2)]
    requests = [
        m["flags"]["verdict"]["request"] for m in table.messages() if "request" in m["flags"].get("verdict", {})
    ]
    assert [r["fromCharacter"] for r in requests] == [["rank"]]
