"""How the Foundry module draws a `boons` check and its result (presentation only: see :class:`Card`)."""

from __future__ import annotations

from ...ruleset import Card
from .rules import RULES

_EACH = {"min": 0, "max": RULES.max_dice}

CARD = Card(
    tones={"exceptional": "great", "improved": "good", "success": "mixed", "failure": "bad"},
    kinds={
        "name": "check_type",
        "title": "Check type",
        "options": {
            "simple": [],
            "assisted": ["rank", "assists"],
            "group": ["performer_rank", "participant_ranks"],
            "opposed": ["opponent"],
            "extended": ["threshold", "time_unit", "limit"],
        },
    },
    dialog=(
        ("ability", {"preset": 2, **_EACH}),
        ("boon", _EACH),
        ("bane", _EACH),
        ("trial", {"preset": 2, **_EACH}),
        ("crisis", _EACH),
        ("upgrade", _EACH),
        ("rank", _EACH),
        ("assists", {}),
        ("performer_rank", _EACH),
        ("participant_ranks", {}),
        (
            "opponent",
            {
                "group": {
                    "ability": {"preset": 2, "title": "Defender's ability dice", **_EACH},
                    "boon": {"title": "Defender's boon dice", **_EACH},
                    "bane": {"title": "Defender's bane dice", **_EACH},
                }
            },
        ),
        ("threshold", {"preset": 5, "min": 1, "max": 100}),
        ("time_unit", {"preset": "hour"}),
        ("limit", {"min": 1, "max": 100}),
    ),
    dice={"types": "types", "symbols": "symbols"},
    facts=(
        {
            "key": "netSuccesses",
            "text": "{net_successes|signed}",
            "tone": {"sign": "net_successes", "zero": "bad"},
        },
        {
            "key": ["netBoons", "netBanes"],
            "sign": "net_boons",
            "when": "net_boons",
            "text": "{net_boons|abs}",
            "tone": {"sign": "net_boons"},
        },
        {"key": "breakthroughs", "when": "breakthroughs", "text": "{breakthroughs}", "tone": "great"},
        {"key": "calamities", "when": "calamities", "text": "{calamities}", "tone": "dire"},
        {"key": "groupBanes", "when": "group_banes", "text": "{group_banes}"},
        {
            "key": "winner",
            "when": "winner",
            "value_key": "VERDICT.Winner.{winner}",
            "tone": {"of": "winner", "map": {"actor": "good", "*": "bad"}},
        },
        {"key": "defenderNet", "when": "defender", "text": "{defender.net_successes|signed}"},
        {"key": "defenderBoons", "when": "defender.remaining_boons", "text": "{defender.remaining_boons}"},
        {"key": "defenderBanes", "when": "defender.remaining_banes", "text": "{defender.remaining_banes}"},
        {
            "key": "extended",
            "when": "extended",
            "text": [
                "{extended.progress} / {extended.threshold} ({extended.attempts}/{extended.limit})",
                "{extended.progress} / {extended.threshold}",
            ],
        },
        {
            "key": "extendedStatus",
            "when": "extended",
            "value_key": "VERDICT.Extended.{extended.status}",
            "tone": {"of": "extended.status", "map": {"complete": "good", "failed": "bad"}},
        },
    ),
    gather={
        "kind": "sides",
        "when": {"check_type": ["opposed"]},
        "values": {"check_type": "opposed"},
        "sides": {
            "actor": {"drop": ["opponent"]},
            "defender": {"from": "opponent", "zero": ["trial", "crisis", "upgrade"]},
        },
        "part_values": {"check_type": "simple"},
        "net": "net_successes",
    },
    extended={
        "values": {"check_type": "simple"},
        "fill": {"trial": "trial", "crisis": "crisis"},
        "start": ["threshold", "trial", "limit", "time_unit"],
    },
)
