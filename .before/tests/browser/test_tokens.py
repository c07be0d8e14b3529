"""Tokens: conditions, wounds, scratches and taken down as registered status effects, strain as a counter
drawn on the token. Only the active GM's client writes the actor; every page draws what it wrote."""

from __future__ import annotations

import pytest

from .helpers import API, connected

pytestmark = pytest.mark.browser

AYLA = "#board .token[data-actor='actorAyla']"


def test_an_epic_failure_marks_the_token_and_strain_shows(table, shot):
    gm, player = table.open("gm1", "challenge"), table.open("p1", "challenge")
    connected(gm, player)
    registered = gm.evaluate("CONFIG.statusEffects.map(e => e.id)")
    for sid in ("verdict-condition", "verdict-wound", "verdict-scratch", "verdict-taken-down"):
        assert sid in registered
    assert "dead" in registered  # Foundry's own are kept
    gm.wait_for_selector(AYLA, timeout=5000)
    assert gm.locator(f"{AYLA} [data-status]").count() == 0
    assert gm.locator(f"{AYLA} .token-text").count() == 0

    # A failure by two levels: +3 strain, drawn as a counter on the token.
    player.evaluate(f"{API}.client.roll({{check: {{system: 'challenge', cl: 3, modifier: 0, dice: [5]}}, actor: 'actorAyla', scene: 'scene1', label: 'Hold the gate'}})")
    for page in (gm, player):
        page.wait_for_selector(f"{AYLA} .token-text[data-name='verdict-strain']:has-text('3')", timeout=5000)
        assert page.locator(f"{AYLA} [data-status='verdict-condition']").count() == 0
    # A natural 1 is an epic failure: a new condition, shown as the condition status effect.
    player.evaluate(f"{API}.client.roll({{check: {{system: 'challenge', cl: 3, modifier: 0, dice: [1]}}, actor: 'actorAyla', scene: 'scene1', label: 'Hold the gate again'}})")
    for page in (gm, player):
        page.wait_for_selector(f"{AYLA} [data-status='verdict-condition']", timeout=5000)
        assert "3" in page.locator(f"{AYLA} .token-text[data-name='verdict-strain']").inner_text()
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
    player.wait_for_selector(f"{AYLA}:not(:has([data-status='verdict-condition']))", timeout=5000)
    assert player.locator(".verdict-card [data-verdict-apply]").count() == 0
    gm.locator(".chat-message:last-child .verdict-card [data-verdict-apply]").click()
    for page in (gm, player):
        page.wait_for_selector(f"{AYLA} [data-status='verdict-condition']", timeout=5000)
    # A card that names no actor has nothing to apply.
    gm.evaluate(f"{API}.client.roll({{check: {{system: 'challenge', cl: 2, modifier: 0, dice: [10]}}, label: 'Nobody in particular'}})")
    card = gm.locator(".verdict-card:has(.verdict-label:has-text('Nobody in particular'))")
    card.wait_for(timeout=5000)
    assert card.locator("[data-verdict-apply]").count() == 0


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
    player.locator(".verdict-roll-dialog").wait_for(timeout=5000)


def test_the_combat_tracker_opens_the_verdict_tracker(table):
    gm = table.open("gm1", "challenge")
    connected(gm)
    # The combat tracker as Foundry renders it in v13 (an element) and in v12 (jQuery-like: [element]).
    gm.evaluate(
        """() => {
          for (const id of ["combat-v13", "combat-v12"]) {
            const el = document.createElement("section");
            el.id = id;
            el.style.cssText = "position: fixed; left: 420px; top: " + (id === "combat-v13" ? 200 : 260) + "px; z-index: 10000";
            el.innerHTML = '<header class="combat-tracker-header"></header>';
            document.body.append(el);
            Hooks.callAll("renderCombatTracker", {}, id === "combat-v13" ? el : [el]);
          }
        }"""
    )
    assert gm.locator("#combat-v12 .verdict-open-tracker").count() == 1
    gm.locator("#combat-v13 .verdict-open-tracker").click()
    gm.locator(".verdict-tracker").wait_for(timeout=5000)


def test_v12_sheets_get_a_roll_header_button(table):
    gm, player = table.open("gm1", "challenge"), table.open("p1", "challenge")
    connected(gm, player)
    buttons = player.evaluate(
        """() => {
          const out = {};
          for (const id of ["actorAyla", "actorBram"]) {
            const buttons = [];
            Hooks.callAll("getActorSheetHeaderButtons", {actor: game.actors.get(id)}, buttons);
            out[id] = buttons.map((b) => b.label);
          }
          return out;
        }"""
    )
    assert buttons == {"actorAyla": ["VERDICT.Sheet.roll"], "actorBram": []}  # only on the player's own actor
    player.evaluate(
        """() => {
          const buttons = [];
          Hooks.callAll("getActorSheetHeaderButtons", {actor: game.actors.get("actorAyla")}, buttons);
          buttons[0].onclick();
        }"""
    )
    player.locator(".verdict-roll-dialog").wait_for(timeout=5000)
