"""`omen`'s :class:`RuleSet`, named by the entry point ``verdict.rulesets``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sidecar.engine.dice import Dice
from sidecar.engine.odds_core import chances
from sidecar.engine.ruleset import RuleSet

from . import rules as mod
from .protocol import OmenCheck, OmenOdds, OmenResult


class Omen(RuleSet[OmenCheck, OmenResult]):
    name = "omen"
    check_type = OmenCheck
    result_type = OmenResult
    rules = mod.RULES
    module = mod

    def roll(self, check: OmenCheck, rng: Dice) -> list[int]:
        return mod.roll(check, rng)

    def read(self, check: OmenCheck, faces: Sequence[int]) -> OmenResult:
        return mod.read(check, faces)

    def odds(self, check: OmenCheck, rules: Any) -> OmenOdds:
        mod.validate(check, rules)
        good = rules.sides - check.sign + 1
        return OmenOdds(outcome=chances([("good", good), ("ill", rules.sides - good)], rules.sides, keep_zero=True))


RULESET = Omen()
