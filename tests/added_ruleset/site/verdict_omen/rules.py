"""`omen`'s numbers and pure functions."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from protocol.v1.errors import ErrorCode
from sidecar.engine.dice import Dice, check_faces
from sidecar.engine.errors import CheckError

from .protocol import OmenCheck, OmenResult


class OmenRules(msgspec.Struct, frozen=True):
    sides: int = 6


RULES = OmenRules()


def validate(check: OmenCheck, rules: OmenRules = RULES) -> None:
    if not 1 <= check.sign <= rules.sides:
        raise CheckError(ErrorCode.INVALID_CHECK, f"omen: a sign of {check.sign} is not a face of a d{rules.sides}")


def sizes(check: OmenCheck, rules: OmenRules = RULES) -> list[int]:
    return [rules.sides]


def roll(check: OmenCheck, rng: Dice) -> list[int]:
    validate(check)
    return rng.roll(RULES.sides)


def read(check: OmenCheck, faces: Sequence[int]) -> OmenResult:
    validate(check)
    (face,) = check_faces(faces, sizes(check), "an omen")
    return OmenResult(
        outcome="good" if face >= check.sign else "ill", dice=[face], sign=check.sign, margin=face - check.sign
    )


def describe(result: OmenResult) -> str:
    return f"omen  {result.dice[0]} against {result.sign}  →  {result.outcome}"
