"""`fortune`'s numbers and pure functions."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from protocol.v1.errors import ErrorCode
from sidecar.engine.dice import Dice, check_faces
from sidecar.engine.errors import CheckError

from .protocol import DICE, FortuneCheck, FortuneResult


class FortuneRules(msgspec.Struct, frozen=True):
    sides: int = 6
    hit: int = 5
    """The lowest face that is a success."""


RULES = FortuneRules()


def validate(check: FortuneCheck, rules: FortuneRules = RULES) -> None:
    if check.pool + check.spend < 1:
        raise CheckError(ErrorCode.INVALID_CHECK, "fortune: a roll rolls at least one die (a pool, or a point spent)")
    if check.pool + check.spend > DICE:
        raise CheckError(ErrorCode.TOO_MANY_DICE, f"fortune: at most {DICE} dice, the pool and the points spent")


def sizes(check: FortuneCheck, rules: FortuneRules = RULES) -> list[int]:
    return [rules.sides] * (check.pool + check.spend)


def roll(check: FortuneCheck, rng: Dice) -> list[int]:
    validate(check)
    return rng.roll(RULES.sides, check.pool + check.spend)


def read(check: FortuneCheck, faces: Sequence[int]) -> FortuneResult:
    validate(check)
    got = check_faces(faces, sizes(check), "a fortune roll")
    successes = sum(1 for f in got if f >= RULES.hit)
    return FortuneResult(
        outcome="success" if successes else "failure", dice=got, successes=successes, spent=check.spend
    )


def describe(result: FortuneResult) -> str:
    spent = f", {result.spent} fortune spent" if result.spent else ""
    return f"fortune  {' '.join(map(str, result.dice))}  →  {result.outcome} ({result.successes}{spent})"
