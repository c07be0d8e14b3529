"""`facets`: a d6 pool read by its highest die (docs/rules/facets.md)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from protocol.v1 import table as t
from protocol.v1.facets import FacetsCheck, FacetsResult
from protocol.v1.odds import FacetsOdds

from ...ruleset import Consequence, RuleSet, TableView
from . import consequences
from . import rules as mod
from .odds import facets_odds


class Facets(RuleSet[FacetsCheck, FacetsResult]):
    name = "facets"
    check_type = FacetsCheck
    result_type = FacetsResult
    rules = mod.RULES
    module = mod

    roll = staticmethod(mod.roll)  # bound as is: the hot path takes no extra call

    read = staticmethod(mod.read)

    def odds(self, check: FacetsCheck, rules: Any) -> FacetsOdds:
        mod.validate(check, rules)
        return facets_odds(check, rules)

    def consequences(self, roll: t.RollEvent, view: TableView) -> Iterable[Consequence]:
        return consequences.of_roll(roll, view)


RULESET = Facets()
