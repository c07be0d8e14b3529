"""The rules engine: pure functions, no I/O, no asyncio.

Each rule set is one module with the same shape:

- ``roll(check, rng) -> faces`` rolls the dice a check needs (``rng`` is a :class:`Dice`);
- ``read(check, faces) -> result`` reads faces, rolled or supplied (physical dice, replays, tests);
- ``follow(check, result, action, rng) -> result`` applies a follow-up, where the rule set has any;
- ``describe(result) -> str`` is the short human answer the CLI prints.

:func:`resolve` is ``read(roll)``, or ``read`` of the check's own ``dice`` when it carries them.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from . import boons, challenge, facets, feats, flairs
from .dice import Dice
from .errors import CheckError, DiceError, FollowUpError

SYSTEMS: dict[str, ModuleType] = {
    "facets": facets,
    "challenge": challenge,
    "flairs": flairs,
    "feats": feats,
    "boons": boons,
}


_FUSED: dict[ModuleType, Any] = {boons: boons.resolve}


def system_of(check: Any) -> ModuleType:
    return SYSTEMS[type(check).__struct_config__.tag]  # type: ignore[attr-defined]


def resolve(check: Any, rng: Dice | None = None) -> Any:
    """Roll (or take the check's supplied ``dice``) and read the result."""
    mod = system_of(check)
    if check.dice is not None:
        return mod.read(check, check.dice)
    fused = _FUSED.get(mod)
    if fused is not None:  # a rule set that builds its pool once for both steps
        return fused(check, rng or Dice())
    return mod.read(check, mod.roll(check, rng or Dice()))


__all__ = ["SYSTEMS", "Dice", "CheckError", "DiceError", "FollowUpError", "resolve", "system_of"]
