"""`challenge`: d20 + modifiers against a Challenge Level (rules/challenge.md)."""

from __future__ import annotations

from typing import Literal

from .base import Action, Check, Result

ChallengeOutcome = Literal["epic_success", "success", "success_at_cost", "failure", "epic_failure"]


class ChallengeCheck(Check, tag="challenge"):
    cl: int = 1
    modifier: int = 0
    dice: list[int] | None = None


class ChallengeResult(Result, tag="challenge"):
    outcome: ChallengeOutcome
    dice: list[int]
    total: int
    level: int
    margin: int
    strain: int
    choice: list[str] | None = None
    condition: bool = False
    complication: Literal["add", "remove"] | None = None
    natural: int = 0


FOLLOWUPS: tuple[type, ...] = ()
