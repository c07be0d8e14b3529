"""The GM's choice of a complication to remove after an epic success: the longest option, a hidden
complication's text with its "(hidden)", fits the select whole (nothing of it is cut off)."""

from __future__ import annotations

import pytest

from .helpers import API, connected

pytestmark = pytest.mark.browser

# The widest option's text, measured in the select's own font, against the room the select gives its text.
FITS = r"""(sel) => {
  const select = document.querySelector(sel);
  const style = getComputedStyle(select);
  const ctx = document.createElement("canvas").getContext("2d");
  ctx.font = style.font;
  const widest = Math.max(...[...select.options].map((o) => ctx.measureText(o.textContent).width));
  const mark = Math.max(...[...select.options].map((o) => ctx.measureText(o.textContent.match(/^\(hidden\)/)?.[0] ?? "").width));
  const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return {widest, mark, room, texts: [...select.options].map((o) => o.textContent)};
}"""


def test_the_hidden_complication_fits_the_removal_dropdown(table, shot):
    gm = table.open("gm1", "challenge")
    connected(gm)
    text = "Smugglers hold the harbour gate"
    gm.evaluate(f"{API}.client.gm({{op: 'complication_add', scene: 'scene1', text: {text!r}, hidden: true}})")
    gm.wait_for_function(
        f"({API}.client.snapshot?.scenes?.scene1?.complications ?? []).some((c) => c.text === {text!r})",
        timeout=15000,
    )
    # 20 against CL 1: beaten by 4 or more, an epic success; the GM may remove a complication.
    gm.evaluate(
        f"{API}.client.roll({{check: {{system: 'challenge', cl: 1, modifier: 5, dice: [20]}}, scene: 'scene1', label: 'Storm the gate'}})"
    )
    sel = ".verdict-card[data-system='challenge'] select[name=remove-complication]"
    gm.wait_for_function(
        f'[...(document.querySelector("{sel}")?.options ?? [])].some((o) => o.textContent.includes({text!r}))',
        timeout=15000,
    )
    measured = gm.evaluate(FITS, sel)
    assert any(t.startswith("(hidden) ") for t in measured["texts"]), measured
    # the mark is never cut off, whatever the text's length; this text fits whole
    assert 0 < measured["mark"] <= measured["room"], measured
    assert measured["widest"] <= measured["room"], measured
    shot(gm, ".chat-message:last-child", "card-challenge-remove-complication.png")
