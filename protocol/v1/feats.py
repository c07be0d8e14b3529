"""`feats`: 3d8 in a fixed order read against the Feat table (rules/feats.md)."""

from __future__ import annotations

from typing import Literal

from .base import Check, Result


class FeatsCheck(Check, tag="feats"):
    ability: int | None = None
    difficulty: int | None = None
    level: int | None = None
    wyrd: int = 0
    dice: list[int] | None = None


class FeatsResult(Result, tag="feats"):
    outcome: Literal["success", "failure"]
    dice: list[int]
    level: int
    success: bool
    best_level: int | None
    worst_level: int | None
    degree: int
    bought: list[str]
    cost: int


FOLLOWUPS: tuple[type, ...] = ()
