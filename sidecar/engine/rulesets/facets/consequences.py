"""What a `facets` roll does to the table (docs/rules/facets.md).

- Harm, on both sides of a conflict: each ``wound`` or ``scratch`` the result gives the character (the
  roller) or the opponent (the roll's target) is taken; a ``condition`` is added (a `facets` condition never
  takes anyone down). A side with no name takes nothing.
- A triumph or a catastrophe creates a facet: of the scene when the roll names one, else of the roller;
  named by the suggestion, which the GM may rename.
- The table's bounds (``protocol/v1/limits.py``): a roll is refused whole, before anything is recorded, when
  what its rules may add would be one too many: a facet where the scene (or the roller) or the table holds
  the most facets it may; in a conflict, a roller or target the table does not track when it tracks the most
  actors it may, or a condition on one who carries the most. Any roll the sidecar rolls may triumph or end
  in catastrophe, so it is refused whatever its dice, and the refusal tells nothing of them; a roll of given
  faces is refused for what those faces add. A `self` roll adds nothing and is not refused.
"""

from __future__ import annotations

from collections.abc import Iterable

from protocol.v1 import facets as facets_t
from protocol.v1 import table as t
from protocol.v1.facets import FacetsCheck, FacetsResult

from ... import bounds
from ...ruleset import Consequence, TableView, new_id
from .rules import CONFLICT_KINDS
from .table import room_for_facet


def room(roll: t.RollEvent, view: TableView) -> None:
    """Refuse a roll when what it adds has no room on the table: what its rules may add when the sidecar rolls
    (whatever the dice), what its faces do add when they were given (the requester knows them already)."""
    check, result = roll.check, roll.result
    assert isinstance(check, FacetsCheck) and isinstance(result, FacetsResult)
    if roll.mode == "self":
        return
    given, user = check.dice is not None, roll.user if roll.by != "gm" else None
    if check.kind in CONFLICT_KINDS:
        for who, harms in ((roll.actor, result.harm.character), (roll.target, result.harm.opponent)):
            if who is None or (given and not harms):
                continue
            if given and "condition" not in harms:
                bounds.room_for_actor(view, who, user)
            else:
                bounds.room_for_condition(view, who, user)
    if not given or result.facet is not None:
        room_for_facet(view, roll.actor, roll.scene, user)


def of_roll(roll: t.RollEvent, view: TableView) -> Iterable[Consequence]:
    """The events a `facets` result produces; refuses a roll whose consequences would have no room."""
    room(roll, view)
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
                yield facets_t.HarmTaken(actor=who, harm=harm)
    nature = result.facet
    if nature is not None and (scene is not None or actor is not None):
        yield facets_t.FacetCreated(
            facet=result.suggestion or nature,
            nature=nature,
            actor=None if scene is not None else actor,
            scene=scene,
            id=new_id("f"),
        )
