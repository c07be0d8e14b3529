"""How the Foundry module draws a `facets` check and its result (presentation only: see :class:`Card`)."""

from __future__ import annotations

from ...ruleset import Card
from .rules import RULES

CARD = Card(
    tones={"triumph": "great", "success": "good", "costly_success": "mixed", "failure": "bad", "catastrophe": "dire"},
    dialog=(
        ("pool", {"preset": 1, "min": 0, "max": RULES.max_dice}),
        ("helping", {"min": 0, "max": RULES.max_dice}),
        ("hindering", {"min": 0, "max": RULES.max_dice}),
        ("kind", {}),
        ("domain", {}),
    ),
    dice={"read": "highest", "extremes": True},
    facts=(
        {"key": "pool", "text": "{pool}"},
        {"key": "desperate", "when": "desperate", "value_key": "VERDICT.Yes", "tone": "bad"},
        {"key": "highest", "text": "{highest}"},
        {"key": "harmOpponent", "when": "harm.opponent", "text": "{harm.opponent|@Harm}", "tone": "good"},
        {"key": "harmCharacter", "when": "harm.character", "text": "{harm.character|@Harm}", "tone": "bad"},
        {
            "key": "facet",
            "when": "facet",
            "value_key": "VERDICT.Facet.{facet}",
            "tone": {"of": "facet", "map": {"beneficial": "good", "*": "bad"}},
        },
        {"key": "cost", "when": "cost", "value_key": "VERDICT.Yes", "tone": "mixed"},
        {"key": "discord", "when": "discord", "value_key": "VERDICT.Discord.{discord}", "tone": "bad"},
    ),
)
