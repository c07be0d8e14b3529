"""`boons`: narrative dice pools of ability, boon, bane, trial and crisis dice (rules/boons.md)."""

from __future__ import annotations

from typing import Literal

from .base import Check, Result


class BoonsCheck(Check, tag="boons"):
    ability: int = 0
    boon: int = 0
    bane: int = 0
    trial: int = 0
    crisis: int = 0
    dice: list[int] | None = None


class BoonsResult(Result, tag="boons"):
    outcome: Literal["exceptional", "improved", "success", "failure"]
    dice: list[int]
    symbols: list[str]
    net_successes: int
    net_boons: int
    breakthroughs: int
    calamities: int


FOLLOWUPS: tuple[type, ...] = ()
