"""Which `boons` follow-ups are open on a result (docs/rules/boons.md): none of the action kind; a roll of an
extended check still in progress opens the next roll into it (``extended_next``), the roller's or the GM's."""

from __future__ import annotations

from protocol.v1 import table as t
from protocol.v1.boons import BoonsResult
from protocol.v1.messages import OpenFollowup

from ...ruleset import EXTENDED_NEXT, TableView


def open_on(roll: t.RollEvent, view: TableView) -> list[OpenFollowup]:
    """The next roll of the extended check, while it is in progress after this roll and still on the table (a
    later roll may have ended it, an undo removed it)."""
    result = roll.result
    assert isinstance(result, BoonsResult)
    if roll.extended is None or result.extended is None or result.extended.status != "in_progress":
        return []
    x = view.extended.get(roll.extended)
    if x is None or x.status != "in_progress":
        return []
    return [OpenFollowup(action=EXTENDED_NEXT, extended=roll.extended)]
