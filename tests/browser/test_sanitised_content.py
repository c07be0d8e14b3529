"""Foundry's server cleans a chat message's content (`cleanHTML` with `CONST.ALLOWED_HTML_TAGS`) and every
page enriches what it stores: a label typed as an inline roll and a content link stays text on every page,
the roller's, the GM's and a third player's (who has no copy of their own to draw instead), also after a
reload."""

from __future__ import annotations

import pytest

from .helpers import API, connected

pytestmark = pytest.mark.browser

LABEL = "[[/r 1d20]] @UUID[Actor.x]{X} &Reference[y]"

# What the enricher made of the log's content: an inline roll or a content link anywhere in a Verdict card.
LIVE = "document.querySelectorAll('#chat-log .verdict-card :is(a.inline-roll, a.content-link, [data-uuid])').length"


def _label_is_text(page) -> None:
    label = page.locator("#chat-log .verdict-card .verdict-label")
    label.wait_for(timeout=15000)
    assert label.evaluate("(el) => el.textContent.trim()") == LABEL
    assert page.evaluate(LIVE) == 0


def test_a_typed_roll_and_link_in_a_label_stay_text_on_every_page(table):
    gm, ayla, bram = table.open("gm1"), table.open("p1"), table.open("p2")
    connected(gm, ayla, bram)
    ayla.evaluate(f"{API}.client.roll({{check: {{system: 'facets', pool: 2}}, actor: 'actorAyla', label: {LABEL!r}}})")
    for page in (gm, ayla, bram):
        _label_is_text(page)
    # the server stored the content cleaned: no element outside Foundry's allowed tags survived
    stored = [m["content"] for m in table.messages() if "verdict-card" in m.get("content", "")]
    assert stored and all("<wbr" not in c for c in stored)
    # the stored content, enriched as Foundry enriches it, holds no live roll or link either
    live = bram.evaluate(
        """async (content) => { const html = await foundry.applications.ux.TextEditor.enrichHTML(content);
          const t = document.createElement('template'); t.innerHTML = html;
          return t.content.querySelectorAll('a.inline-roll, a.content-link').length; }""",
        stored[0],
    )
    assert live == 0
    # a third player coming back draws the old card from its flags as well
    bram.reload()
    bram.wait_for_selector("body[data-ready='1']", timeout=15000)
    connected(bram)
    _label_is_text(bram)
