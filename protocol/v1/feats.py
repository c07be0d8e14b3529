"""`feats`: 3d8 in a fixed order read against the Feat table (docs/rules/feats.md)."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from .base import ActorPart, Check, Event, Op, Result
from .limits import ITEMS, WYRD, Count, Faces, Level, Name

FeatsDie = Literal["white", "red", "blue"]
"""The three d8 in their fixed order: first white, second red, third blue."""


class FeatsCheck(Check, tag="feats"):
    """A `feats` check. The Feat level is given in exactly one way:

    - ``ability`` and ``difficulty``: level = difficulty − ability;
    - ``ability`` and ``opposing`` (the opponent's ability or skill): level = opposing − ability;
    - ``level`` alone.

    ``wyrd`` buys that many unrolled 8s before the roll (5 WP each); ``wyrd_dice`` names the dice set
    to 8 (default: first die first). A level above +8 is achieved only with ``wyrd_feat`` (20 WP),
    without dice; a level below −8 succeeds without dice.

    ``dice`` holds the faces of the dice actually rolled, in order white, red, blue, leaving out the
    dice bought with Wyrd (so ``[w, b]`` when red was bought); ``[]`` when nothing is rolled.
    """

    ability: Annotated[Level | None, Meta(title="Ability", description="The character's ability or skill.")] = None
    difficulty: Annotated[
        Level | None,
        Meta(title="Difficulty", description="The task's difficulty: the Feat level is difficulty − ability."),
    ] = None
    opposing: Annotated[
        Level | None,
        Meta(
            title="Opposing ability",
            description="The opponent's ability or skill, instead of a difficulty: the level is opposing − ability.",
        ),
    ] = None
    level: Annotated[
        Level | None,
        Meta(
            title="Feat level (instead)",
            description="The Feat level itself; leave it unset to use difficulty − ability.",
        ),
    ] = None
    wyrd: Annotated[
        Count, Meta(title="8s bought with Wyrd", description="Dice set to 8 before the roll, 5 Wyrd Points each.")
    ] = 0
    wyrd_dice: Annotated[
        Annotated[list[FeatsDie], Meta(max_length=ITEMS)] | None,
        Meta(
            title="Dice bought (first die if none)",
            description="Which dice the Wyrd sets to 8 (default: the first dice first).",
        ),
    ] = None
    wyrd_feat: Annotated[
        bool,
        Meta(
            title="Buy the feat whole (above +8)",
            description="A Feat level above +8 is achieved only this way, for 20 Wyrd Points, without dice.",
        ),
    ] = False
    dice: Annotated[
        Faces | None,
        Meta(description="The faces rolled at the table, white, red, blue, leaving out the dice bought with Wyrd."),
    ] = None


class FeatsResult(Result, tag="feats"):
    outcome: Literal["success", "failure"]
    dice: list[int]
    """All three faces in order white, red, blue, bought dice as 8; ``[]`` when no roll was made."""
    level: int
    success: bool
    best_level: int | None
    """The highest Feat-table level whose row the roll satisfies (null if none, or no roll)."""
    worst_level: int | None
    """The lowest Feat-table level whose row the roll fails (null if none, or no roll)."""
    degree: int
    """best_level − level on a success, worst_level − level on a failure; 0 without a roll."""
    bought: list[FeatsDie]
    """The dice set to 8 with Wyrd, in order white, red, blue."""
    cost: int
    """Wyrd Points spent: 5 per bought 8, or 20 for a feat above +8."""
    automatic: bool = False
    """True when no dice were rolled: a level below −8, or a feat above +8 bought with Wyrd."""


# --- the table's state: Wyrd Points ---------------------------------------------------------------


class WyrdGrant(Op, tag="wyrd_grant"):
    actor: Name
    amount: Annotated[int, Meta(ge=-WYRD, le=WYRD)]


class WyrdChanged(Event, tag="wyrd"):
    actor: str
    delta: int
    cause: int = 0


class FeatsActor(ActorPart):
    wyrd: int = 0
