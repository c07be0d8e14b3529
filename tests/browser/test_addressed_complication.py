"""A challenge card that addresses a complication names it by its text, as the viewer's table holds it, and
never by its id: the GM's and the players' cards alike, also once the success has removed it."""

from __future__ import annotations

import pytest

from .helpers import API, connected

pytestmark = pytest.mark.browser

FACT = "dd:right-of(dt:has-text('Addresses complication'))"


def _add(gm, text: str, hidden: bool, cl: int) -> str:
    """A complication the GM adds and converts into a challenge of that CL; returns its id."""
    gm.evaluate(
        f"{API}.client.gm({{op: 'complication_add', scene: 'scene1', text: {text!r}, hidden: {str(hidden).lower()}}})"
    )
    cid = gm.wait_for_function(
        f"""() => ({API}.client.snapshot?.scenes?.scene1?.complications ?? []).find((c) => c.text === {text!r})?.id""",
        timeout=15000,
    ).json_value()
    gm.evaluate(f"{API}.client.gm({{op: 'complication_convert', complication: {cid!r}, cl: {cl}}})")
    return cid


def _fact(page, label: str) -> str:
    card = page.locator(f".verdict-card[data-system='challenge']:has(.verdict-label:has-text({label!r}))")
    card.locator(".verdict-outcome").wait_for(timeout=15000)
    return card.locator(FACT).first.inner_text().strip()


def test_the_addressed_complication_is_named_by_its_text(table):
    gm, ayla, bram = table.open("gm1", "challenge"), table.open("p1", "challenge"), table.open("p2", "challenge")
    connected(gm, ayla, bram)
    text = "The bridge is burning"
    cid = _add(gm, text, hidden=False, cl=2)
    for page in (ayla, bram):
        page.wait_for_function(
            f"({API}.client.snapshot?.scenes?.scene1?.complications ?? []).some((c) => c.id === {cid!r})",
            timeout=15000,
        )
    label = "Put out the fire"
    # 19 (level 4) against CL 2: a success, which removes the complication it addresses.
    ayla.evaluate(
        f"{API}.client.roll({{check: {{system: 'challenge', cl: 2, modifier: 0, complication: {cid!r}, dice: [19]}}, actor: 'actorAyla', scene: 'scene1', label: {label!r}}})"
    )
    for page in (gm, ayla, bram):
        page.wait_for_function(
            f"!({API}.client.snapshot?.scenes?.scene1?.complications ?? []).some((c) => c.id === {cid!r})",
            timeout=15000,
        )
        assert _fact(page, label) == text, page.evaluate("document.body.dataset.user")
    # drawn again once the complication is gone from the table (the client still knows what it said)
    ayla.evaluate(f"{API}.client.roll({{check: {{system: 'facets', pool: 1}}, label: 'Later'}})")
    for page in (gm, ayla, bram):
        page.locator(".verdict-card .verdict-label:has-text('Later')").wait_for(timeout=15000)
        assert _fact(page, label) == text
        assert cid not in page.locator("#chat-log").inner_text()


def test_a_hidden_complication_is_not_named_to_players(table):
    gm, ayla = table.open("gm1", "challenge"), table.open("p1", "challenge")
    connected(gm, ayla)
    text = "The guard is a spy"
    cid = _add(gm, text, hidden=True, cl=3)
    label = "Unmask the guard"
    # the GM's public roll against a hidden complication: a failure leaves it in place
    gm.evaluate(
        f"{API}.client.roll({{check: {{system: 'challenge', cl: 3, modifier: 0, complication: {cid!r}, dice: [2]}}, scene: 'scene1', label: {label!r}}})"
    )
    assert _fact(gm, label) == text
    assert _fact(ayla, label) == "not in your view of the table"
    assert cid not in ayla.locator("#chat-log").inner_text() and text not in ayla.locator("#chat-log").inner_text()
