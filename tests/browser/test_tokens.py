"""Tokens: conditions, wounds, scratches and taken down as registered status effects, strain as a counter
drawn on the token. Only the active GM's client writes the actor; every page draws what it wrote."""

from __future__ import annotations

import pytest

from .helpers import API, connected

pytestmark = pytest.mark.browser

AYLA = "#board .token[data-actor='actorAyla']"


@pytest.mark.generations(13, 14)
def test_an_epic_failure_marks_the_token_and_strain_shows(table, shot):
    gm, player = table.open("gm1", "challenge"), table.open("p1", "challenge")
    connected(gm, player)
    # CONFIG.statusEffects: an array in v13, an object keyed by id in v14.
    registered = gm.evaluate(
        "Array.isArray(CONFIG.statusEffects) ? CONFIG.statusEffects.map(e => e.id) : Object.keys(CONFIG.statusEffects)"
    )
    for sid in ("verdict-condition", "verdict-wound", "verdict-scratch", "verdict-taken-down"):
        assert sid in registered
    assert "dead" in registered  # Foundry's own are kept
    gm.wait_for_selector(AYLA, timeout=15000)
    assert gm.locator(f"{AYLA} [data-status]").count() == 0
    assert gm.locator(f"{AYLA} .token-text").count() == 0

    # A failure by two levels: +3 strain, drawn as a counter on the token.
    player.evaluate(
        f"{API}.client.roll({{check: {{system: 'challenge', cl: 3, modifier: 0, dice: [5]}}, actor: 'actorAyla', scene: 'scene1', label: 'Hold the gate'}})"
    )
    for page in (gm, player):
        page.wait_for_selector(f"{AYLA} .token-text[data-name='verdict-strain']:has-text('3')", timeout=15000)
        assert page.locator(f"{AYLA} [data-status='verdict-condition']").count() == 0
    # A natural 1 is an epic failure: a new condition, shown as the condition status effect.
    player.evaluate(
        f"{API}.client.roll({{check: {{system: 'challenge', cl: 3, modifier: 0, dice: [1]}}, actor: 'actorAyla', scene: 'scene1', label: 'Hold the gate again'}})"
    )
    for page in (gm, player):
        page.wait_for_selector(f"{AYLA} [data-status='verdict-condition']", timeout=15000)
        assert page.locator(f"{AYLA} .token-text[data-name='verdict-strain']").inner_text().strip() == "Strain 3"
        # Bram's token is untouched.
        assert page.locator("#board .token[data-actor='actorBram'] [data-status]").count() == 0
    # Every write came from the GM's client, none from the player's.
    writes = player.evaluate("window.__writes")
    assert any(w["what"] == "status verdict-condition on" for w in writes)
    assert any(w["what"] == "flag verdict.strain" for w in writes)
    assert {w["by"] for w in writes} == {"gm1"}
    shot(player, AYLA, "token-strain-condition.png")

    # "Apply" on the GM's card brings the token back in line with the table after a manual change.
    gm.evaluate("game.actors.get('actorAyla').toggleStatusEffect('verdict-condition', {active: false})")
    player.wait_for_selector(f"{AYLA}:not(:has([data-status='verdict-condition']))", timeout=15000)
    assert player.locator(".verdict-card [data-verdict-apply]").count() == 0
    gm.locator(".chat-message:last-child .verdict-card [data-verdict-apply]").click()
    for page in (gm, player):
        page.wait_for_selector(f"{AYLA} [data-status='verdict-condition']", timeout=15000)
    # A card that names no actor has nothing to apply.
    gm.evaluate(
        f"{API}.client.roll({{check: {{system: 'challenge', cl: 2, modifier: 0, dice: [10]}}, label: 'Nobody in particular'}})"
    )
    card = gm.locator(".verdict-card:has(.verdict-label:has-text('Nobody in particular'))")
    card.wait_for(timeout=15000)
    assert card.locator("[data-verdict-apply]").count() == 0


@pytest.mark.generations(13, 14)
def test_a_system_that_rebuilds_the_status_list_keeps_the_markers(table):
    """The test system replaces CONFIG.statusEffects on every `canvasReady`, as some systems do."""
    table.system = "rebuild"
    gm, player = table.open("gm1", "challenge"), table.open("p1", "challenge")
    connected(gm, player)
    assert gm.evaluate("game.release.generation") == table.generation
    player.evaluate(
        f"{API}.client.roll({{check: {{system: 'challenge', cl: 3, modifier: 0, dice: [1]}}, actor: 'actorAyla', scene: 'scene1', label: 'Slip'}})"
    )
    for page in (gm, player):
        page.wait_for_selector(f"{AYLA} [data-status='verdict-condition']", timeout=15000)
    # The scene is drawn again (the system rebuilds the list again): the marker stays.
    for page in (gm, player):
        page.evaluate("standin.drawCanvas()")
    for page in (gm, player):
        page.wait_for_selector(f"{AYLA} [data-status='verdict-condition']", timeout=15000)
    # The statuses the sidecar owns are not offered in the token HUD (`hud: false`).
    cfg = gm.evaluate("""() => { const s = CONFIG.statusEffects;
        const e = Array.isArray(s) ? s.find((x) => x.id === 'verdict-condition') : s['verdict-condition'];
        return e ? {hud: e.hud ?? true} : null; }""")
    assert cfg == {"hud": False}


def test_the_token_hud_opens_the_roll_dialog_for_its_actor(table):
    gm, player = table.open("gm1", "challenge"), table.open("p1", "challenge")
    connected(gm, player)
    # The HUD as Foundry renders it (a left column of control icons), for Ayla's token and for Bram's.
    player.evaluate(
        """() => {
          for (const id of ["actorAyla", "actorBram"]) {
            const hud = document.createElement("div");
            hud.id = "hud-" + id;
            hud.style.cssText = "position: fixed; left: 420px; top: 320px; z-index: 10000";
            hud.innerHTML = '<div class="col left"></div>';
            document.body.append(hud);
            Hooks.callAll("renderTokenHUD", {actor: game.actors.get(id)}, hud);
          }
        }"""
    )
    mine = player.locator("#hud-actorAyla [data-action='verdictRoll']")
    assert mine.count() == 1
    assert player.locator("#hud-actorBram [data-action='verdictRoll']").count() == 0  # not the player's actor
    mine.click()
    player.locator(".verdict-roll-dialog").wait_for(timeout=15000)


def test_the_combat_tracker_opens_the_verdict_tracker(table):
    gm = table.open("gm1", "challenge")
    connected(gm)
    # The sidebar's combat tracker, rendered at start-up (hook `renderCombatTracker` with its element).
    button = gm.locator("#combat .verdict-open-tracker")
    assert button.count() == 1
    button.click()
    gm.locator(".verdict-tracker").wait_for(timeout=15000)


@pytest.mark.generations(13, 14)
def test_the_popped_out_combat_tracker_keeps_its_button(table):
    """v14 pops the tracker out into a window with its own document (v13: a window in the same document)."""
    gm = table.open("gm1", "challenge")
    connected(gm)
    gm.evaluate("standin.popoutCombat()")
    if table.generation >= 14:
        assert gm.evaluate("document.getElementById('combat-popout-window').contentDocument !== document")
        popout = gm.frame_locator("#combat-popout-window")
    else:
        popout = gm.locator("#combat-popout-window")
    button = popout.locator("#combat-popout .verdict-open-tracker")
    button.wait_for(timeout=15000)
    assert button.count() == 1
    button.click()
    gm.locator(".verdict-tracker").wait_for(timeout=15000)


def test_sheet_header_controls_offer_a_roll_to_owners(table):
    gm, player = table.open("gm1", "challenge"), table.open("p1", "challenge")
    connected(gm, player)

    def open_sheet(page, actor: str):
        """An ActorSheetV2 for ``actor``, its header-controls menu opened (built now, as Foundry builds it)."""
        page.evaluate(
            f"new standin.ActorSheet({{document: game.actors.get('{actor}'), id: 'sheet-{actor}'}}).render({{force: true}})"
        )
        sheet = page.locator(f"#sheet-{actor}")
        sheet.locator("[data-action=toggleControls]").click()
        return sheet

    # Only on an actor the user owns.
    assert open_sheet(player, "actorBram").locator(".controls-dropdown [data-action='verdictRoll']").count() == 0
    mine = open_sheet(player, "actorAyla").locator(".controls-dropdown [data-action='verdictRoll']")
    assert mine.count() == 1
    mine.click()
    player.locator(".verdict-roll-dialog").wait_for(timeout=15000)
    # Two sheets open on the GM's page: each entry rolls for its own sheet's actor (per-instance options).
    open_sheet(gm, "actorAyla")
    open_sheet(gm, "actorBram").locator(".controls-dropdown [data-action='verdictRoll']").click()
    dialog = gm.locator(".verdict-roll-dialog")
    dialog.wait_for(timeout=15000)
    assert "Bram Ashdown" in dialog.locator(".window-title").inner_text()


@pytest.mark.generations(13, 14)
def test_the_markers_have_icons_of_the_modules_own_named_as_the_rule_set_names_them(table, web):
    gm = table.open("gm1", "challenge")
    connected(gm)
    entries = gm.evaluate(
        """() => { const list = Array.isArray(CONFIG.statusEffects) ? CONFIG.statusEffects : Object.values(CONFIG.statusEffects);
          return list.filter((e) => String(e.id).startsWith('verdict-')).map((e) => ({id: e.id, name: game.i18n.localize(e.name), img: e.img})); }"""
    )
    names = {e["id"]: e["name"] for e in entries}
    assert names == {
        "verdict-condition": "Condition",
        "verdict-wound": "Wound",
        "verdict-scratch": "Scratch",
        "verdict-taken-down": "Taken Down",
    }
    core = gm.evaluate(
        """() => (Array.isArray(CONFIG.statusEffects) ? CONFIG.statusEffects : Object.values(CONFIG.statusEffects))
          .filter((e) => !String(e.id).startsWith('verdict-')).map((e) => e.img)"""
    )
    for e in entries:
        assert e["img"].startswith("modules/verdict/icons/") and e["img"] not in core, e
        # the icon is there to load, an SVG
        loaded = gm.evaluate(
            "async (src) => { const r = await fetch('/' + src); return [r.status, (await r.text()).startsWith('<svg')]; }",
            e["img"],
        )
        assert loaded == [200, True], e


def test_the_connection_indicator_does_not_cover_the_player_list(table):
    gm, player = table.open("gm1"), table.open("p1")
    connected(gm, player)
    for page in (gm, player):
        page.locator("#players li").first.wait_for(timeout=15000)
        overlap = page.evaluate(
            """() => { const pill = document.querySelector('#verdict-status').getBoundingClientRect();
              return [...document.querySelectorAll('#players li')].some((li) => { const r = li.getBoundingClientRect();
                return !(r.right <= pill.left || r.left >= pill.right || r.bottom <= pill.top || r.top >= pill.bottom); }); }"""
        )
        assert not overlap, "the pill sits on top of the player list"
        assert page.locator("#verdict-status").is_visible()
