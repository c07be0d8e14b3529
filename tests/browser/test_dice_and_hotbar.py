"""Dice So Nice before the verdict, for every viewer; boons dice with their own faces; the hotbar: one macro
per check shape, a prepared check dragged onto a slot, a clear word where script macros are not allowed."""

from __future__ import annotations

import pytest

from .helpers import API, connected

pytestmark = pytest.mark.browser

BOONS = {"system": "boons", "ability": 3, "boon": 1, "bane": 1, "trial": 2, "crisis": 0, "dice": [8, 5, 2, 4, 3, 7, 1]}


def _card(page, label: str):
    return page.locator(f"#chat-log .verdict-card:has(.verdict-label:has-text('{label}'))")


def test_with_dice_so_nice_the_outcome_waits_for_the_dice_on_every_page(table):
    table.modules = ["dice-so-nice"]
    gm, ayla, bram = table.open("gm1"), table.open("p1"), table.open("p2")
    connected(gm, ayla, bram)
    for page in (gm, ayla, bram):
        page.evaluate("window.__holdDice = true")
    ayla.evaluate(
        f"{API}.client.roll({{check: {{system: 'facets', pool: 3, dice: [6, 2, 5]}}, actor: 'actorAyla', label: 'Thrown'}})"
    )
    for page in (gm, ayla, bram):
        card = _card(page, "Thrown")
        card.locator(".verdict-dice .die").first.wait_for(timeout=15000)
        page.wait_for_function("window.__throws.length === 1", timeout=15000)
        # the dice are in the air: the card shows them, and not yet the outcome or what follows from it
        assert card.locator(".verdict-outcome").count() == 0
        assert card.get_attribute("data-rolling") == "1"
    throw = ayla.evaluate("window.__throws[0]")
    assert [(d["result"], d["type"]) for d in throw["data"]["throws"][0]["dice"]] == [(6, "d6"), (2, "d6"), (5, "d6")]
    assert throw["user"] == "p1"  # thrown with the roller's dice appearance
    for page in (gm, ayla, bram):
        page.evaluate("standin.landDice()")
        _card(page, "Thrown").locator(".verdict-outcome").wait_for(timeout=15000)
    # a reload does not throw old cards again, and draws them whole at once
    bram.reload()
    bram.wait_for_selector("body[data-ready='1']", timeout=15000)
    connected(bram)
    _card(bram, "Thrown").locator(".verdict-outcome").wait_for(timeout=15000)
    assert bram.evaluate("window.__throws.length") == 0


def test_dice_so_nices_immediate_display_shows_the_outcome_at_once_and_boons_dice_have_their_faces(table):
    table.modules = ["dice-so-nice"]
    # a world setting of Dice So Nice's, set by the GM before the session
    table.make_world("boons").settings["dice-so-nice.immediatelyDisplayChatMessages"] = True
    gm = table.open("gm1", "boons")
    connected(gm)
    presets = gm.evaluate("game.dice3d.presets.map((p) => [p.type, p.shape, p.labels.length])")
    assert ["dvboonsability", "d8", 8] in presets and ["dvboonscrisis", "d12", 12] in presets
    gm.evaluate("window.__holdDice = true")
    gm.evaluate(f"{API}.client.roll({{check: {BOONS!r}, label: 'Thrown boons'}})")
    card = _card(gm, "Thrown boons")
    card.locator(".verdict-outcome").wait_for(timeout=15000)
    dice = gm.evaluate("window.__throws[0].data.throws[0].dice")
    assert [d["result"] for d in dice] == BOONS["dice"]
    assert [d["type"] for d in dice] == ["dvboonsability"] * 3 + [
        "dvboonsboon",
        "dvboonsbane",
        "dvboonstrial",
        "dvboonstrial",
    ]
    assert dice[0]["resultLabel"] == "X"  # the ability die's eighth face


def test_one_macro_per_check_shape_and_a_check_dragged_to_the_hotbar(table):
    ayla = table.open("p1", "facets")
    gm = table.open("gm1", "facets")
    connected(gm, ayla)
    ayla.evaluate(f"{API}.roll({{actor: 'actorAyla', label: 'Sneak'}})")
    dialog = ayla.locator(".verdict-roll-dialog")
    dialog.wait_for(timeout=15000)
    hotbar = dialog.locator("[data-action=hotbar]")
    hotbar.click()
    ayla.wait_for_function("game.macros.size === 1", timeout=15000)
    hotbar.click()
    ayla.wait_for_function("window.__hotbar && Object.keys(game.user.hotbar).length >= 1", timeout=15000)
    assert ayla.evaluate("game.macros.size") == 1  # the same shape again: the same macro
    # dragged onto slot 5: the same macro, in that slot
    hotbar.drag_to(ayla.locator("#hotbar .macro[data-slot='5']"))
    ayla.wait_for_function("game.user.hotbar[5] !== undefined", timeout=15000)
    assert ayla.evaluate("game.macros.size") == 1
    # a different check shape makes a second macro, which rolls from the hotbar
    dialog.locator("[name='field.pool']").fill("4")
    dialog.locator("[name='field.pool']").dispatch_event("change")
    hotbar.drag_to(ayla.locator("#hotbar .macro[data-slot='6']"))
    ayla.wait_for_function("game.macros.size === 2 && game.user.hotbar[6] !== undefined", timeout=15000)
    dialog.locator(".window-header [data-action=close]").click()
    ayla.locator("#hotbar .macro[data-slot='6']").click()
    ayla.locator(".verdict-roll-dialog").wait_for(timeout=15000)
    assert ayla.locator(".verdict-roll-dialog [name='field.pool']").input_value() == "4"


def test_where_script_macros_are_not_allowed_the_hotbar_button_says_so(table):
    table.macro_script_role = 2  # trusted players and above
    ayla = table.open("p1", "facets")
    gm = table.open("gm1", "facets")
    connected(gm, ayla)
    ayla.evaluate(f"{API}.roll({{actor: 'actorAyla'}})")
    dialog = ayla.locator(".verdict-roll-dialog")
    dialog.wait_for(timeout=15000)
    dialog.locator("[data-action=hotbar]").click()
    ayla.wait_for_function("window.__notes.some((n) => n.text.includes('script macros'))", timeout=15000)
    assert ayla.evaluate("game.macros.size") == 0
    assert not ayla.evaluate("window.__errors")
