"""`feats`: 3d8 in a fixed order against the Feat table (docs/rules/feats.md)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from protocol.v1 import feats as feats_t
from protocol.v1 import table as t
from protocol.v1.feats import FeatsCheck, FeatsResult
from protocol.v1.odds import FeatsOdds

from ...ruleset import Consequence, Prepared, RollContext, RuleSet, TableView
from ...table_part import OpView
from . import consequences
from . import rules as mod
from . import table as part
from .odds import feats_odds


class Feats(RuleSet[FeatsCheck, FeatsResult]):
    name = "feats"
    check_type = FeatsCheck
    result_type = FeatsResult
    ops = (feats_t.WyrdGrant,)
    table_part = part.PART
    rules = mod.RULES
    module = mod

    roll = staticmethod(mod.roll)  # bound as is: the hot path takes no extra call

    read = staticmethod(mod.read)

    def odds(self, check: FeatsCheck, rules: Any) -> FeatsOdds:
        mod.validate(check, rules)
        return feats_odds(check, rules)

    def prepare(self, check: FeatsCheck, ctx: RollContext, view: TableView) -> Prepared:
        consequences.whose_points(check, ctx)
        return Prepared(check)

    def consequences(self, roll: t.RollEvent, view: TableView) -> Iterable[Consequence]:
        return consequences.of_roll(roll, view)

    def prepare_op(self, op: Any, view: OpView) -> list[object]:
        return part.prepare_op(op, view)


RULESET = Feats()
