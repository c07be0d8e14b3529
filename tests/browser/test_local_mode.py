"""A GM and a player on one table in local mode: only the GM's page holds sockets; the player's roll
travels through it, the card is written once by the GM and shown on both pages."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def status(page) -> str:
    return page.get_attribute("#verdict-status", "data-state")


def wait_connected(page) -> None:
    page.wait_for_selector("#verdict-status[data-state='open']", timeout=15000)


def test_player_rolls_through_the_gm_with_odds(table, shot):
    gm = table.open("gm1")
    player = table.open("p1")
    wait_connected(gm)
    wait_connected(player)
    # The player's page opened no websocket of its own.
    assert player.evaluate("game.modules.get('verdict').api.client.own") is None
    assert gm.evaluate("game.modules.get('verdict').api.client.playerView.state") == "open"

    player.evaluate("game.modules.get('verdict').api.roll({actor: 'actorAyla', system: 'facets'})")
    dialog = player.locator(".verdict-roll-dialog")
    dialog.wait_for()
    legend = dialog.locator(".verdict-odds-legend li")
    legend.first.wait_for()
    first = dialog.locator(".verdict-odds-legend").inner_text()
    assert "%" in first

    # Changing the pool asks the sidecar again, and the bar changes.
    dialog.locator("[name='field.pool']").fill("3")
    dialog.locator("[name='field.kind']").select_option("opposition")
    player.wait_for_function(
        "(before) => document.querySelector('.verdict-odds-legend')?.innerText !== before", arg=first, timeout=15000
    )
    segs = dialog.locator(".verdict-odds-bar .seg")
    assert segs.count() == 5
    dialog.locator("[name='label']").fill("Leap the mill race")
    shot(player, ".verdict-roll-dialog", "dialog-facets.png")

    dialog.locator("button[type=submit]").click()
    dialog.wait_for(state="detached")

    for page in (gm, player):
        card = page.locator(".verdict-card[data-system='facets']")
        card.wait_for(timeout=15000)
        assert card.locator(".verdict-label").inner_text() == "Leap the mill race"
        assert card.locator(".verdict-outcome").inner_text().strip()
        assert card.locator(".verdict-dice .die").count() == 3
    # One chat message, written by the GM as the player's, for a roll the sidecar made for the player.
    flags = [
        {"author": m["author"], "creator": m["creator"], "card": m["flags"]["verdict"]["card"]}
        for m in table.messages()
    ]
    assert len(flags) == 1
    assert flags[0]["author"] == "p1" and flags[0]["creator"] == "gm1"
    assert flags[0]["card"]["by"] == "player"
    assert flags[0]["card"]["user"] == "p1"
    assert flags[0]["card"]["actor"] == "actorAyla"
    # The GM can apply; the player cannot.
    assert gm.locator(".verdict-card [data-verdict-apply]").count() == 1
    assert player.locator(".verdict-card [data-verdict-apply]").count() == 0
    # Per-actor defaults remembered in the actor's flags (written by the GM's client).
    gm.wait_for_function(
        "game.actors.get('actorAyla').getFlag('verdict', 'defaults')?.facets?.pool === 3", timeout=15000
    )
    shot(player, ".chat-message:last-child", "card-facets.png")
