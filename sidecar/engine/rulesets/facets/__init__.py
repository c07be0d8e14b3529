"""`facets`: a d6 pool read by its highest die (docs/rules/facets.md)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from protocol.v1 import facets as facets_t
from protocol.v1 import table as t
from protocol.v1.facets import FacetsCheck, FacetsResult
from protocol.v1.odds import FacetsOdds

from ...ruleset import Consequence, DiceCount, RuleSet, TableView
from ...table_part import OpView
from . import consequences
from . import rules as mod
from . import table as part
from .odds import facets_odds

DESPERATE_DICE = 2
"""The dice of a desperate roll (a pool of 0 or less): faces given in this number keep the pool's default, 0."""


def _pool_from_dice(given: Mapping[str, Any], faces: int) -> int | None:
    """The pool the dice on the table make (pool = dice brought + helping - hindering); two dice keep the
    documented default, pool 0: the desperate roll of 2d6."""
    if faces == DESPERATE_DICE:
        return None
    return max(0, faces - (given.get("helping") or 0) + (given.get("hindering") or 0))


class Facets(RuleSet[FacetsCheck, FacetsResult]):
    name = "facets"
    check_type = FacetsCheck
    result_type = FacetsResult
    ops = (facets_t.FacetAdd, facets_t.FacetRename, facets_t.FacetRemove, facets_t.HarmHeal)
    table_part = part.PART
    dice_count = DiceCount(
        "pool", _pool_from_dice, "(default: 0, the desperate 2d6; with other than 2 --dice, their number)"
    )
    rules = mod.RULES
    module = mod

    roll = staticmethod(mod.roll)  # bound as is: the hot path takes no extra call

    read = staticmethod(mod.read)

    def odds(self, check: FacetsCheck, rules: Any) -> FacetsOdds:
        mod.validate(check, rules)
        return facets_odds(check, rules)

    def consequences(self, roll: t.RollEvent, view: TableView) -> Iterable[Consequence]:
        return consequences.of_roll(roll, view)

    def prepare_op(self, op: Any, view: OpView) -> list[object]:
        return part.prepare_op(op, view)

    def op_reads(self, op: Any, view: OpView) -> tuple[str | None, ...]:
        return part.op_reads(op, view)


RULESET = Facets()
