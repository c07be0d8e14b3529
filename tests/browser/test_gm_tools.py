"""The GM's hand on the table from the tracker and the cards, in a real browser against a real sidecar: a
facet written, the one a triumph stored named, a wound healed, a condition removed, and after an epic
success a complication of the scene removed, each seen on the player's page. The controls are reached and
used from the keyboard, by their accessible names."""

from __future__ import annotations

import pytest

from .helpers import API, add_complications, connected
from .test_accessibility import AXE, violations

pytestmark = pytest.mark.browser


def open_tracker(page):
    page.click("#scene-controls [data-tool='verdict-tracker']")
    tracker = page.locator(".verdict-tracker")
    tracker.wait_for()
    return tracker


@pytest.mark.generations(13, 14)
def test_gm_writes_and_renames_facets_and_heals_harm(table):
    gm, player = table.open("gm1"), table.open("p1")
    connected(gm, player)
    # A failure on an opposition check wounds Ayla; a triumph stores a facet from the text's suggestions.
    player.evaluate(
        f"{API}.client.roll({{check: {{system: 'facets', pool: 2, kind: 'opposition', dice: [3, 2]}}, actor: 'actorAyla', scene: 'scene1', label: 'Hold the bridge'}})"
    )
    player.evaluate(
        f"{API}.client.roll({{check: {{system: 'facets', pool: 2, kind: 'obstacle', dice: [6, 6]}}, actor: 'actorAyla', scene: 'scene1', label: 'Climb the mill wheel'}})"
    )
    gm.wait_for_function(f"{API}.client.snapshot?.actors?.actorAyla?.wounds === 1", timeout=15000)
    gm.evaluate(f"{API}.client.gm({{op: 'condition_add', actor: 'actorAyla', text: 'Shaken'}})")
    tracker, ptracker = open_tracker(gm), open_tracker(player)

    # The triumph's facet carries the suggestion as its text until the GM names it.
    stored = tracker.locator(".verdict-facet")
    stored.first.wait_for(timeout=15000)
    assert stored.count() == 1
    suggestion = stored.locator(".text").inner_text()
    player.wait_for_selector(f".verdict-tracker .verdict-facet:has-text('{suggestion}')", timeout=15000)
    rename = tracker.get_by_role("button", name=f"Rename: {suggestion}")
    rename.focus()
    gm.keyboard.press("Enter")  # opens the field, focused and selected
    gm.keyboard.type("Sure footing on wet stone")
    gm.keyboard.press("Enter")
    player.wait_for_selector(".verdict-tracker .verdict-facet:has-text('Sure footing on wet stone')", timeout=15000)
    assert suggestion not in ptracker.locator(".verdict-facets").inner_text()
    assert ptracker.locator(".verdict-facet [data-action]").count() == 0, "a player's tracker has no GM controls"

    # A facet of the GM's own, on the scene, detrimental: typed and sent from the keyboard.
    form = tracker.get_by_role("group", name="A new facet")
    form.get_by_role("textbox", name="Facet text").fill("Choking flour dust")
    form.get_by_role("combobox", name="Nature").select_option("detrimental")
    form.get_by_role("combobox", name="Facet on").select_option("")
    form.get_by_role("button", name="Write facet").focus()
    gm.keyboard.press("Enter")
    row = ptracker.locator(".verdict-facet:has-text('Choking flour dust')")
    row.wait_for(timeout=15000)
    assert row.get_attribute("data-nature") == "detrimental"
    assert "Scene" in row.inner_text()
    facets = gm.evaluate(
        f"{API}.client.snapshot.scenes.scene1.facets.concat({API}.client.snapshot.actors.actorAyla?.facets ?? [])"
    )
    assert sorted(f["facet"] for f in facets) == ["Choking flour dust", "Sure footing on wet stone"]
    assert all(f["id"] for f in facets)

    # Removing a facet.
    tracker.get_by_role("button", name="Remove facet: Choking flour dust").click()
    player.wait_for_function(
        "!document.querySelector('.verdict-tracker .verdict-facets').innerText.includes('Choking flour dust')",
        timeout=15000,
    )

    # Healing the wound and removing the condition.
    ayla = ptracker.locator(".verdict-actor[data-actor='actorAyla']")
    ayla.locator("[data-wounds='1']").wait_for(timeout=15000)
    ayla.locator(".verdict-condition:has-text('Shaken')").wait_for(timeout=15000)
    tracker.get_by_role("button", name="Heal a wound: Ayla Thorn").focus()
    gm.keyboard.press("Enter")
    ayla.locator("[data-wounds]").wait_for(state="detached", timeout=15000)
    tracker.get_by_role("button", name="Remove condition: Shaken").click()
    ayla.locator(".verdict-condition").wait_for(state="detached", timeout=15000)
    gm.wait_for_function(
        f"{API}.client.snapshot.actors.actorAyla.wounds === 0 && {API}.client.snapshot.actors.actorAyla.conditions.length === 0",
        timeout=15000,
    )
    assert player.evaluate(f"{API}.client.snapshot.actors.actorAyla.wounds") == 0

    # Each change is an event like the others: undo brings the condition back.
    tracker.get_by_role("button", name="Undo last action").click()
    ayla.locator(".verdict-condition:has-text('Shaken')").wait_for(timeout=15000)

    if AXE.exists():
        assert violations(gm, ".verdict-tracker") == []
        assert violations(player, ".verdict-tracker") == []


def test_epic_success_lets_the_gm_remove_a_complication(table):
    gm, player = table.open("gm1", "challenge"), table.open("p1", "challenge")
    connected(gm, player)
    add_complications(gm, "A ward seals the cellar", "The miller's dogs are loose")
    ptracker = open_tracker(player)
    ptracker.locator(".verdict-complication:has-text('dogs')").wait_for(timeout=15000)
    # A natural 20 + 5 against CL 1: level 5, four above, an epic success.
    player.evaluate(
        f"{API}.client.roll({{check: {{system: 'challenge', cl: 1, modifier: 5, dice: [20]}}, actor: 'actorAyla', scene: 'scene1', label: 'Leap the millrace'}})"
    )
    card = gm.locator(".verdict-card[data-system='challenge']")
    card.wait_for(timeout=15000)
    assert card.get_attribute("data-outcome") == "epic_success"
    removal = card.get_by_role("group", name="Remove a complication")
    pick = removal.get_by_role("combobox", name="Complication to remove")
    options = pick.locator("option").all_inner_texts()
    assert options == ["(hidden) A ward seals the cellar", "The miller's dogs are loose"]
    # The player's card offers nothing of the kind, and the list never reached the player's page.
    pcard = player.locator(".verdict-card[data-system='challenge']")
    pcard.wait_for(timeout=15000)
    assert pcard.locator(".verdict-remove-complication").count() == 0
    assert "A ward seals the cellar" not in player.content()

    pick.select_option(label="The miller's dogs are loose")
    removal.get_by_role("button", name="Remove it").focus()
    gm.keyboard.press("Enter")
    ptracker.locator(".verdict-complication").wait_for(state="detached", timeout=15000)
    for page in (gm, player):
        page.wait_for_selector(
            ".verdict-card[data-system='challenge'] dd:has-text('the GM removed one')", timeout=15000
        )
    assert card.locator(".verdict-remove-complication").count() == 0, "made once"
    left = gm.evaluate(f"{API}.client.snapshot.scenes.scene1.complications.map(c => c.text)")
    assert left == ["A ward seals the cellar"]
    actions = gm.evaluate("game.messages.contents.map(m => m.flags.verdict.card).filter(Boolean)[0].actions")
    assert [a["action"] for a in actions] == ["challenge_remove_complication"]
    assert "A ward seals the cellar" not in player.content()


@pytest.mark.generations(13, 14)
def test_a_roll_at_the_table_does_not_wipe_what_the_gm_is_typing(table):
    """The tracker re-renders on every change at the table; a GM halfway through a complication keeps the
    text, the unticked "hidden" box, an opened edit field and the focus, and a sent text clears."""
    gm, player = table.open("gm1"), table.open("p1")
    connected(gm, player)
    tracker = add_complications(gm, "A hidden ward", "A loose board")
    row = tracker.locator(".verdict-complication:has-text('A loose board')")
    row.locator("[data-action=edit]").click()
    row.locator("[name=edit]").fill("A loose board, half sawn")
    add = tracker.locator(".verdict-add")
    add.locator("[name=hidden]").uncheck()
    add.locator("[name=text]").fill("Rats in the flour")
    add.locator("[name=text]").focus()
    renders = gm.evaluate("window.__trackerRenders = 0; Hooks.on('renderTracker', () => window.__trackerRenders++); 0")
    assert renders == 0
    player.evaluate(
        f"{API}.client.roll({{check: {{system: 'facets', pool: 2, kind: 'opposition', dice: [3, 2]}}, actor: 'actorAyla', scene: 'scene1', label: 'Hold the bridge'}})"
    )
    gm.wait_for_function("window.__trackerRenders > 0", timeout=15000)
    assert add.locator("[name=text]").input_value() == "Rats in the flour"
    assert not add.locator("[name=hidden]").is_checked()
    assert gm.evaluate("document.activeElement?.getAttribute('name')") == "text"
    assert row.locator("[name=edit]").is_visible()
    assert row.locator("[name=edit]").input_value() == "A loose board, half sawn"
    # Sent: the complication is there, revealed, and the field is empty for the next one.
    add.locator("[data-action=add]").click()
    gm.wait_for_selector(
        ".verdict-tracker .verdict-complication:not(.is-hidden):has-text('Rats in the flour')", timeout=15000
    )
    gm.wait_for_function("document.querySelector('.verdict-add [name=text]').value === ''", timeout=15000)
    row.locator("[data-action=editSave]").click()
    gm.wait_for_selector(".verdict-tracker .verdict-complication:has-text('A loose board, half sawn')", timeout=15000)
    assert not row.locator("[name=edit]").is_visible()


@pytest.mark.generations(13, 14)
def test_a_complication_rolled_with_no_scene_shows_in_the_tracker_with_no_scene(table):
    """An epic failure rolled with no scene viewed keeps its complication under the table's sceneless
    complications; a GM who views no scene sees it in the tracker."""
    table.active_scene = None  # a world with no scene active: the table has none either
    gm, player = table.open("gm1"), table.open("p1")
    connected(gm, player)
    for page in (gm, player):
        page.evaluate("canvas.scene = null; game.scenes.viewed = null")
    player.evaluate(
        f"{API}.client.roll({{check: {{system: 'challenge', cl: 2, dice: [1]}}, actor: 'actorAyla', label: 'Leap'}})"
    )
    tracker = open_tracker(gm)
    tracker.locator(".verdict-complication").first.wait_for(timeout=15000)
    assert tracker.locator(".verdict-complication.is-hidden").count() == 1
