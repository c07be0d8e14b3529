"""`fortune`'s Structs: its check, its result, its odds, and its part of the table (fortune points)."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from protocol.v1.base import ActorPart, Check, Event, Op, Result
from protocol.v1.limits import Faces, Name
from protocol.v1.odds import Chance, CheckOdds

FORTUNE = 20
"""The most fortune points an actor holds."""
DICE = 20
"""The most dice one roll rolls, its pool and the points it spends together."""

FortuneOutcome = Literal["success", "failure"]


class FortuneCheck(Check, tag="fortune"):
    """A `fortune` check: ``pool`` d6 and one more per fortune point ``spend``; a 5 or a 6 is a success."""

    pool: Annotated[
        int, Meta(ge=0, le=DICE, title="Dice pool", description="The d6 rolled: a 5 or a 6 on any is a success.")
    ] = 1
    spend: Annotated[
        int,
        Meta(
            ge=0,
            le=FORTUNE,
            title="Fortune spent",
            description="Fortune points of the actor spent on the roll: one die more each.",
        ),
    ] = 0
    dice: Annotated[Faces | None, Meta(description="The faces rolled at the table, one per die.")] = None


class FortuneResult(Result, tag="fortune"):
    outcome: FortuneOutcome
    dice: list[int]
    successes: int
    """The dice showing 5 or 6."""
    spent: int
    """The fortune points the roll spent (the dice beyond the pool)."""


class FortuneOdds(CheckOdds, tag="fortune", frozen=True):
    outcome: list[Chance]
    """success, failure."""
    spend: int
    """The fortune points the check as set spends."""


class FortuneGrant(Op, tag="fortune_grant"):
    """The GM grants an actor fortune points (a negative amount takes them away)."""

    actor: Name
    amount: Annotated[int, Meta(ge=-FORTUNE, le=FORTUNE)]


class FortuneChanged(Event, tag="fortune_changed"):
    actor: str
    delta: int
    cause: int = 0


class FortuneActor(ActorPart):
    fortune: int = 0
