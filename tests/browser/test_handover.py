"""Several GMs: Foundry's active GM is the connected GM with the highest role (then the lowest id), and it
moves when GMs come and go. Exactly one browser relays for the table and writes its cards; when the active
GM leaves, the next one takes over without losing or duplicating a roll, or says what it needs."""

from __future__ import annotations

import pytest

from .helpers import API, connected, marker_card

pytestmark = pytest.mark.browser

ROLL = (
    f"(label) => {API}.client.roll({{check: {{system: 'facets', pool: 2}}, actor: 'actorAyla', scene: 'scene1', label}})"
    ".then((r) => ({ok: true, check: r.check, label: r.label}), (e) => ({ok: false, code: e.code ?? null, error: String(e.message ?? e)}))"
)


def cards(table) -> list[dict]:
    """The world's Verdict cards, as the server stores them."""
    return [m for m in table.messages() if (m.get("flags") or {}).get("verdict", {}).get("card")]


def agree(gm: str, *pages) -> None:
    """Wait until every page names ``gm`` Foundry's active GM (each learns of a GM coming or going from its own
    presence frame; a roll made while one page still names the old GM is not what the test means)."""
    for page in pages:
        page.wait_for_function(f"game.users.activeGM?.id === '{gm}'", timeout=15000)


def _roll_to_a_stalled_relay(table, player, keep: str) -> None:
    """Stall the relay gm1's network, start p1's roll `In flight` (`keep` says what to do with its promise,
    `roll`; not awaited) and wait until it has reached Foundry's server on its way to the stalled relay."""
    table.stall("gm1")
    player.evaluate(f"() => {{ const roll = ({ROLL})('In flight'); {keep} }}")
    table.wait(
        lambda: any(q == {"from": "p1", "to": "gm1", "name": "verdict.request"} for q in table.world.asked),
        "the player's roll was sent to the relay",
    )


def test_the_assistant_gm_takes_over_when_the_active_gm_leaves(table):
    gm1 = table.open("gm1")
    gm2 = table.open("gm2", gm_key=True)
    ayla = table.open("p1")
    connected(gm1, ayla)
    assert ayla.evaluate("game.users.activeGM.id") == "gm1"
    first = ayla.evaluate(ROLL, "Before the handover")
    assert first["ok"], first
    ayla.wait_for_selector(".verdict-card .verdict-label:has-text('Before the handover')", timeout=15000)

    table.leave("gm1")
    # Foundry now names the assistant the active GM; its browser holds the key and relays.
    agree("gm2", gm2, ayla)
    connected(gm2, ayla)
    second = ayla.evaluate(ROLL, "After the handover")
    assert second["ok"], f"the player's roll after the handover failed: {second}"
    for page in (gm2, ayla):
        page.wait_for_selector(".verdict-card .verdict-label:has-text('After the handover')", timeout=15000)

    # The full GM comes back and is Foundry's active GM again: still one card per roll.
    gm1 = table.open("gm1")
    agree("gm1", gm1, gm2, ayla)
    connected(gm1, gm2, ayla)
    third = ayla.evaluate(ROLL, "After the return")
    assert third["ok"], f"the player's roll after the GM came back failed: {third}"
    ayla.wait_for_selector(".verdict-card .verdict-label:has-text('After the return')", timeout=15000)
    # a roll after it, its card drawn on every page: a second writer would have shown itself by then
    marker = marker_card(ayla, gm1, gm2)
    labels = [m["flags"]["verdict"]["card"]["label"] for m in cards(table)]
    assert labels == ["Before the handover", "After the handover", "After the return", marker], labels
    # written by the relays, each card once, authored by its roller
    assert all(m["creator"] in ("gm1", "gm2") and m["author"] == "p1" for m in cards(table))


def test_a_gm_without_the_key_becomes_active_and_is_told_what_to_do(table):
    gm1 = table.open("gm1")
    gm2 = table.open("gm2", gm_key=False)
    ayla = table.open("p1")
    connected(gm1, ayla)
    table.leave("gm1")
    ayla.wait_for_function("game.users.activeGM?.id === 'gm2'", timeout=15000)
    # The assistant is told that its browser needs the GM key (a notification or the status line).
    gm2.wait_for_function(
        """() => window.__notes.some((n) => /GM key/i.test(n.text))
              || /GM key/i.test(document.querySelector('#verdict-status')?.textContent ?? '')""",
        timeout=15000,
    )
    assert gm2.get_attribute("#verdict-status", "data-state") != "open"
    # The player sees at once that nobody relays, and a roll is refused at once instead of timing out.
    ayla.wait_for_function("document.querySelector('#verdict-status')?.dataset.state !== 'open'", timeout=15000)
    refused = ayla.evaluate(ROLL, "Nobody relays")
    # refused by the active GM's browser ("offline": it holds no key), not ended by the request's timer ("timeout")
    assert not refused["ok"] and refused["code"] == "offline", refused
    assert cards(table) == []


def test_a_roll_in_flight_when_the_relay_drops_is_answered_once(table):
    """The active GM's network stalls with a player's roll on its way to it, then the GM drops out: the
    assistant GM takes over and the roll is answered once, with one card."""
    gm1 = table.open("gm1")
    gm2 = table.open("gm2", gm_key=True)
    ayla = table.open("p1")
    connected(gm1, gm2, ayla)
    _roll_to_a_stalled_relay(table, ayla, "window.__inflight = roll;")
    table.leave("gm1")
    reply = ayla.evaluate("window.__inflight")
    assert reply["ok"], f"the roll in flight was lost: {reply}"
    ayla.wait_for_selector(".verdict-card .verdict-label:has-text('In flight')", timeout=15000)
    gm2.wait_for_selector(".verdict-card .verdict-label:has-text('In flight')", timeout=15000)
    marker = marker_card(ayla, gm2)
    labels = [m["flags"]["verdict"]["card"]["label"] for m in cards(table)]
    assert labels == ["In flight", marker], labels


def test_a_roll_in_flight_when_the_only_gm_comes_back_is_answered_once_the_gms_page_is_ready(table):
    """The only GM's network stalls with a player's roll on its way to it, and the GM logs in again: the player
    asks the GM's page again as soon as Foundry says the GM is back, before its module can answer, and asks
    again until it can. The roll is answered once, with one card, long before the request's own 45 s."""
    gm = table.open("gm1")
    ayla = table.open("p1")
    connected(gm, ayla)
    _roll_to_a_stalled_relay(table, ayla, "roll.then((r) => { window.__settled = r; });")
    table.leave("gm1")
    gm = table.open("gm1")
    ayla.wait_for_function("window.__settled", timeout=15000)
    reply = ayla.evaluate("window.__settled")
    assert reply["ok"], f"the roll in flight was refused: {reply}"
    gm.wait_for_selector(".verdict-card .verdict-label:has-text('In flight')", timeout=15000)
    marker = marker_card(ayla, gm)
    labels = [m["flags"]["verdict"]["card"]["label"] for m in cards(table)]
    assert labels == ["In flight", marker], labels


def test_a_gm_who_does_not_relay_gets_working_or_explained_controls(table):
    """A second GM (not the relay): the tracker's GM controls act through the relay, or are disabled with a
    reason, never enabled and silently doing nothing."""
    gm1, gm2 = table.open("gm1"), table.open("gm2", gm_key=False)
    connected(gm1)
    gm1.click("#scene-controls [data-tool='verdict-tracker']")
    gm1.locator(".verdict-tracker").wait_for()
    gm2.click("#scene-controls [data-tool='verdict-tracker']")
    tracker = gm2.locator(".verdict-tracker")
    tracker.wait_for()
    # the window's frame comes first, its parts after: wait for what the tracker draws in it
    gm2.wait_for_function(
        "() => (document.querySelector('.verdict-tracker .window-content')?.textContent ?? '').trim().length > 0"
    )
    add = tracker.locator(".verdict-add [data-action=add]")
    if add.count() == 0 or add.is_disabled():
        reason = tracker.inner_text()
        assert "key" in reason.lower() or "relay" in reason.lower(), f"GM controls are off without a reason: {reason!r}"
        return
    tracker.locator(".verdict-add [name=text]").fill("Added by the assistant")
    add.click()
    gm1.wait_for_selector(".verdict-tracker .verdict-complication:has-text('Added by the assistant')", timeout=15000)
