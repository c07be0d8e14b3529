"""`fortune`'s part of the table: each actor's fortune points (its ``FortuneActor`` field). The GM grants them
(``fortune_grant``, everyone hears it); a roll that spends them takes them as a consequence of the roll, heard
as the roll is (a blind roll's spend: by the GM alone). They stay within 0 and :data:`FORTUNE`: an action that
would carry them past is refused, nothing applied."""

from __future__ import annotations

from typing import Any

from protocol.v1 import table as t
from protocol.v1.errors import ErrorCode
from sidecar.engine import bounds
from sidecar.engine.errors import CheckError
from sidecar.engine.ruleset import TableView
from sidecar.engine.table_part import OpView, PartTable, TablePart

from .protocol import FORTUNE, FortuneChanged, FortuneCheck, FortuneGrant


class FortunePart(TablePart):
    events = (FortuneChanged,)

    def fold(self, own: None, seq: int, ev: object, table: PartTable) -> None:
        if isinstance(ev, FortuneChanged):
            a = table.actor(ev.actor)
            a.fortune = min(max(0, a.fortune + ev.delta), FORTUNE)

    def recap(self, seq: int, ev: Any, memo: dict[str, Any]) -> str | None:
        return f"{ev.actor}: {ev.delta:+d} fortune points" if isinstance(ev, FortuneChanged) else None


def held(view: TableView, actor: str) -> int:
    """The fortune points ``actor`` holds."""
    points: int = view.actor_state(actor).fortune
    return points


def prepare_op(op: Any, view: OpView) -> list[object]:
    if not isinstance(op, FortuneGrant):
        raise CheckError(ErrorCode.UNKNOWN_OP, f"fortune has no GM operation {type(op).__name__}")
    bounds.room_for_actor(view, op.actor)
    have = held(view, op.actor)
    bounds.within(f"{op.actor}'s fortune points (now {have})", have + op.amount, FORTUNE)
    return [FortuneChanged(actor=op.actor, delta=op.amount)]


def spend(roll: t.RollEvent, view: TableView) -> list[object]:
    """What a roll spends of its actor's fortune points, refused (before its dice count) without them."""
    check = roll.check
    assert isinstance(check, FortuneCheck)
    if not check.spend:
        return []
    if roll.actor is None:
        raise CheckError(
            ErrorCode.ACTOR_REQUIRED, "fortune: spending fortune points takes an actor whose points pay (`actor`)"
        )
    have = held(view, roll.actor)
    bounds.within(f"{roll.actor}'s fortune points (now {have}, {check.spend} spent)", have - check.spend, FORTUNE)
    return [FortuneChanged(actor=roll.actor, delta=-check.spend)]


PART = FortunePart()
