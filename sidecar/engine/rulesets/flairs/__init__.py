"""`flairs`: skill rank + edges, cuts, pairs as flairs or trials (docs/rules/flairs.md)."""

from __future__ import annotations

from typing import Any

import msgspec

from protocol.v1 import flairs as flairs_t
from protocol.v1 import table as t
from protocol.v1.base import Action
from protocol.v1.flairs import (
    FlairsBargain,
    FlairsCheck,
    FlairsChoose,
    FlairsNameTrials,
    FlairsResult,
    FlairsReveal,
    FlairsSetLurking,
)
from protocol.v1.messages import OpenFollowup
from protocol.v1.odds import FlairsOdds

from ...dice import Dice
from ...ruleset import Prepared, RollContext, RuleSet, TableView
from ...table_part import OpView
from . import consequences
from . import rules as mod
from . import table as part
from .followups import follow
from .followups import open_on as open_followups
from .odds import flairs_odds


class Flairs(RuleSet[FlairsCheck, FlairsResult]):
    name = "flairs"
    check_type = FlairsCheck
    result_type = FlairsResult
    followups = (FlairsBargain, FlairsChoose, FlairsReveal, FlairsSetLurking, FlairsNameTrials)
    gm_followups = (FlairsReveal, FlairsSetLurking, FlairsNameTrials)
    ops = (flairs_t.LurkingSet,)
    table_part = part.PART
    rules = mod.RULES
    module = mod

    roll = staticmethod(mod.roll)  # bound as is: the hot path takes no extra call

    read = staticmethod(mod.read)

    resolve = staticmethod(mod.resolve)  # validated once, its own faces not checked again

    def odds(self, check: FlairsCheck, rules: Any) -> FlairsOdds:
        mod.validate(check, rules)
        return flairs_odds(check, rules)

    def follow(self, check: FlairsCheck, result: FlairsResult, action: Action, rng: Dice) -> FlairsResult:
        return follow(check, result, action, rng)

    def open_on(self, roll: t.RollEvent, view: TableView) -> list[OpenFollowup]:
        return open_followups(roll, view)

    def prepare(self, check: FlairsCheck, ctx: RollContext, view: TableView) -> Prepared:
        return consequences.take_lurking(check, ctx, view)

    def before_follow(self, roll: t.RollEvent, action: Action) -> None:
        consequences.before_follow(roll, action)

    def redact_check(self, check: FlairsCheck) -> FlairsCheck:
        if check.lurking_trials is not None:  # players see how many, never which
            return msgspec.structs.replace(check, lurking_trials=None, lurking=len(check.lurking_trials))
        return check

    def redact(self, result: FlairsResult) -> FlairsResult:
        return mod.redact(result)

    def redact_action(self, action: Action) -> Action:
        if isinstance(action, FlairsSetLurking):
            return msgspec.structs.replace(action, trials=None, dice=None)
        return action

    def parts(self, check: FlairsCheck) -> list[tuple[str, Any]] | None:
        """A group check: each participant's simple check, in the order of ``group``."""
        if not check.group:
            return None
        mod.validate(check)
        return [(p.name, FlairsCheck(rank=p.rank, edges=p.edges, cuts=p.cuts, simple=True)) for p in check.group]

    def prepare_op(self, op: Any, view: OpView) -> list[object]:
        if isinstance(op, flairs_t.LurkingSet):
            return consequences.lurking_set(op, view)
        return super().prepare_op(op, view)


RULESET = Flairs()
