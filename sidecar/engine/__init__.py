"""The rules engine: pure functions, no I/O, no asyncio.

Each rule set is a package under ``rulesets/`` implementing the contract of :mod:`.ruleset` (read it
first: it says what a rule set must provide), named by its entry point (``verdict.rulesets``) and gathered in :mod:`.registry`. Its ``rules.py`` holds the
numbers as data and the pure functions:

- ``roll(check, rng) -> faces`` rolls the dice a check needs (``rng`` is a :class:`Dice`);
- ``read(check, faces) -> result`` reads faces, rolled or supplied (physical dice, replays, tests);
- ``follow(check, result, action, rng) -> result`` applies a follow-up, where the rule set has any;
- ``describe(result) -> str`` is the short human answer the CLI prints.

:func:`resolve` is ``read(roll)``, or ``read`` of the check's own ``dice`` when it carries them.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from .dice import Dice
from .errors import CheckError, DiceError, FollowUpError
from .registry import RULESETS, ruleset_of
from .ruleset import RuleSet


def __getattr__(name: str) -> ModuleType:
    """A rule set's rules module by its tag (``from sidecar.engine import facets``), as the registry has it."""
    rs = RULESETS.get(name)
    if rs is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return rs.module


def rules_of(check: Any) -> ModuleType:
    """The rules module of a check's rule set (its numbers as data and its pure functions)."""
    return ruleset_of(check).module


def resolve(check: Any, rng: Dice | None = None) -> Any:
    """Roll (or take the check's supplied ``dice``) and read the result."""
    rs = ruleset_of(check)
    if check.dice is not None:
        return rs.read(check, check.dice)
    return rs.resolve(check, rng or Dice())


__all__ = [
    "RULESETS",
    "RuleSet",
    "Dice",
    "CheckError",
    "DiceError",
    "FollowUpError",
    "resolve",
    "ruleset_of",
    "rules_of",
]
