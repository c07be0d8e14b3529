"""`challenge`: d20 + modifiers against a Challenge Level (docs/rules/challenge.md)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from .base import Action, ActorPart, Check, Event, Op, Result, ScenePart
from .limits import STRAIN, Faces, Level, Name, Note

ChallengeOutcome = Literal["epic_success", "success", "success_at_cost", "failure", "epic_failure"]
ChallengeOption = Literal["game_changer", "strain"]
ComplicationOrigin = Literal["epic_failure", "taken_down", "gm"]
"""The two options after beating the CL by 2 or 3: +1 game changer, or less strain."""


class ChallengeCheck(Check, tag="challenge"):
    """A `challenge` check: one d20 + ``modifier`` against the Challenge Level ``cl`` (1 or more).

    ``complication`` names a complication the hero is addressing: the check is then that complication
    turned into a challenge. The result echoes it as ``addresses``; the table removes it on a success.
    ``dice`` is the d20's face when the die was rolled at the table.
    """

    cl: Annotated[
        Level,
        Meta(
            title="Challenge Level",
            description="The level to reach (1 or more): the total climbs the ladder one level per 5.",
        ),
    ] = 1
    modifier: Annotated[
        Level, Meta(title="Modifier", description="Added to the d20: attribute, skill and circumstances.")
    ] = 0
    complication: Annotated[
        Name | None,
        Meta(
            title="Addresses complication",
            description="The id of an open complication the hero addresses: a success removes it.",
        ),
    ] = None
    dice: Annotated[Faces | None, Meta(description="The d20's face, rolled at the table.")] = None


class ChallengeResult(Result, tag="challenge"):
    outcome: ChallengeOutcome
    dice: list[int]
    """The d20, as one face."""
    total: int
    """d20 + modifier."""
    level: int
    """The ladder level the total reaches (0 for totals of 0 or less)."""
    cl: int
    margin: int
    """level − CL. A natural 1 is an epic failure whatever the margin."""
    success: bool
    """True for ``success_at_cost``, ``success`` and ``epic_success``."""
    strain: int
    """The change in the hero's strain this result causes (negative lowers it; the table never goes below 0).
    After a +2/+3 result it is 0 until the ``strain`` option is chosen."""
    choice: list[ChallengeOption] | None = None
    """The options offered after beating the CL by 2 or 3 (``["game_changer", "strain"]``), else null."""
    strain_option: int | None = None
    """With a choice: the strain change the ``strain`` option gives (−1 after +2, −2 after +3)."""
    chosen: ChallengeOption | None = None
    """The option taken by the ``challenge_choice`` follow-up; null until it is made."""
    game_changers: int = 0
    """Game changers gained: 1 once ``game_changer`` is chosen."""
    condition: bool = False
    """True when the hero receives a new condition (an epic failure). A fourth one takes the hero down:
    the table keeps the running count."""
    complication: Literal["add", "remove", "removed"] | None = None
    """The GM adds a complication (epic failure) or removes an open one (epic success): ``remove`` until the
    GM's ``challenge_remove_complication`` follow-up chose it, then ``removed``."""
    addresses: str | None = None
    """The complication this check addresses (the check's ``complication``); removed on a success."""
    natural: int = 0
    """The face of the d20."""


class ChallengeChoice(Action, tag="challenge_choice"):
    """After beating the CL by 2 or 3: take +1 game changer, or the strain reduction. Made once."""

    option: Annotated[
        ChallengeOption,
        Meta(
            description="+1 game changer, or the strain reduction.",
            extra={"label": "VERDICT.Follow.challenge_choice.{value}"},
        ),
    ]


class ChallengeRemoveComplication(Action, tag="challenge_remove_complication"):
    """After an epic success, the GM removes a complication: the chosen open one of the roll's scene. The GM's
    to make, once. Players see the action without the complication's id (it may have been off-screen); the
    removal itself reaches whoever may see that complication."""

    complication: Annotated[
        str,
        Meta(description="The id of an open complication of the roll's scene.", extra={"from": "complications"}),
    ]


# --- the table's state: strain, game changers, taken down, complications -------------------------


class ComplicationAdd(Op, tag="complication_add"):
    scene: Name
    text: Note
    hidden: bool = True


class ComplicationEdit(Op, tag="complication_edit"):
    complication: Name
    text: Note


class ComplicationReveal(Op, tag="complication_reveal"):
    complication: Name


class ComplicationRemove(Op, tag="complication_remove"):
    complication: Name


class ComplicationConvert(Op, tag="complication_convert"):
    """Address a complication as a challenge with a CL set by the GM; a success on it removes it."""

    complication: Name
    cl: Level


class StrainSet(Op, tag="strain_set"):
    actor: Name
    strain: Annotated[int, Meta(ge=-STRAIN, le=STRAIN)]


class StrainChanged(Event, tag="strain"):
    actor: str
    delta: int | None = None
    """A change; or ``set`` for the GM setting strain by hand."""
    set: int | None = None
    cause: int = 0


class GameChangerGained(Event, tag="game_changer"):
    actor: str
    count: int = 1
    cause: int = 0


class TakenDown(Event, tag="taken_down"):
    actor: str
    cause: int = 0


class ComplicationAdded(Event, tag="complication_added"):
    complication: str
    scene: str
    text: str
    origin: ComplicationOrigin
    hidden: bool
    cause: int = 0


class ComplicationEdited(Event, tag="complication_edited"):
    complication: str
    text: str
    cause: int = 0


class ComplicationRevealed(Event, tag="complication_revealed"):
    complication: str
    scene: str = ""
    text: str = ""
    origin: ComplicationOrigin = "gm"
    cause: int = 0


class ComplicationRemoved(Event, tag="complication_removed"):
    complication: str
    cause: int = 0


class ComplicationConverted(Event, tag="complication_converted"):
    complication: str
    cl: int
    cause: int = 0


class Complication(msgspec.Struct, gc=False):
    id: str
    scene: str
    text: str
    origin: ComplicationOrigin
    hidden: bool
    cl: int | None = None


class ChallengeActor(ActorPart):
    strain: int = 0
    taken_down: bool = False
    game_changers: int = 0


class ChallengeScene(ScenePart):
    complications: list[Complication] = []
