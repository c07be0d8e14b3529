"""The roll dialog as a table reads it: what a player may see of it (never the GM's lurking trials), a
complication chosen from the scene's open ones instead of typed as an id, the roll modes as Foundry names
them, and every field with a hint in the rule text's words."""

from __future__ import annotations

import re

import pytest

from .helpers import API, add_complications, connected
from .test_accessibility import AXE, violations

pytestmark = pytest.mark.browser

DIALOG = ".verdict-roll-dialog"


def open_dialog(page, system: str, actor: str = "actorAyla"):
    page.evaluate(f"{API}.roll({{actor: '{actor}', system: '{system}', label: 'Words of {system}'}})")
    dialog = page.locator(DIALOG)
    dialog.wait_for()
    page.locator(f"{DIALOG} .verdict-odds-bar:not(.loading) .seg").first.wait_for(state="attached", timeout=15000)
    return dialog


def test_a_player_never_sees_the_lurking_trials_box(table, shot):
    gm, player = table.open("gm1", system="flairs"), table.open("p1", system="flairs")
    connected(gm, player)
    gm.evaluate(f"{API}.client.gm({{op: 'lurking_set', trials: ['loud', 'harmful'], scene: 'scene1', actor: null}})")
    dialog = open_dialog(player, "flairs")
    # The GM's secret is not in the player's dialog, not even hidden; every other field is, with a hint.
    assert dialog.locator("[data-field=lurking], [name='field.lurking']").count() == 0
    assert "Lurking" not in dialog.inner_text()
    for name in ("rank", "edges", "cuts", "simple", "darkness"):
        assert dialog.locator(f"[data-field={name}] .hint").count() == 1, name
    shot(player, DIALOG, "dialog-flairs-player.png")
    # The GM's own dialog keeps it.
    gdialog = open_dialog(gm, "flairs")
    assert gdialog.locator("[data-field=lurking] input[name='field.lurking']").count() == 1
    # The player's roll still meets the lurking trials the GM set: the sidecar applies them.
    player.locator(f"{DIALOG} [name='field.rank']").fill("3")
    player.locator(f"{DIALOG} [name='dice']").fill("5, 5, 2")
    player.locator(f"{DIALOG} [name='dice']").dispatch_event("change")
    player.locator(f"{DIALOG} button[type=submit]").click()
    card = player.locator(".verdict-card[data-system='flairs']")
    card.wait_for(timeout=15000)
    gm.wait_for_selector(".verdict-card[data-system='flairs'] dd:has-text('Harmful')", timeout=15000)


def convert(tracker, text: str, cl: int) -> None:
    row = tracker.locator(f".verdict-complication:has-text({text!r})")
    row.locator("[name=cl]").fill(str(cl))
    row.locator("[data-action=convert]").click()
    row.locator(f".badge.cl:has-text('{cl}')").wait_for(timeout=15000)


def test_the_dialog_offers_the_scenes_open_complications(table, shot):
    gm, player = table.open("gm1", system="challenge"), table.open("p1", system="challenge")
    connected(gm, player)
    tracker = add_complications(gm, "A ward seals the cellar", "The miller's dogs are loose")
    tracker.locator(".verdict-add [name=text]").fill("A rope bridge sways")
    tracker.locator(".verdict-add [name=hidden]").uncheck()
    tracker.locator(".verdict-add [data-action=add]").click()
    tracker.locator(".verdict-complication:has-text('bridge')").wait_for(timeout=15000)
    # A complication is addressed once the GM has converted it into a challenge with a CL.
    convert(tracker, "dogs", 2)
    player.wait_for_function(
        f"Object.values({API}.client.snapshot?.scenes ?? {{}}).some((s) => s.complications?.some((c) => c.cl === 2))",
        timeout=15000,
    )
    dialog = open_dialog(player, "challenge")
    select = dialog.locator("select[name='field.complication']")
    assert select.count() == 1
    assert dialog.locator("input[name='field.complication']").count() == 0
    options = select.locator("option").all_inner_texts()
    # None first, then the converted complication by its text and CL; the hidden one never reaches the player.
    assert options[0].startswith("None") and options[1:] == ["The miller's dogs are loose (CL 2)"], options
    assert "ward" not in dialog.inner_text()
    shot(player, DIALOG, "dialog-challenge-player.png")

    # One converted while the dialog is open is offered at once.
    convert(tracker, "bridge", 3)
    player.wait_for_selector(
        f"{DIALOG} select[name='field.complication'] option:has-text('A rope bridge sways (CL 3)')",
        state="attached",
        timeout=15000,
    )

    # Choosing one sets the CL the GM gave it and sends its id: a success removes it from the table.
    dogs = player.evaluate(
        f"""Object.values({API}.client.snapshot.scenes).flatMap((s) => s.complications)
              .find((c) => c.text.includes('dogs')).id"""
    )
    player.locator(f"{DIALOG} select[name='field.complication']").select_option(
        label="The miller's dogs are loose (CL 2)"
    )
    player.wait_for_function(f"document.querySelector(\"{DIALOG} [name='field.cl']\").value === '2'", timeout=15000)
    player.locator(f"{DIALOG} [name='label']").fill("")
    player.locator(f"{DIALOG} [name='dice']").fill("15")
    player.locator(f"{DIALOG} [name='dice']").dispatch_event("change")
    player.locator(f"{DIALOG} button[type=submit]").click()
    # With no label of its own, the card is labelled by what the hero overcame.
    player.locator(".verdict-card[data-system='challenge'] .verdict-label:has-text('dogs are loose')").wait_for(
        timeout=15000
    )
    gm.wait_for_function(
        f"""!Object.values({API}.client.snapshot.scenes).flatMap((s) => s.complications)
              .some((c) => c.id === {dogs!r})""",
        timeout=15000,
    )


def test_roll_modes_are_named_as_foundry_names_them(table):
    gm = table.open("gm1")
    connected(gm)
    dialog = open_dialog(gm, "facets")
    modes = dialog.locator("select[name=mode] option").all_inner_texts()
    assert modes == ["Public Roll", "Private GM Roll", "Blind GM Roll", "Self Roll"]
    placeholder = dialog.locator("input[name=dice]").get_attribute("placeholder")
    assert "sidecar" not in placeholder.lower()


@pytest.mark.parametrize("system", ["facets", "challenge", "flairs", "feats", "boons"])
def test_every_field_has_a_hint_and_no_engine_words(table, system):
    gm, player = table.open("gm1", system=system), table.open("p1", system=system)
    connected(gm, player)
    dialog = open_dialog(player, system)
    for field in dialog.locator("[data-field]").all():
        name = field.get_attribute("data-field")
        assert field.locator(".hint").count() == 1, f"{system}.{name} has no hint"
    text = dialog.inner_text()
    assert not re.search(r"\bsidecar\b|\bid of\b|`", text, re.I), text
    if AXE.exists():
        assert violations(player, DIALOG) == []


def test_feats_odds_say_when_a_purchase_changes_nothing(table, shot):
    gm, player = table.open("gm1", system="feats"), table.open("p1", system="feats")
    connected(gm, player)
    dialog = open_dialog(player, "feats")
    success = dialog.locator(".verdict-odds-legend li[data-outcome=success] .pct")
    # Feat level 0: the white die alone decides; a red 8 bought for 5 Wyrd leaves the chance at 50%.
    dialog.locator("[name='field.ability']").fill("10")
    dialog.locator("[name='field.difficulty']").fill("10")
    dialog.locator("[name='field.wyrd']").fill("1")
    dialog.locator("[name='field.wyrd_dice'][value=red]").check()
    player.wait_for_selector(f"{DIALOG} [data-spend-cost]:text-is('5')", timeout=15000)
    note = dialog.locator(".verdict-odds-unchanged")
    note.wait_for(timeout=15000)
    assert success.inner_text() == "50.0%"
    assert "does not change the chance" in note.inner_text()
    shot(player, DIALOG, "dialog-feats-unchanged.png")
    # The white die bought instead: certain success, and the note goes.
    dialog.locator("[name='field.wyrd_dice'][value=red]").uncheck()
    dialog.locator("[name='field.wyrd_dice'][value=white]").check()
    player.wait_for_selector(
        f"{DIALOG} .verdict-odds-legend li[data-outcome=success] .pct:text-is('100%')", timeout=15000
    )
    assert note.count() == 0
    # A certain outcome shows no "1/1", an impossible one no "0/1".
    assert dialog.locator(".verdict-odds-legend .exact").count() == 0
