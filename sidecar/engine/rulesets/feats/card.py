"""How the Foundry module draws a `feats` check and its result (presentation only: see :class:`Card`)."""

from __future__ import annotations

from ...ruleset import Card
from .rules import DICE

CARD = Card(
    tones={"success": "good", "failure": "bad"},
    dialog=(
        ("ability", {"preset": 10, "min": -20, "max": 40}),
        ("difficulty", {"preset": 10, "min": -20, "max": 40}),
        ("level", {"min": -20, "max": 20}),
        ("wyrd", {"min": 0, "max": len(DICE)}),
        ("wyrd_dice", {}),
        ("wyrd_feat", {}),
    ),
    dice={"colours": list(DICE), "colour_class": "feat-{colour}", "bought": "bought"},
    facts=(
        {"key": "featLevel", "text": "{level|signed}"},
        {"key": "degree", "text": "{degree|signed}", "tone": {"sign": "degree"}},
        {"key": "bought", "when": "bought", "text": "{bought|@FeatDie}"},
        {"key": "wyrdCost", "when": "cost", "text": "{cost}"},
    ),
    # Wyrd bought in the dialog (8s, the feat whole) is paid from the actor's Wyrd Points: the odds say how many.
    spends={"resource": "wyrd", "cost": "cost", "title": "Wyrd cost"},
)
