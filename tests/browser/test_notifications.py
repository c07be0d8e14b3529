"""Chat notifications, as Foundry v13 and v14 show them while the chat tab is not on screen: a copy of each new
message in the notifications pane, with a dismiss control and no delete control, that fades on Foundry's
schedule (its element's lifespan), also after the module draws the card again when the dice land and when
it connects."""

from __future__ import annotations

import time

import pytest

from .helpers import API, connected

pytestmark = pytest.mark.browser

COPY = "#chat-notifications .chat-message:has(.verdict-label:has-text('Shown in passing'))"


@pytest.mark.generations(13, 14)
def test_a_notification_copy_of_a_card_has_foundrys_controls_and_fades(table, generation):
    table.modules = ["dice-so-nice"]
    gm, ayla, bram = table.open("gm1"), table.open("p1"), table.open("p2")
    connected(gm, ayla, bram)
    for page in (gm, bram):
        page.evaluate("standin.collapseSidebar()")
    ayla.evaluate(
        f"{API}.client.roll({{check: {{system: 'facets', pool: 2, dice: [6, 3]}}, actor: 'actorAyla', label: 'Shown in passing'}})"
    )
    for page in (gm, bram):
        copy = page.locator(COPY)
        # the copy is drawn again once the dice land: the outcome, in the same element Foundry made
        copy.locator(".verdict-outcome").wait_for(timeout=15000)
        assert copy.locator("[data-action=dismissMessage]").count() == 1
        assert copy.locator("[data-action=deleteMessage]").count() == 0  # not even the GM's
        assert copy.evaluate("(el) => Number.isFinite(el._lifeSpan)")
    # the log's own element is the GM's to delete
    assert gm.locator("#chat-log .chat-message:has(.verdict-label) [data-action=deleteMessage]").count() == 1
    # the copy fades on Foundry's schedule (five seconds, looked at twice a second)
    start = time.monotonic()
    for page in (gm, bram):
        page.locator(COPY).wait_for(state="detached", timeout=15000)
    assert time.monotonic() - start < 12
    # the log keeps the card
    for page in (gm, bram):
        assert page.locator("#chat-log .verdict-label:has-text('Shown in passing')").count() == 1


@pytest.mark.generations(13, 14)
def test_a_notification_copy_drawn_again_on_connect_keeps_its_lifespan_and_can_be_dismissed(table, generation):
    gm, ayla = table.open("gm1"), table.open("p1")
    connected(gm, ayla)
    ayla.evaluate("standin.collapseSidebar()")
    ayla.evaluate(
        f"{API}.client.roll({{check: {{system: 'facets', pool: 2}}, actor: 'actorAyla', label: 'Shown in passing'}})"
    )
    copy = ayla.locator(COPY)
    copy.locator(".verdict-outcome").wait_for(timeout=15000)
    copy.evaluate("(el) => { el.dataset.first = '1'; }")
    copy.hover()  # the pointer over the copy holds it while the sidecar restarts
    table.sidecar.stop()
    ayla.wait_for_function("document.querySelector('#verdict-status').dataset.state !== 'open'", timeout=15000)
    table.sidecar.start()
    # the client connects again: every card is drawn again, the copy inside its own element
    connected(gm, ayla)
    copy.locator(".verdict-outcome").wait_for(timeout=15000)
    assert copy.evaluate("(el) => el.dataset.first") == "1"
    assert copy.evaluate("(el) => Number.isFinite(el._lifeSpan)")
    copy.locator("[data-action=dismissMessage]").click()
    copy.wait_for(state="detached", timeout=5000)
