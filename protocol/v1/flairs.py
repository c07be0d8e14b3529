"""`flairs`: a d6 pool of skill rank + edges, cuts, pairs as flairs or trials (rules/flairs.md)."""

from __future__ import annotations

from typing import Literal

from .base import Check, Result

FlairsOutcome = Literal["triumph", "conflict", "failure", "success"]


class FlairsCheck(Check, tag="flairs"):
    rank: int = 0
    edges: int = 0
    cuts: int = 0
    simple: bool = False
    lurking: int = 0
    darkness: bool = False
    dice: list[int] | None = None


class FlairsResult(Result, tag="flairs"):
    outcome: FlairsOutcome
    dice: list[int]
    kept: list[int]
    removed: list[int]
    flairs: int
    trials: int
    tainted: int
    desperate: bool


FOLLOWUPS: tuple[type, ...] = ()
