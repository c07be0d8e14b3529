"""`fortune`'s :class:`RuleSet`, named by the entry point ``verdict.rulesets``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from protocol.v1 import table as t
from sidecar.engine.dice import Dice
from sidecar.engine.odds_core import chances
from sidecar.engine.ruleset import Consequence, RuleSet, TableView
from sidecar.engine.table_part import OpView

from . import rules as mod
from . import table as part
from .protocol import FortuneCheck, FortuneGrant, FortuneOdds, FortuneResult


class Fortune(RuleSet[FortuneCheck, FortuneResult]):
    name = "fortune"
    check_type = FortuneCheck
    result_type = FortuneResult
    ops = (FortuneGrant,)
    table_part = part.PART
    rules = mod.RULES
    module = mod

    def roll(self, check: FortuneCheck, rng: Dice) -> list[int]:
        return mod.roll(check, rng)

    def read(self, check: FortuneCheck, faces: Sequence[int]) -> FortuneResult:
        return mod.read(check, faces)

    def odds(self, check: FortuneCheck, rules: Any) -> FortuneOdds:
        mod.validate(check, rules)
        n = check.pool + check.spend
        total, misses = rules.sides**n, (rules.hit - 1) ** n
        return FortuneOdds(
            outcome=chances([("success", total - misses), ("failure", misses)], total, keep_zero=True),
            spend=check.spend,
        )

    def consequences(self, roll: t.RollEvent, view: TableView) -> Iterable[Consequence]:
        return part.spend(roll, view)

    def prepare_op(self, op: Any, view: OpView) -> list[object]:
        return part.prepare_op(op, view)


RULESET = Fortune()
