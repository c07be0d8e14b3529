"""Typed and coloured dice on a card are painted as their rule set's drawing says (the vocabulary), not by a
stylesheet that names the rule set: a boons ability die and a feats red die, on the page as Foundry shows them."""

from __future__ import annotations

import json

import pytest

from sidecar import vocabulary

from .helpers import API, connected

pytestmark = pytest.mark.browser


def test_typed_and_coloured_dice_are_painted_from_the_vocabulary(table):
    gm = table.open("gm1")
    connected(gm)
    boons = {"system": "boons", "ability": 1, "boon": 1, "bane": 0, "trial": 1, "crisis": 0, "dice": [8, 5, 2]}
    feats = {"system": "feats", "ability": 10, "difficulty": 12, "wyrd": 0, "dice": [8, 7, 3]}
    for check in (boons, feats):
        gm.evaluate(f"{API}.client.roll({{check: {check!r}, label: 'Painted'}})")
    gm.wait_for_function("document.querySelectorAll('.verdict-card').length === 2", timeout=15000)
    paint = gm.evaluate(
        """(sel) => sel.map((s) => { const el = document.querySelector(s); const c = getComputedStyle(el);
             return [c.backgroundColor, c.color]; })""",
        [".verdict-card .die.boons-ability", ".verdict-card .die.boons-trial", ".verdict-card .die.feat-red"],
    )
    # The vocabulary as the module holds it (the page's module may be the bundle, which imports no file).
    text = vocabulary.source()
    drawn = json.loads(text[text.index("({") + 1 : text.rindex(");")])["systems"]
    painted = [drawn[s]["drawing"]["dice"][t] for s, t in (("boons", "ability"), ("boons", "trial"), ("feats", "red"))]
    expected = gm.evaluate(
        """(painted) => {
          const box = document.createElement('i');
          document.body.append(box);
          const rgb = (c) => { box.style.color = c; return getComputedStyle(box).color; };
          const out = painted.map((p) => [rgb(p.background), rgb(p.colour)]);
          box.remove();
          return out;
        }""",
        painted,
    )
    assert paint == expected
    assert paint[0] != paint[1], "each type its own colours"
