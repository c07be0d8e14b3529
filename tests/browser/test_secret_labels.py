"""A secret roll's card keeps its label after a reload, for those who may see the roll, and only for them.

The chat document of a gm, blind or self roll is a shell without the label (every client receives every
chat message); each reader's browser fills it in from its own view. After a reload that view is gone and the
browser asks the sidecar (`verify`): the label comes back to whoever may see the roll.
"""

from __future__ import annotations

import pytest

from .helpers import API, MARKER, connected, marker_card

pytestmark = pytest.mark.browser


def _card(page, label: str):
    return page.locator(f".verdict-card:has(.verdict-label:has-text('{label}')):has(.verdict-dice .die)")


def _reload(page) -> None:
    page.reload()
    page.wait_for_selector("body[data-ready='1']", timeout=15000)
    connected(page)


@pytest.mark.parametrize("mode", ["local", "server"])
def test_a_gm_roll_keeps_its_label_after_a_reload_and_never_reaches_another_player(request, generation, mode):
    table = request.getfixturevalue("table" if mode == "local" else "server_table")
    gm, ayla, bram = table.open("gm1"), table.open("p1"), table.open("p2")
    connected(gm, ayla, bram)
    gm_label, ayla_label = "Smell the poisoned wine", "Palm the brass key"
    gm.evaluate(f"{API}.client.roll({{check: {{system: 'facets', pool: 3}}, mode: 'gm', label: {gm_label!r}}})")
    ayla.evaluate(
        f"{API}.client.roll({{check: {{system: 'facets', pool: 2}}, actor: 'actorAyla', mode: 'gm', label: {ayla_label!r}}})"
    )
    _card(gm, gm_label).wait_for(timeout=15000)
    _card(gm, ayla_label).wait_for(timeout=15000)
    _card(ayla, ayla_label).wait_for(timeout=15000)
    # the documents are shells: no label in any of them
    for msg in table.messages():
        assert gm_label not in str(msg) and ayla_label not in str(msg)

    # after a reload each reader's card is drawn from the sidecar's answer, label and all
    _reload(gm)
    _card(gm, gm_label).wait_for(timeout=15000)
    _card(gm, ayla_label).wait_for(timeout=15000)
    _reload(ayla)
    _card(ayla, ayla_label).wait_for(timeout=15000)
    # the roller of a gm roll sees their own roll; the GM's gm roll is not theirs to see
    assert ayla.locator(f"text={gm_label}").count() == 0

    # another player: no card on the page, and no frame their browser ever received holds either label
    _reload(bram)
    marker_card(gm, bram)  # a roll after the reload, drawn on Bram's page: what his page would draw, it has
    assert bram.locator(f".verdict-card:not(.verdict-shell) .verdict-label:not(:has-text({MARKER!r}))").count() == 0
    frames = table.delivered("p2") + table.frames.get("p2", [])
    for label in (gm_label, ayla_label):
        leaks = [f for f in frames if label in f]
        assert not leaks, f"p2's browser received {label!r}: {leaks[0][:300]}"
    # and the roller never received the GM's own gm roll's label either
    assert not [f for f in table.delivered("p1") + table.frames.get("p1", []) if gm_label in f]


def test_a_blind_rollers_trace_keeps_its_label_after_a_reload(table):
    """The roller of a blind roll sees that they rolled, with the label they gave it, again after a reload;
    nothing of the roll, and not the label, reaches another player."""
    gm, ayla, bram = table.open("gm1"), table.open("p1"), table.open("p2")
    connected(gm, ayla, bram)
    label = "Listen at the cellar door"
    ayla.evaluate(f"{API}.client.roll({{check: {{system: 'facets', pool: 2}}, mode: 'blind', label: {label!r}}})")
    trace = ".verdict-blind-trace .verdict-trace-label"
    ayla.wait_for_selector(f"{trace}:has-text('{label}')", timeout=15000)
    _card(gm, label).wait_for(timeout=15000)
    _reload(ayla)
    ayla.wait_for_selector(f"{trace}:has-text('{label}')", timeout=15000)
    assert ayla.locator(".verdict-card .verdict-dice .die").count() == 0  # still nothing of the roll itself
    marker_card(gm, bram)
    assert not [f for f in table.delivered("p2") + table.frames.get("p2", []) if label in f]
