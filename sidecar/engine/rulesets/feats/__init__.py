"""`feats`: 3d8 in a fixed order against the Feat table (docs/rules/feats.md)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from protocol.v1 import table as t
from protocol.v1.feats import FeatsCheck, FeatsResult
from protocol.v1.odds import FeatsOdds

from ...ruleset import Consequence, RuleSet, TableView
from . import consequences
from . import rules as mod
from .odds import feats_odds


class Feats(RuleSet[FeatsCheck, FeatsResult]):
    name = "feats"
    check_type = FeatsCheck
    result_type = FeatsResult
    rules = mod.RULES
    module = mod

    def validate(self, check: FeatsCheck, rules: Any = None) -> None:
        mod.validate(check, self.rules if rules is None else rules)

    def sizes(self, check: FeatsCheck, rules: Any = None) -> list[int]:
        return mod.sizes(check, self.rules if rules is None else rules)

    roll = staticmethod(mod.roll)  # bound as is: the hot path takes no extra call

    read = staticmethod(mod.read)

    def describe(self, result: FeatsResult) -> str:
        return mod.describe(result)

    def odds(self, check: FeatsCheck, rules: Any) -> FeatsOdds:
        mod.validate(check, rules)
        return feats_odds(check, rules)

    def consequences(self, roll: t.RollEvent, view: TableView) -> Iterable[Consequence]:
        return consequences.of_roll(roll, view)


RULESET = Feats()
