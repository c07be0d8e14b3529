"""How the Foundry module draws a `fortune` card (presentation only)."""

from __future__ import annotations

from sidecar.engine.ruleset import Card

CARD = Card(
    tones={"success": "good", "failure": "bad"},
    dice={"extremes": True},
    facts=(
        {"key": "successes", "title": "Successes", "text": "{successes}", "tone": {"sign": "successes"}},
        {"key": "spent", "title": "Fortune spent", "text": "{spent}", "when": "spent"},
    ),
    spends={"resource": "fortune", "cost": "spend", "title": "Fortune spent"},
)
