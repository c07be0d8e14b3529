"""Room on the table for what one of the table's own GM operations adds: the bounds of
``protocol/v1/limits.py`` (the rule sets check their rolls' and their operations' own,
:mod:`sidecar.engine.bounds`).

:func:`refuse_op` refuses an operation that would add one item too many (a scene, a condition, an extended or
gathered check), before any event is prepared: :func:`.gm_ops.prepare` calls it first. Pure: it reads the
table's state and changes nothing.
"""

from __future__ import annotations

from protocol.v1 import limits
from protocol.v1 import table as t
from sidecar.engine import CheckError, bounds

from .errors import ActionError
from .projection import Projection


def refuse_op(op: object, state: Projection) -> None:
    """Raise :class:`ActionError` (``too_many_*``) for an operation the table has no room for."""
    try:
        _room_for(op, state)
    except CheckError as exc:
        raise ActionError(exc.code, exc.message) from None


def _room_for(op: object, state: Projection) -> None:
    match op:
        case t.ConditionAdd():
            bounds.room_for_condition(state, op.actor)
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
