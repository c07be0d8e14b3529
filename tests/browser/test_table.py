"""Follow-ups, hidden complications, lurking trials and a sidecar restart, with a GM and a player page
on one table in local mode against a real sidecar."""

from __future__ import annotations

import pytest

from .helpers import API, add_complications, connected

pytestmark = pytest.mark.browser


def test_card_follow_up_clicked_by_the_player(table, shot):
    gm, player = table.open("gm1"), table.open("p1")
    connected(gm, player)
    # Physical dice: a 12 against CL 1 beats it by two levels, which offers the choice.
    player.evaluate(
        f"{API}.client.roll({{check: {{system: 'challenge', cl: 1, modifier: 0, dice: [12]}}, actor: 'actorAyla', label: 'Force the door'}})"
    )
    card = player.locator(".verdict-card[data-system='challenge']")
    card.wait_for(timeout=15000)
    buttons = card.locator("[data-verdict-follow]")
    assert buttons.count() == 2
    # Only the roller may choose: the choice is open to the roller alone, and another player sees no button.
    bram = table.open("p2")
    connected(bram)
    assert bram.locator(".verdict-card[data-system='challenge'] [data-verdict-follow]").count() == 0
    shot(player, ".chat-message:last-child", "card-challenge.png")
    buttons.filter(has_text="game changer").click()
    for page in (gm, player, bram):
        page.wait_for_selector(".verdict-card[data-system='challenge'] dd:has-text('+1 game changer')", timeout=15000)
        assert page.locator(".verdict-card[data-system='challenge'] [data-verdict-follow]").count() == 0
    actions = gm.evaluate("game.messages.contents[0].flags.verdict.card.actions")
    assert actions == [{"action": "challenge_choice", "option": "game_changer"}]
    # The game changer reached the table state, and the player's view of it.
    gm.wait_for_function(
        "game.modules.get('verdict').api.client.snapshot?.actors?.actorAyla?.game_changers === 1", timeout=15000
    )


def test_hidden_complication_never_reaches_the_player(table, shot):
    gm, player = table.open("gm1", system="flairs"), table.open("p1", system="flairs")
    connected(gm, player)
    tracker = add_complications(gm, "A ward seals the cellar", "The miller's dogs are loose")

    player.click("#scene-controls [data-tool='verdict-tracker']")
    ptracker = player.locator(".verdict-tracker")
    ptracker.wait_for()
    player.wait_for_selector(".verdict-tracker .verdict-complication:has-text('dogs')", timeout=15000)
    assert ptracker.locator(".verdict-complication").count() == 1
    # Not hidden by CSS: the player's page never received the text at all.
    assert "A ward seals the cellar" not in player.content()
    assert "A ward seals the cellar" not in player.evaluate(f"JSON.stringify({API}.client.snapshot)")
    assert player.locator("#scene-controls [data-tool='verdict-request']").count() == 0
    shot(player, ".verdict-tracker", "tracker-player.png")

    # Lurking trials: the player sees only how many.
    for trial in ("loud", "slow"):
        tracker.locator(f".verdict-lurking-form input[value={trial}]").check()
    tracker.locator("[data-action=lurking]").click()
    gm.wait_for_selector(".verdict-tracker .verdict-lurking li:has-text('Loud')", timeout=15000)
    player.wait_for_selector(".verdict-tracker .verdict-lurking li .badge.count", timeout=15000)
    assert "Loud" not in ptracker.locator(".verdict-lurking").inner_text()
    shot(gm, ".verdict-tracker", "tracker-gm.png")

    tracker.locator(".verdict-complication.is-hidden [data-action=reveal]").click()
    player.wait_for_selector(
        ".verdict-tracker .verdict-complication:has-text('A ward seals the cellar')", timeout=15000
    )


def test_lurking_trials_stay_secret_on_the_players_card(table, shot):
    gm, player = table.open("gm1", system="flairs"), table.open("p1", system="flairs")
    connected(gm, player)
    gm.evaluate(f"{API}.client.gm({{op: 'lurking_set', trials: ['loud', 'harmful'], scene: 'scene1', actor: null}})")
    player.evaluate(
        f"{API}.client.roll({{check: {{system: 'flairs', rank: 3, edges: 0, cuts: 0, lurking: 2, dice: [5, 5, 2]}}, actor: 'actorAyla', scene: 'scene1', label: 'Sneak past'}})"
    )
    pcard = player.locator(".verdict-card[data-system='flairs']")
    pcard.wait_for(timeout=15000)
    gcard = gm.locator(".verdict-card[data-system='flairs']")
    gcard.wait_for(timeout=15000)
    assert "secret" in pcard.inner_text()
    assert "Harmful" not in player.content()
    gm.wait_for_selector(".verdict-card[data-system='flairs'] dd:has-text('Harmful')", timeout=15000)
    shot(player, ".chat-message:last-child", "card-flairs-player.png")
    shot(gm, ".chat-message:last-child", "card-flairs-gm.png")
    # The player chooses a flair: it banishes the trial it opposes, and the rest are revealed.
    pcard.locator(".verdict-choose input[value=quiet]").check()
    pcard.locator("[data-verdict-choose]").click()
    player.wait_for_selector(".verdict-card[data-system='flairs'] dd:has-text('Harmful')", timeout=15000)
    assert "Loud" in player.locator(".verdict-card[data-system='flairs']").inner_text()


def test_sidecar_restart_reconnects_both_pages(table):
    gm, player = table.open("gm1"), table.open("p1")
    connected(gm, player)
    table.sidecar.stop()
    for page in (gm, player):
        page.wait_for_function(
            "['reconnecting', 'offline'].includes(document.querySelector('#verdict-status').dataset.state)",
            timeout=15000,
        )
    assert gm.locator("#verdict-status .reason").inner_text()
    table.sidecar.start()
    connected(gm, player)
    player.evaluate(
        f"{API}.client.roll({{check: {{system: 'facets', pool: 2}}, actor: 'actorAyla', label: 'After the restart'}})"
    )
    gm.wait_for_selector(".verdict-card .verdict-label:has-text('After the restart')", timeout=15000)
    player.wait_for_selector(".verdict-card .verdict-label:has-text('After the restart')", timeout=15000)


def test_a_card_the_ledger_does_not_hold_is_unverified(table):
    gm, player = table.open("gm1"), table.open("p1")
    connected(gm, player)
    # A player forging a card: not written by a GM, and its check is unknown to the sidecar.
    player.evaluate("""ChatMessage.create({content: '<div class="verdict-card" data-check-id="forged"><div class="verdict-outcome">Triumph</div></div>',
        flags: {verdict: {card: {checkId: 'forged', seq: 99, result: {system: 'facets', outcome: 'triumph', dice: [6, 6]}, by: 'gm', user: 'p1'}}}})""")
    for page in (gm, player):
        page.wait_for_selector(".verdict-card.unverified .verdict-unverified", timeout=15000)
