"""How the Foundry module draws a `challenge` check and its result (presentation only: see :class:`Card`)."""

from __future__ import annotations

from ...ruleset import Card

CARD = Card(
    tones={
        "epic_success": "great",
        "success": "good",
        "success_at_cost": "mixed",
        "failure": "bad",
        "epic_failure": "dire",
    },
    dialog=(
        ("cl", {"preset": 2, "min": 1, "max": 20}),
        ("modifier", {"min": -50, "max": 50}),
        ("complication", {"choices": "complications"}),
    ),
    dice={"extremes": True},
    facts=(
        {"key": "total", "text": "{total}"},
        {"key": "levelVsCl", "text": "{level} / {cl|?}"},
        {"key": "clMargin", "text": "{margin|signed}"},
        {"key": "strain", "when": "strain", "text": "{strain|signed}", "tone": {"sign": "strain", "invert": True}},
        {"key": "gameChangers", "when": "game_changers", "text": "{game_changers|signed}", "tone": "good"},
        {"key": "chosen", "when": "chosen", "value_key": "VERDICT.Choice.{chosen}", "tone": "good"},
        {"key": "condition", "when": "condition", "value_key": "VERDICT.Yes", "tone": "bad"},
        {
            "key": "complication",
            "when": "complication",
            "value_key": "VERDICT.Complication.{complication}",
            "tone": {"of": "complication", "map": {"add": "bad", "*": "good"}},
        },
        {"key": "addresses", "when": "addresses", "text": "{addresses}", "entry": "complications"},
        {"key": "natural", "when": "natural", "equals": 1, "text": "1", "tone": "dire"},
    ),
)
