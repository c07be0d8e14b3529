"""How the Foundry module draws a `flairs` check and its result (presentation only: see :class:`Card`)."""

from __future__ import annotations

from ...ruleset import Card
from .rules import RULES

CARD = Card(
    tones={"triumph": "great", "success": "good", "conflict": "mixed", "failure": "bad"},
    dialog=(
        ("rank", {"preset": 1, "min": 0, "max": RULES.max_dice}),
        ("edges", {"min": 0, "max": RULES.max_dice}),
        ("cuts", {"min": 0, "max": RULES.max_dice}),
        ("simple", {}),
        ("lurking", {"min": 0, "max": RULES.max_lurking, "gm": True}),
        ("darkness", {}),
    ),
    dice={"read_max_of": "kept", "removed": "removed"},
    facts=(
        {"key": "flairs", "when": "flairs", "text": "{flairs}", "tone": "good"},
        {"key": "trials", "when": "trials", "text": "{trials}", "tone": "bad"},
        {"key": "tainted", "when": "tainted", "text": "{tainted}", "tone": "bad"},
        {"key": "desperate", "when": "desperate", "value_key": "VERDICT.Yes", "tone": "bad"},
        {"key": "chosenFlairs", "when": "chosen_flairs", "text": "{chosen_flairs|@Flair}", "tone": "good"},
        {"key": "trialNames", "when": "standing[].name", "text": "{standing[].name|@Trial}", "tone": "bad"},
        {
            "key": "lurking",
            "when": "lurking",
            "text": ["{lurking}: {lurking_trials|@Trial}", "{lurking} (@VERDICT.Card.secret)"],
            "tone": "bad",
        },
        {"key": "banished", "when": "banished", "text": "{banished|@Trial}", "tone": "good"},
        {"key": "bargain", "when": "bargain", "text": "{bargain|@Trial}", "tone": "mixed"},
        {
            "key": "participant",
            "each": "group",
            "text": "{name}: {outcome|@Outcome.flairs} ({highest})",
            "tone": {"of": "outcome", "map": {"success": "good", "*": "bad"}},
        },
        {"key": "springs", "when": "springs", "text": "{springs}", "tone": "dire"},
    ),
    gather={
        "kind": "group",
        "field": "group",
        "part": ["rank", "edges", "cuts"],
        "flag": "trap",
        "results": "group",
        "part_values": {"simple": True},
    },
)
