"""`feats`' part of the table (docs/rules/feats.md): each actor's Wyrd Points (its ``FeatsActor`` field), spent
by feats and granted by the GM. They stay within their bound either way: a grant that would carry them past it
is refused, and the fold holds them there."""

from __future__ import annotations

from typing import Any

from protocol.v1 import feats as feats_t
from protocol.v1 import limits

from ... import bounds
from ...errors import CheckError, ErrorCode
from ...table_part import OpView, PartTable, TablePart


class FeatsPart(TablePart):
    events = (feats_t.WyrdChanged,)

    def fold(self, own: None, seq: int, ev: object, table: PartTable) -> None:
        if isinstance(ev, feats_t.WyrdChanged):
            a = table.actor(ev.actor)
            a.wyrd = min(max(-limits.WYRD, a.wyrd + ev.delta), limits.WYRD)

    def recap(self, seq: int, ev: Any, memo: dict[str, Any]) -> str | None:
        return f"{ev.actor}: {ev.delta:+d} Wyrd Points" if isinstance(ev, feats_t.WyrdChanged) else None


def prepare_op(op: Any, view: OpView) -> list[object]:
    """The events of `feats`' GM operation, the grant of Wyrd Points (or their loss)."""
    if not isinstance(op, feats_t.WyrdGrant):
        raise CheckError(ErrorCode.UNKNOWN_OP, f"feats has no GM operation {type(op).__name__}")
    bounds.room_for_actor(view, op.actor)
    have: int = view.actor_state(op.actor).wyrd
    if have + op.amount > limits.WYRD:
        bounds.within(f"{op.actor}'s Wyrd Points (now {have})", have + op.amount, limits.WYRD)
    if have + op.amount < 0:
        raise CheckError(ErrorCode.INSUFFICIENT_WYRD, f"{op.actor} has only {have} Wyrd Points")
    return [feats_t.WyrdChanged(actor=op.actor, delta=op.amount)]


PART = FeatsPart()
