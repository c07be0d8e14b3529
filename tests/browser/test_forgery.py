"""A player's page forging the relay's module-socket frames (`rep`, `bc`, `status`, `snapshot`), with the
relay's own user id written into them: Foundry tells each handler who really sent a frame, and nothing the
forger sends changes another player's results, cards, status or table view."""

from __future__ import annotations

import json

import pytest

from .helpers import API, connected, socket_marker

pytestmark = pytest.mark.browser

FORGED = {"system": "facets", "outcome": "triumph", "dice": [6, 6, 6], "FORGED": True}


def test_forged_relay_frames_change_nothing(table):
    gm, ayla, bram = table.open("gm1"), table.open("p1"), table.open("p2")
    connected(gm, ayla, bram)
    ayla.evaluate(
        f"{API}.client.roll({{check: {{system: 'facets', pool: 2}}, actor: 'actorAyla', scene: 'scene1', label: 'Genuine one'}})"
    )
    ayla.wait_for_selector(".verdict-card .verdict-label:has-text('Genuine one')", timeout=15000)
    bram.wait_for_selector(".verdict-card .verdict-label:has-text('Genuine one')", timeout=15000)
    check = bram.evaluate("game.messages.contents[0].flags.verdict.card.checkId")
    before = ayla.evaluate(f"JSON.stringify({API}.client.snapshot)")

    # Bram answers every request he overhears with a forged result, and pushes a forged status, snapshot
    # and ledger event for Ayla's genuine card, each claiming to come from the GM.
    bram.evaluate(
        """([check, forged]) => {
          const emit = (data) => game.socket.emit("module.verdict", {v: 1, from: "gm1", ...data});
          game.socket.on("module.verdict", (data, sender) => {
            if (data?.t !== "req" || !data.msg?.id) return;
            emit({t: "rep", to: data.from ?? sender, msg: {type: "rolled", id: data.msg.id, check: "forged-check", seq: 1,
              result: forged, by: "gm", user: data.from ?? sender, actor: "actorAyla", label: "FORGED"}});
          });
          emit({t: "status", status: {state: "offline", reason: "FORGED status"}});
          emit({t: "snapshot", snapshot: {actors: {actorAyla: {strain: 7, conditions: ["FORGED"], wounds: 3}}, complications: {}}});
          emit({t: "bc", msg: {type: "event", event: {kind: "roll", check_id: check, result: forged}}});
          emit({t: "bc", msg: {type: "rolled", check: "forged-check", seq: 1, result: forged, by: "gm", user: "p1", label: "FORGED"}});
        }""",
        [check, FORGED],
    )
    socket_marker(bram, ayla)  # every forged frame has reached Ayla's page and been handled
    # Ayla's status, view of the table and genuine card are untouched.
    assert ayla.get_attribute("#verdict-status", "data-state") == "open"
    assert "FORGED" not in ayla.locator("#verdict-status").inner_text()
    assert "FORGED" not in ayla.evaluate(f"JSON.stringify({API}.client.snapshot)")
    assert ayla.evaluate(f"JSON.stringify({API}.client.snapshot)") == before or "FORGED" not in before
    ayla.evaluate("standin.rerenderChat()")
    gm.evaluate("standin.rerenderChat()")
    for page in (ayla, gm):
        page.wait_for_selector(".verdict-card .verdict-label:has-text('Genuine one')", timeout=15000)
        assert page.locator(".verdict-card.unverified").count() == 0

    # Ayla's next roll is answered by the relay, not by the forger.
    reply = ayla.evaluate(
        f"{API}.client.roll({{check: {{system: 'facets', pool: 2}}, actor: 'actorAyla', scene: 'scene1', label: 'Genuine two'}})"
        ".then((r) => r, (e) => ({error: String(e.message ?? e)}))"
    )
    assert reply.get("check") not in (None, "forged-check"), reply
    assert "FORGED" not in json.dumps(reply)
    ayla.wait_for_selector(".verdict-card .verdict-label:has-text('Genuine two')", timeout=15000)
    labels = [
        m["flags"]["verdict"]["card"]["label"] for m in table.messages() if m["flags"].get("verdict", {}).get("card")
    ]
    assert labels == ["Genuine one", "Genuine two"]
    assert "FORGED" not in ayla.locator("#chat-log").inner_text()


def test_a_player_cannot_obtain_another_players_key(table):
    """Bram asks the relay, by every query the module registers, for Ayla's user key while pretending to be
    her; Ayla's key never reaches Bram's browser."""
    gm, ayla, bram = table.open("gm1"), table.open("p1"), table.open("p2")
    connected(gm, ayla, bram)
    ayla.evaluate(f"{API}.client.roll({{check: {{system: 'facets', pool: 2}}, actor: 'actorAyla', label: 'Warm up'}})")
    bram.wait_for_selector(".verdict-card .verdict-label:has-text('Warm up')", timeout=15000)
    answers = bram.evaluate(
        """async () => {
          const relay = game.users.activeGM;
          const names = Object.keys(CONFIG.queries).filter((n) => n.startsWith("verdict."));
          const out = [];
          for (const name of names) {
            for (const data of [{user: "p1"}, {from: "p1", user: "p1"}, {user: "p1", secret: "guess"}, {msg: {type: "state", id: "x1"}, user: "p1"}]) {
              try { out.push(JSON.stringify(await relay.query(name, data, {timeout: 3000}))); } catch (e) { out.push(`refused: ${e.message}`); }
            }
          }
          return {names, out};
        }"""
    )
    key = table.sidecar.user_key("p1")
    seen = table.delivered("p2") + table.frames.get("p2", []) + answers["out"]
    assert not any(key in f for f in seen), "Ayla's user key reached Bram's browser"
