"""What a `feats` roll does to the table (docs/rules/feats.md).

- Wyrd Points: the 8s bought before the roll (and the Wyrd feat) cost the roller their price. A roller
  without the points is refused (``insufficient_wyrd``), nothing rolled. A roll with no actor named spends
  nothing (the table cannot know whose points they are).
"""

from __future__ import annotations

from collections.abc import Iterable

from protocol.v1 import table as t
from protocol.v1.feats import FeatsResult

from ...errors import CheckError, ErrorCode
from ...ruleset import Consequence, TableView


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
    return [t.WyrdChanged(actor=roll.actor, delta=-cost)] if cost else []
