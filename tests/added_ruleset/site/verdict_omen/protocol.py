"""`omen`'s Structs: its check, its result and its odds (no follow-ups)."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from protocol.v1.base import Check, Result
from protocol.v1.odds import Chance, CheckOdds

OmenOutcome = Literal["good", "ill"]


class OmenCheck(Check, tag="omen"):
    """An `omen` check: one d6 against ``sign``."""

    sign: Annotated[int, Meta(title="Sign", description="The face to reach or beat on one d6, 1 to 6.")] = 4
    dice: Annotated[list[int] | None, Meta(description="The d6's face, rolled at the table.")] = None


class OmenResult(Result, tag="omen"):
    outcome: OmenOutcome
    dice: list[int]
    sign: int
    margin: int
    """The face less the sign."""


class OmenOdds(CheckOdds, tag="omen", frozen=True):
    outcome: list[Chance]
    """good, ill."""
