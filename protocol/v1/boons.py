"""`boons`: narrative dice pools of ability, boon, bane, trial and crisis dice (docs/rules/boons.md).

One check Struct covers every kind of check the text names; the kind follows from the fields set:

- simple: the pool counts only;
- assisted: ``assists`` (the assistants' skill ranks) with ``rank`` (the primary's), turned into boon or
  ability dice by the engine under the text's caps;
- group: ``performer_rank`` with ``participant_ranks`` (the necessary participants), adding bane dice;
- opposed: ``opponent`` (the defender's pool, no trial or crisis dice for each other);
- extended: ``threshold`` (with ``time_unit``, ``limit``, and the running ``progress``/``attempts``).

Supplied faces (``dice``) follow the effective pool in canonical order - ability, boon, bane, trial,
crisis - then, in an opposed check, the defender's ability, boon and bane dice.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from .base import Check, Result
from .limits import Count, Counts, Faces, Name, Running

BoonsDieType = Literal["ability", "boon", "bane", "trial", "crisis"]
BoonsOutcome = Literal["exceptional", "improved", "success", "failure"]
BoonsWinner = Literal["actor", "defender"]
BoonsExtendedStatus = Literal["in_progress", "complete", "failed"]

Ability = Annotated[
    Count, Meta(title="Ability dice", description="Ability dice (d8): the character's characteristic and skill.")
]
Boon = Annotated[
    Count, Meta(title="Boon dice", description="Boon dice (d6): help, gear, the situation in the character's favour.")
]
Bane = Annotated[Count, Meta(title="Bane dice", description="Bane dice (d6): what hampers the character.")]
Ranks = Annotated[
    Counts,
    Meta(
        title="Assistants' ranks",
        description="Each assistant's rank in the relevant skill, at most two: a boon die each, or an ability die "
        "when they have more ranks.",
    ),
]


class BoonsPool(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    """The defender's pool in an opposed check. No trial or crisis dice: neither side adds them for the other.

    ``assists``/``rank`` work as on the check: each assistant adds a boon die, or an ability die when they
    have more ranks than the defender, under the same caps.
    """

    ability: Ability = 0
    boon: Boon = 0
    bane: Bane = 0
    rank: Annotated[
        Count | None,
        Meta(title="Defender's rank", description="The defender's rank in the relevant skill, for assists."),
    ] = None
    assists: Ranks = []


class BoonsCheck(Check, tag="boons"):
    """A `boons` check. See the module docstring for how the fields select the kind of check."""

    ability: Ability = 0
    boon: Boon = 0
    bane: Bane = 0
    trial: Annotated[
        Count, Meta(title="Trial dice (difficulty)", description="The difficulty, as trial dice (d8).")
    ] = 0
    crisis: Annotated[Count, Meta(title="Crisis dice", description="Crisis dice (d12) asked for directly.")] = 0
    upgrade: Annotated[
        Count,
        Meta(
            title="Upgrade trial to crisis",
            description="The GM upgrades the difficulty: this many of the trial dice become crisis dice (at most "
            "the trial dice).",
        ),
    ] = 0
    rank: Annotated[
        Count | None,
        Meta(
            title="Primary's rank",
            description="Assisted: the primary character's rank in the relevant skill (the performer's when unset).",
        ),
    ] = None
    assists: Annotated[
        Counts,
        Meta(
            title="Assistants' ranks",
            description="Assisted: each assistant's rank in the relevant skill, at most two (a third is refused "
            "with too_many_assists).",
        ),
    ] = []
    performer_rank: Annotated[
        Count | None,
        Meta(title="Performer's rank", description="Group: the performer's relevant rank (or characteristic)."),
    ] = None
    participant_ranks: Annotated[
        Counts | None,
        Meta(
            title="Participants' ranks",
            description="Group: the relevant ranks of the other necessary participants (0 for one who must be "
            "carried).",
        ),
    ] = None
    opponent: Annotated[
        BoonsPool | None,
        Meta(
            title="Defender's pool",
            description="Opposed: the defender's pool. The actor is the initiator; a tie goes to the defender.",
        ),
    ] = None
    threshold: Annotated[
        Count | None,
        Meta(title="Success threshold", description="Extended: the total of net successes that completes the task."),
    ] = None
    time_unit: Annotated[
        Name | None,
        Meta(
            title="Time per roll",
            description="Extended: what one roll represents (minutes, hours, scenes, one exchange of a chase, ...).",
        ),
    ] = None
    limit: Annotated[
        Count | None,
        Meta(title="Attempt limit", description="Extended: the most rolls before the task fails (unset: no limit)."),
    ] = None
    progress: Annotated[
        Running, Meta(description="Extended: net successes gathered by earlier rolls (the table state fills it in).")
    ] = 0
    attempts: Annotated[Running, Meta(description="Extended: rolls already made (the table state fills it in).")] = 0
    dice: Annotated[
        Faces | None,
        Meta(
            description="The faces rolled at the table: the effective pool in the order ability, boon, bane, "
            "trial, crisis, then the defender's ability, boon and bane."
        ),
    ] = None


class BoonsDice(msgspec.Struct, gc=False):
    """How many dice of each type a side rolled (the effective pool)."""

    ability: int = 0
    boon: int = 0
    bane: int = 0
    trial: int = 0
    crisis: int = 0


class BoonsSide(msgspec.Struct, gc=False):
    """One side's read pool. Raw symbol totals, then what remains after cancelling.

    ``net_successes`` = successes - failures; ``net_boons`` = boons - banes (negative: banes remain);
    ``remaining_boons``/``remaining_banes`` are the positive parts of it. Breakthroughs and calamities never
    cancel each other or anything else.
    """

    pool: BoonsDice
    successes: int
    failures: int
    boons: int
    banes: int
    breakthroughs: int
    calamities: int
    net_successes: int
    net_boons: int
    remaining_boons: int
    remaining_banes: int


class BoonsExtended(msgspec.Struct, gc=False):
    """Where an extended check stands after this roll."""

    threshold: int
    time_unit: str | None
    limit: int | None
    added: int
    """Net successes this roll added (0 when the roll netted 0 or less)."""
    progress: int
    attempts: int
    status: BoonsExtendedStatus


class BoonsResult(Result, tag="boons"):
    """The read check. Top-level counts are the actor's; an opposed check adds the defender's side.

    ``outcome``: from the actor's net successes (1 success, 2-3 improved, 4+ exceptional, 0 or less
    failure). In an opposed check a loss is a ``failure`` and a win is read from the actor's net successes,
    never below ``success``.
    """

    outcome: BoonsOutcome
    dice: list[int]
    symbols: list[str]
    """Per die, its face's symbols (S F B N X C, ``-`` blank), in the order of ``dice``."""
    types: list[BoonsDieType]
    """Per die, its type, in the order of ``dice``."""
    net_successes: int
    net_boons: int
    breakthroughs: int
    calamities: int
    actor: BoonsSide
    assist_dice: list[Literal["ability", "boon"]] = []
    """What each assistant added to the actor's pool, in the order of ``assists``."""
    group_banes: int = 0
    """Bane dice added by a group check (performer's rank - lowest necessary participant's, never negative)."""
    winner: BoonsWinner | None = None
    """Opposed only: who won."""
    defender: BoonsSide | None = None
    """Opposed only: the defender's side, with its remaining boons and banes."""
    defender_assist_dice: list[Literal["ability", "boon"]] = []
    extended: BoonsExtended | None = None
