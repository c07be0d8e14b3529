"""What a `facets` roll does to the table (docs/rules/facets.md).

- Harm, on both sides of a conflict: each ``wound`` or ``scratch`` the result gives the character (the
  roller) or the opponent (the roll's target) is taken; a ``condition`` is added (a `facets` condition never
  takes anyone down). A side with no name takes nothing.
- A triumph or a catastrophe creates a facet: of the scene when the roll names one, else of the roller;
  named by the suggestion, which the GM may rename.
"""

from __future__ import annotations

from collections.abc import Iterable

from protocol.v1 import table as t
from protocol.v1.facets import FacetsResult

from ...ruleset import Consequence, TableView, new_id


def of_roll(roll: t.RollEvent, view: TableView) -> Iterable[Consequence]:
    """The events a `facets` result produces."""
    result = roll.result
    assert isinstance(result, FacetsResult)
    actor, scene = roll.actor, roll.scene
    for who, harms in ((actor, result.harm.character), (roll.target, result.harm.opponent)):
        if who is None:
            continue
        for harm in harms:
            if harm == "condition":
                yield t.ConditionAdded(actor=who, condition=new_id("c"))
            else:
                yield t.HarmTaken(actor=who, harm=harm)
    nature = result.facet
    if nature is not None and (scene is not None or actor is not None):
        yield t.FacetCreated(
            facet=result.suggestion or nature, nature=nature,
            actor=None if scene is not None else actor, scene=scene, id=new_id("f"),
        )
