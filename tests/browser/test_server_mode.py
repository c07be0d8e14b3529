"""Server mode: every page holds its own websocket with its role's key (the player key from the world
setting, the GM key from the GM's client setting). A roll travels directly; a hidden complication never
reaches the player's page, neither its HTML nor the frames its socket receives."""

from __future__ import annotations

import re

import pytest

from .helpers import API, add_complications, connected, marker_card

pytestmark = pytest.mark.browser


def test_every_page_connects_with_its_roles_key(server_table, shot):
    table = server_table
    gm, player, bram = table.open("gm1"), table.open("p1"), table.open("p2")
    connected(gm, player, bram)
    # The player's page holds its own socket, as a player; the GM's as the GM.
    assert player.evaluate(f"{API}.client.role") == "player"
    assert gm.evaluate(f"{API}.client.role") == "gm"
    assert player.evaluate(f"{API}.client.own.state") == "open"
    assert player.evaluate(f"{API}.client.playerView") is None
    # The GM key lives in the GM's browser only.
    assert player.evaluate("game.settings.get('verdict', 'gmKey')") == ""
    assert not any(table.sidecar.gm_key in f for f in table.sent["p1"] + table.frames["p1"])
    assert not any(table.sidecar.gm_key in f for f in table.delivered("p1") + table.delivered("p2"))
    assert any(f'"key":"{table.sidecar.gm_key}"' in f for f in table.sent["gm1"])
    # The player connects with a key of their own, bound to their user (not the table-wide key), and that key
    # never reaches another player's browser (targeted delivery, client storage, no world or user setting).
    hello = [f for f in table.sent["p1"] if '"type":"hello"' in f]
    assert hello and all('"user":"p1"' in h for h in hello)
    keys = {re.search(r'"key":"([^"]+)"', h).group(1) for h in hello}
    assert keys.isdisjoint({table.sidecar.player_key, table.sidecar.gm_key})
    for key in keys:
        assert not any(key in f for f in table.delivered("p2") + table.sent["p2"] + table.frames["p2"])

    player.evaluate(f"{API}.roll({{actor: 'actorAyla', system: 'facets'}})")
    dialog = player.locator(".verdict-roll-dialog")
    dialog.wait_for()
    dialog.locator(".verdict-odds-legend li").first.wait_for(timeout=15000)
    dialog.locator("[name='label']").fill("Climb the bell tower")
    dialog.locator("button[type=submit]").click()
    dialog.wait_for(state="detached")
    for page in (gm, player):
        card = page.locator(".verdict-card .verdict-label:has-text('Climb the bell tower')")
        card.wait_for(timeout=15000)
    # Still one card, written by the GM's client from the sidecar's word.
    flags = [
        {"author": m["author"], "creator": m["creator"], "card": m["flags"]["verdict"]["card"]}
        for m in table.messages()
    ]
    assert len(flags) == 1 and flags[0]["creator"] == "gm1" and flags[0]["author"] == "p1"
    assert flags[0]["card"]["user"] == "p1"
    # The player's own socket received its roll.
    assert any('"type":"rolled"' in f and "Climb the bell tower" in f for f in table.frames["p1"])

    # A roll the GM makes for their eyes only: its card and its frame stay off the player's page.
    gm.evaluate(
        f"{API}.client.roll({{check: {{system: 'facets', pool: 2}}, mode: 'gm', label: 'The watcher notices'}})"
    )
    gm.wait_for_selector(".verdict-card .verdict-label:has-text('The watcher notices')", timeout=15000)
    marker_card(gm, player)
    assert "The watcher notices" not in player.content()
    assert not any("The watcher notices" in f for f in table.frames["p1"])

    tracker = add_complications(gm, "The bell rope is rotten", "Pigeons scatter loudly")

    player.click("#scene-controls [data-tool='verdict-tracker']")
    ptracker = player.locator(".verdict-tracker")
    ptracker.wait_for()
    player.wait_for_selector(".verdict-tracker .verdict-complication:has-text('Pigeons scatter loudly')", timeout=15000)
    assert ptracker.locator(".verdict-complication").count() == 1
    # The revealed one reached the player's socket (the capture works); the hidden one never did.
    assert any("Pigeons scatter loudly" in f for f in table.frames["p1"])
    assert not any("The bell rope is rotten" in f for f in table.frames["p1"])
    assert "The bell rope is rotten" not in player.content()
    assert "The bell rope is rotten" in gm.content()
    shot(player, ".verdict-tracker", "tracker-player-server.png")

    # Revealed by the GM, it then arrives.
    tracker.locator(".verdict-complication.is-hidden [data-action=reveal]").click()
    player.wait_for_selector(
        ".verdict-tracker .verdict-complication:has-text('The bell rope is rotten')", timeout=15000
    )
