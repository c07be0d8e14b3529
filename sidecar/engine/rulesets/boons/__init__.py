"""`boons`: narrative dice (ability, boon, bane, trial, crisis) (docs/rules/boons.md)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from protocol.v1 import table as t
from protocol.v1.boons import BoonsCheck, BoonsResult
from protocol.v1.messages import OpenFollowup
from protocol.v1.odds import BoonsOdds

from ...dice import Dice
from ...ruleset import Consequence, RuleSet, TableView
from . import consequences
from . import rules as mod
from .followups import open_on as open_followups
from .odds import boons_odds


class Boons(RuleSet[BoonsCheck, BoonsResult]):
    name = "boons"
    check_type = BoonsCheck
    result_type = BoonsResult
    extended = True
    rules = mod.RULES
    module = mod

    roll = staticmethod(mod.roll)  # bound as is: the hot path takes no extra call

    read = staticmethod(mod.read)

    def resolve(self, check: BoonsCheck, rng: Dice) -> BoonsResult:
        return mod.resolve(check, rng)  # the pool built once for both steps

    def odds(self, check: BoonsCheck, rules: Any) -> BoonsOdds:
        return boons_odds(check, rules)  # validates as it builds the pool

    def consequences(self, roll: t.RollEvent, view: TableView) -> Iterable[Consequence]:
        return consequences.of_roll(roll, view)

    def parts(self, check: BoonsCheck) -> list[tuple[str, Any]] | None:
        """An opposed check: the actor's pool, then the defender's."""
        if check.opponent is None:
            return None
        mod.validate(check)
        actor = msgspec.structs.replace(check, opponent=None, dice=None)
        o = check.opponent
        defender = BoonsCheck(ability=o.ability, boon=o.boon, bane=o.bane, rank=o.rank, assists=list(o.assists))
        return [("actor", actor), ("defender", defender)]

    def fill_extended(self, check: BoonsCheck, x: t.ExtendedState) -> BoonsCheck:
        return consequences.fill_extended(check, x)

    def validate_extended(self, start: t.ExtendedStart) -> None:
        # the GM's difficulty, as each roll of the extended check will carry it
        mod.validate(BoonsCheck(trial=start.trial, crisis=start.crisis, threshold=start.threshold, limit=start.limit))

    def open_on(self, roll: t.RollEvent, view: TableView) -> list[OpenFollowup]:
        return open_followups(roll, view)


RULESET = Boons()
