"""What a `feats` roll does to the table (docs/rules/feats.md).

- Wyrd Points: the 8s bought before the roll (and the Wyrd feat) cost the roller their price. A roller
  without the points is refused (``insufficient_wyrd``), nothing rolled. A player's roll that buys 8s or
  the Wyrd feat must name its actor (``actor_required``): the points are someone's. Only the GM may roll
  such a check for no one (a non-player character the table does not track), and it spends nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from protocol.v1 import feats as feats_t
from protocol.v1 import table as t
from protocol.v1.feats import FeatsCheck, FeatsResult

from ...errors import CheckError, ErrorCode
from ...ruleset import Consequence, RollContext, TableView


def whose_points(check: FeatsCheck, ctx: RollContext) -> None:
    """Refuse a player's roll that spends Wyrd Points without naming whose they are."""
    if (check.wyrd or check.wyrd_feat) and ctx.actor is None and not ctx.by_gm:
        raise CheckError(
            ErrorCode.ACTOR_REQUIRED,
            "feats: buying 8s or the Wyrd feat spends Wyrd Points; name the actor whose points pay (`actor`)",
        )


def of_roll(roll: t.RollEvent, view: TableView) -> Iterable[Consequence]:
    """The events a `feats` result produces; refuses a roll the actor cannot pay for."""
    result = roll.result
    assert isinstance(result, FeatsResult)
    if roll.actor is None:
        return []
    cost = result.cost or 0
    have = view.actor_state(roll.actor).wyrd
    if cost > have:
        raise CheckError(ErrorCode.INSUFFICIENT_WYRD, f"{roll.actor} has {have} Wyrd Points; this feat costs {cost}")
    return [feats_t.WyrdChanged(actor=roll.actor, delta=-cost)] if cost else []
