"""Room on the table for what a GM operation adds: the bounds of ``protocol/v1/limits.py`` (the rule sets
check their rolls' own, :mod:`sidecar.engine.bounds`).

:func:`refuse_op` refuses an operation that would add one item too many (an actor, a scene, a facet, a
complication, a condition, an extended or gathered check) or carry a running value past its bound (a Wyrd
grant past :data:`~protocol.v1.limits.WYRD`), before any event is prepared: :func:`.gm_ops.prepare` calls it
first. Pure: it reads the table's state and changes nothing.
"""

from __future__ import annotations

from protocol.v1 import challenge as challenge_t
from protocol.v1 import facets as facets_t
from protocol.v1 import feats as feats_t
from protocol.v1 import limits
from protocol.v1 import table as t
from sidecar.engine import CheckError, bounds
from sidecar.engine.registry import TAKEN_DOWN_AT

from .errors import ActionError
from .projection import Projection


def refuse_op(op: object, state: Projection) -> None:
    """Raise :class:`ActionError` (``too_many_*``, ``over_limit``) for an operation the table has no room for."""
    try:
        _room_for(op, state)
    except CheckError as exc:
        raise ActionError(exc.code, exc.message) from None


def _room_for(op: object, state: Projection) -> None:
    match op:
        case challenge_t.ComplicationAdd():
            bounds.room_for_complication(state, op.scene)
        case challenge_t.StrainSet():
            bounds.room_for_actor(state, op.actor)
        case t.ConditionAdd():
            bounds.room_for_condition(state, op.actor)
            held = state.actor_state(op.actor)
            if len(held.conditions) + 1 >= TAKEN_DOWN_AT and not held.taken_down:  # taken down: a complication too
                bounds.room_for_complication(state, state.scene or "")
        case facets_t.FacetAdd():
            scene = op.scene if op.actor is not None or op.scene is not None else state.scene
            bounds.room_for_facet(state, op.actor, scene)
        case feats_t.WyrdGrant():
            bounds.room_for_actor(state, op.actor)
            have = state.actor_state(op.actor).wyrd
            if have + op.amount > limits.WYRD:
                bounds.within(f"{op.actor}'s Wyrd Points (now {have})", have + op.amount, limits.WYRD)
        case t.ExtendedStart():
            going = sum(1 for x in state.extended.values() if x.status == "in_progress")
            bounds.room_for_open("extended checks in progress", going, limits.EXTENDED)
        case t.GatherStart():
            waiting = sum(1 for g in state.gathers.values() if g.result is None)
            bounds.room_for_open("gathered checks waiting for parts", waiting, limits.GATHERS)
        case t.SceneActivate():
            bounds.room_for_scene(state, op.scene)
        case _:
            pass
