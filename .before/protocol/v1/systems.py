"""The unions over the five rule sets: every check, result and follow-up action."""

from __future__ import annotations

from typing import Any, Union

from . import boons, challenge, facets, feats, flairs
from .base import Action, Check, Result

SYSTEM_MODULES = (facets, challenge, flairs, feats, boons)
SYSTEMS: tuple[str, ...] = tuple(m.__name__.rsplit(".", 1)[1] for m in SYSTEM_MODULES)


def _subclasses(base: type, module: Any) -> list[type]:
    return [
        v
        for v in vars(module).values()
        if isinstance(v, type) and issubclass(v, base) and v is not base and v.__module__ == module.__name__
    ]


CHECK_TYPES: tuple[type, ...] = tuple(t for m in SYSTEM_MODULES for t in _subclasses(Check, m))
RESULT_TYPES: tuple[type, ...] = tuple(t for m in SYSTEM_MODULES for t in _subclasses(Result, m))
ACTION_TYPES: tuple[type, ...] = tuple(t for m in SYSTEM_MODULES for t in m.FOLLOWUPS)

AnyCheck = Union[CHECK_TYPES]  # type: ignore[valid-type]
AnyResult = Union[RESULT_TYPES]  # type: ignore[valid-type]
if len(ACTION_TYPES) > 1:
    AnyAction = Union[ACTION_TYPES]  # type: ignore[valid-type]
elif ACTION_TYPES:
    AnyAction = ACTION_TYPES[0]  # type: ignore[misc]
else:  # no follow-ups defined yet: nothing decodes as an action
    AnyAction = Action  # type: ignore[misc]
