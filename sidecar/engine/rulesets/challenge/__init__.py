"""`challenge`: d20 + modifiers against a Challenge Level (docs/rules/challenge.md)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from protocol.v1 import challenge as challenge_t
from protocol.v1 import table as t
from protocol.v1.base import Action
from protocol.v1.challenge import ChallengeCheck, ChallengeChoice, ChallengeRemoveComplication, ChallengeResult
from protocol.v1.messages import OpenFollowup
from protocol.v1.odds import ChallengeOdds

from ...dice import Dice
from ...ruleset import Consequence, Prepared, RollContext, RuleSet, TableView
from ...table_part import OpView
from . import consequences
from . import rules as mod
from . import table as part
from .followups import follow
from .followups import open_on as open_followups
from .odds import challenge_odds


class Challenge(RuleSet[ChallengeCheck, ChallengeResult]):
    name = "challenge"
    check_type = ChallengeCheck
    result_type = ChallengeResult
    followups = (ChallengeChoice, ChallengeRemoveComplication)
    gm_followups = (ChallengeRemoveComplication,)
    ops = (
        challenge_t.ComplicationAdd,
        challenge_t.ComplicationEdit,
        challenge_t.ComplicationReveal,
        challenge_t.ComplicationRemove,
        challenge_t.ComplicationConvert,
        challenge_t.StrainSet,
    )
    table_part = part.PART
    rules = mod.RULES
    module = mod

    roll = staticmethod(mod.roll)  # bound as is: the hot path takes no extra call

    read = staticmethod(mod.read)

    def odds(self, check: ChallengeCheck, rules: Any) -> ChallengeOdds:
        mod.validate(check, rules)
        return challenge_odds(check, rules)

    def follow(self, check: ChallengeCheck, result: ChallengeResult, action: Action, rng: Dice) -> ChallengeResult:
        return follow(check, result, action, rng)

    def open_on(self, roll: t.RollEvent, view: TableView) -> list[OpenFollowup]:
        return open_followups(roll, view)

    def prepare(self, check: ChallengeCheck, ctx: RollContext, view: TableView) -> Prepared:
        consequences.addressable(check, ctx, view)
        return Prepared(check)

    def consequences(self, roll: t.RollEvent, view: TableView) -> Iterable[Consequence]:
        return consequences.of_roll(roll, view)

    def follow_consequences(
        self, roll: t.RollEvent, action: Action, result: ChallengeResult, view: TableView
    ) -> Iterable[Consequence]:
        return consequences.of_follow(roll, action, result, view)

    def on_condition(self, actor: str, scene: str | None, view: TableView) -> Iterable[object]:
        a = view.actor_state(actor)
        if len(a.conditions) + 1 >= mod.RULES.taken_down_at and not a.taken_down:  # taken down: a complication too
            part.room_for_complication(view, scene or "")
        return consequences.condition(actor, scene, view)

    def prepare_op(self, op: Any, view: OpView) -> list[object]:
        return part.prepare_op(op, view)

    def private_refusal(self, check: ChallengeCheck) -> str | None:
        return "a roll that addresses a complication" if check.complication is not None else None

    def redact_action(self, action: Action) -> Action:
        if isinstance(action, ChallengeRemoveComplication):
            # it may have been off-screen: its removal says so, to whoever may see it
            return msgspec.structs.replace(action, complication="")
        return action


RULESET = Challenge()
