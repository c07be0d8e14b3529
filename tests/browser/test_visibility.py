"""What Foundry shows of a card: its content runs through the text enricher, and a whispered message is
visible to its author and its recipients only."""

from __future__ import annotations

import pytest

from .helpers import API, MARKER, connected, marker_card

pytestmark = pytest.mark.browser

LABEL = "[[/r 1d20]] then @UUID[Actor.actorBram]{Bram}"


def test_a_label_that_looks_like_an_inline_roll_stays_text(table):
    gm, ayla = table.open("gm1"), table.open("p1")
    connected(gm, ayla)
    ayla.evaluate(f"{API}.client.roll({{check: {{system: 'facets', pool: 2}}, actor: 'actorAyla', label: {LABEL!r}}})")
    for page in (gm, ayla):
        page.locator(".verdict-card").wait_for(timeout=15000)
    marker_card(gm, ayla)  # a card drawn after it on both pages: whatever would change the first, has
    for page in (gm, ayla):
        card = page.locator(".verdict-card", has_not_text=MARKER)
        assert card.locator(".verdict-label").inner_text() == LABEL
        assert card.locator(".inline-roll, .content-link").count() == 0


def test_a_blind_roll_leaves_the_roller_a_trace_and_other_players_nothing(table):
    gm, ayla, bram = table.open("gm1"), table.open("p1"), table.open("p2")
    connected(gm, ayla, bram)
    label = "Read the sealed letter"
    ayla.evaluate(
        f"{API}.client.roll({{check: {{system: 'facets', pool: 3}}, actor: 'actorAyla', mode: 'blind', label: {label!r}}})"
    )
    # The GM sees the whole card.
    gcard = gm.locator(f".verdict-card:has(.verdict-label:has-text('{label}')):has(.verdict-dice .die)")
    gcard.wait_for(timeout=15000)
    assert gcard.locator(".verdict-outcome").inner_text().strip()
    assert gcard.locator(".verdict-dice .die").count() == 3
    # The roller sees that they rolled, and nothing of the result.
    trace = ayla.locator("#chat-log .chat-message")
    trace.first.wait_for(timeout=15000)
    assert trace.count() == 1
    assert trace.locator(".verdict-dice .die").count() == 0
    assert not trace.locator(".verdict-outcome").all_inner_texts() or not any(
        t.strip() for t in trace.locator(".verdict-outcome").all_inner_texts()
    )
    # Another player: no message on the page (a later roll's card is, so the blind one had time to come).
    marker_card(gm, bram)
    assert bram.locator("#chat-log .chat-message", has_not_text=MARKER).count() == 0
    # Foundry's server sends every chat message to every client (whispers are hidden on the client only), so
    # no document, socket frame or query any player's browser received may carry the blind roll's result.
    check, outcome = gcard.get_attribute("data-check-id"), gcard.get_attribute("data-outcome")
    assert check and outcome
    for user in ("p1", "p2"):
        leaks = [f for f in table.delivered(user) if check in f and outcome in f]
        assert not leaks, f"{user}'s browser received the blind roll's result: {leaks[0][:400]}"


def test_a_self_roll_reaches_the_roller_only(table):
    """A self roll is the roller's alone: no other player's browser receives its result, in any frame."""
    gm, ayla, bram = table.open("gm1"), table.open("p1"), table.open("p2")
    connected(gm, ayla, bram)
    label = "Count the coins in my purse"
    ayla.evaluate(
        f"{API}.client.roll({{check: {{system: 'facets', pool: 3}}, actor: 'actorAyla', mode: 'self', label: {label!r}}})"
    )
    card = ayla.locator(f".verdict-card:has(.verdict-label:has-text('{label}')):has(.verdict-dice .die)")
    card.wait_for(timeout=15000)
    check, outcome = card.get_attribute("data-check-id"), card.get_attribute("data-outcome")
    assert check and outcome
    marker_card(gm, bram)
    assert bram.locator("#chat-log .chat-message", has_not_text=MARKER).count() == 0
    leaks = [f for f in table.delivered("p2") if check in f and outcome in f]
    assert not leaks, f"another player's browser received the self roll's result: {leaks[0][:400]}"
