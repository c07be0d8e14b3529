"""How the Foundry module draws an `omen` (presentation only)."""

from __future__ import annotations

from sidecar.engine.ruleset import Card

CARD = Card(
    tones={"good": "good", "ill": "bad"},
    dice={"extremes": True},
    facts=(
        {"key": "margin", "title": "Margin", "text": "{margin|signed}", "tone": {"sign": "margin", "zero": "good"}},
    ),
)
