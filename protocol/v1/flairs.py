"""`flairs`: a d6 pool of skill rank + edges, cuts, pairs as flairs or trials (docs/rules/flairs.md).

Identifiers are the rulings' (docs/rules/flairs.md): outcomes `triumph`, `conflict`, `failure` (a simple or group check reads
`success` or `failure`); flairs `careful`, `swift`, `quiet`, `unscathed`, `impressive`, `composed`, each
banishing in that order the trials `costly`, `slow`, `loud`, `harmful`, `foolish`, `chaotic`.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from .base import Action, Check, Event, Op, Result, ScenePart
from .limits import ITEMS, Count, Faces, Name

FlairsOutcome = Literal["triumph", "conflict", "failure", "success"]
FlairsTrialName = Literal["costly", "slow", "loud", "harmful", "foolish", "chaotic"]
FlairsFlair = Literal["careful", "swift", "quiet", "unscathed", "impressive", "composed"]
FlairsTrialSource = Literal["pair", "darkness", "lurking", "bargain"]
"""Where a trial comes from: matching dice, darkness, the Judge's lurking trials, a devil's bargain."""

Rank = Annotated[
    Count,
    Meta(
        title="Skill rank",
        description="The character's rank in the skill the check uses: that many d6 in the pool, with the edges.",
    ),
]
Edges = Annotated[Count, Meta(title="Edges", description="Advantages the character brings: one d6 more each.")]
Cuts = Annotated[
    Count,
    Meta(
        title="Cuts",
        description="Disadvantages: each removes the highest remaining die. Cuts at or above the pool make the "
        "roll desperate: 2d6, the lowest kept, every pair a trial.",
    ),
]


NamedTrials = Annotated[
    Annotated[list[FlairsTrialName], Meta(max_length=ITEMS)] | None,
    Meta(
        description="The trials' names in order (unset: each drawn at random).",
        extra={"label": "VERDICT.Trial.{value}"},
    ),
]
TrialDice = Annotated[Faces | None, Meta(description="The d6s that draw them, when rolled at the table.")]
"""The trials the Judge names or sets, and the d6s that draw them when they are left to chance."""


class FlairsParticipant(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    """One character in a group check: their own pool, rolled as a simple check."""

    name: Annotated[Name, Meta(title="Participant", description="The character's name: the part they roll.")]
    rank: Rank = 0
    edges: Edges = 0
    cuts: Cuts = 0


class FlairsCheck(Check, tag="flairs"):
    """A `flairs` check. The pool is ``rank + edges``; each cut removes the highest remaining die.

    A pool of zero dice, or ``cuts >= rank + edges``, is desperate: 2d6, the lowest kept, every pair
    tainted. ``dice`` are the faces in the order rolled, before cuts (for a group check: every
    participant's faces, concatenated in the order of ``group``).

    ``lurking`` is the number of lurking trials the players are told about. ``lurking_trials`` are
    their secret names, set by the Judge; when given, its length must equal ``lurking``, or
    ``lurking`` may be 0 and is then taken from it. With ``lurking > 0`` and no names, a roll by the
    sidecar draws each as a random trial (one d6 each, after the pool's dice); reading given pool
    faces leaves them unset until the Judge sets them (`flairs_set_lurking`).

    ``group`` makes this a group check: each participant makes a simple check, and ``rank``,
    ``edges``, ``cuts``, ``lurking`` and ``darkness`` must stay unset. ``trap`` marks a room trap
    (group checks only): on a failure the participant(s) with the lowest result spring it.
    """

    rank: Rank = 0
    edges: Edges = 0
    cuts: Cuts = 0
    simple: Annotated[
        bool,
        Meta(
            title="Simple check",
            description="Only success or failure: no flairs or trials from matching dice, no lurking trials.",
        ),
    ] = False
    lurking: Annotated[
        Count,
        Meta(
            title="Lurking trials",
            description="How many lurking trials the players are told of: secret trials the Judge set, which "
            "chosen flairs may banish.",
        ),
    ] = 0
    darkness: Annotated[
        bool,
        Meta(title="Darkness (sight matters)", description="The character cannot see well: one more trial stands."),
    ] = False
    dice: Annotated[
        Faces | None,
        Meta(
            description="The faces rolled at the table, in the order rolled, before cuts (a group: each one's in turn)."
        ),
    ] = None
    lurking_trials: Annotated[
        Annotated[list[FlairsTrialName], Meta(max_length=ITEMS)] | None,
        Meta(
            title="Lurking trials' names",
            description="The lurking trials' secret names, set by the Judge (as many as lurking; unset: drawn at "
            "random).",
        ),
    ] = None
    group: Annotated[
        Annotated[list[FlairsParticipant], Meta(max_length=ITEMS)] | None,
        Meta(
            title="Group",
            description="A group check: each participant rolls their own pool as a simple check; rank, edges, "
            "cuts, lurking and darkness stay unset.",
        ),
    ] = None
    trap: Annotated[
        bool,
        Meta(
            title="Room trap",
            description="A group check against a room trap: on a failure, the lowest result springs it.",
        ),
    ] = False


class FlairsMatch(msgspec.Struct, gc=False):
    """A group of ``count`` (2 or more) equal dice, counted over every die rolled, removed ones included.

    It gives ``count - 1`` flairs or trials. ``tainted``: it lost a die to a cut (or the roll was
    desperate), so all of them are trials whatever the outcome.
    """

    face: int
    count: int
    tainted: bool
    gives: Literal["flairs", "trials"]
    amount: int


class FlairsTrial(msgspec.Struct, gc=False):
    """One trial that stands on the result.

    ``name`` is None while it is the Judge's choice (pair and darkness trials, until named with
    `flairs_name_trials`) or while a lurking trial is unset or hidden from the viewer.
    ``tainted``: a pair trial from a tainted group.
    """

    source: FlairsTrialSource
    name: FlairsTrialName | None = None
    tainted: bool = False


class FlairsParticipantResult(msgspec.Struct, gc=False):
    """One participant's simple check within a group check."""

    name: str
    outcome: Literal["success", "failure"]
    dice: list[int]
    kept: list[int]
    removed: list[int]
    highest: int
    """The die read: the highest kept (the lowest of two on a desperate roll)."""
    desperate: bool


class FlairsResult(Result, tag="flairs"):
    outcome: FlairsOutcome
    dice: list[int]
    """Every die rolled for the check in order: the pool's faces, then the devil's bargain die if any.
    Lurking trials' draws are not here (see ``lurking_dice``)."""
    kept: list[int]
    """The dice read, in the order rolled: the pool after cuts (the lowest of two on a desperate
    roll), plus the devil's bargain die. For a group check, every participant's, concatenated."""
    removed: list[int]
    """The dice not kept: those removed by cuts, highest first (the higher of two on a desperate roll)."""
    flairs: int
    """Flairs earned from matching dice (the player may choose up to this many)."""
    trials: int
    """Trials that stand on the result: from matching dice, darkness, lurking trials not banished, and
    the devil's bargain. Always ``len(standing)``."""
    tainted: int
    """How many of the trials come from tainted groups of matching dice."""
    desperate: bool
    """2d6, the lowest kept (no dice in the pool, or cuts >= pool). False for a group check."""
    highest: int | None = None
    """The die read: the highest kept die. None for a group check (see ``group``)."""
    simple: bool = False
    """A simple (or group) check: only `success` or `failure`, no flairs or trials from dice."""
    pool: int = 0
    """rank + edges."""
    matches: list[FlairsMatch] = []
    """Groups of matching dice, highest face first (none for a simple check)."""
    standing: list[FlairsTrial] = []
    """The trials that stand, in order: pairs, darkness, lurking (not banished), bargain."""
    darkness: bool = False
    lurking: int = 0
    """How many lurking trials the Judge set (the count players see)."""
    lurking_trials: list[FlairsTrialName] | None = None
    """The lurking trials' names, in the order set. None while unset, or hidden from a player
    (see ``revealed``)."""
    lurking_dice: list[int] | None = None
    """The d6s that drew the lurking trials, when the sidecar drew them. Hidden with the names."""
    revealed: bool = True
    """The lurking trials' names are public: after the flair choice or the Judge's reveal
    (True when there are none)."""
    chosen: bool = False
    """The player's flair choice has been made (possibly of no flairs)."""
    chosen_flairs: list[FlairsFlair] = []
    banished: list[FlairsTrialName] = []
    """Lurking trials banished by chosen flairs."""
    bargain: FlairsTrialName | None = None
    """The trial named for a devil's bargain: it stands and cannot be banished."""
    bargain_die: int | None = None
    named: bool = False
    """The Judge has named the Judge's-choice trials (pairs, darkness)."""
    group: list[FlairsParticipantResult] | None = None
    """For a group check: each participant's simple check, in order."""
    trap: bool = False
    springs: list[str] = []
    """A room trap failed: the participant(s) with the lowest result (all tied lowest) spring it."""


class FlairsBargain(Action, tag="flairs_bargain"):
    """A devil's bargain after a failure (rank 1 or more, not in a group check, once per check).

    ``trial`` is the trial the player and Judge settled on: it stands and cannot be banished. One d6
    is added to the kept dice (``dice``: its face when rolled at the table) and the result and pairs
    are read again. It may follow the Judge naming the trials or revealing the lurking trials: the
    same trial can then stand twice. The Judge's names stay with the pairs that still give trials.
    """

    trial: Annotated[
        FlairsTrialName,
        Meta(
            description="The trial settled on: it stands and cannot be banished.",
            extra={"label": "VERDICT.Trial.{value}"},
        ),
    ]
    dice: Annotated[Faces | None, Meta(description="The added d6's face when rolled at the table.")] = None


class FlairsChoose(Action, tag="flairs_choose"):
    """The player's flair choice, made once: each flair at most once, no more than were earned.

    Each chosen flair banishes one lurking trial that it opposes; then the remaining lurking trials
    are revealed. Choosing no flairs is allowed (and reveals them).
    """

    flairs: Annotated[
        Annotated[list[FlairsFlair], Meta(max_length=ITEMS)],
        Meta(
            description="The flairs chosen, each at most once, no more than were earned.",
            extra={"label": "VERDICT.Flair.{value}"},
        ),
    ] = []


class FlairsReveal(Action, tag="flairs_reveal"):
    """The Judge reveals the lurking trials of a result that earned no flairs."""


class FlairsSetLurking(Action, tag="flairs_set_lurking"):
    """The Judge sets lurking trials left unset (a check read from given faces).

    ``trials`` names them; otherwise each is a random trial: one d6 each (``dice`` when rolled at the
    table). They stay secret until the flair choice or the Judge's reveal.
    """

    trials: NamedTrials = None
    dice: TrialDice = None


class FlairsNameTrials(Action, tag="flairs_name_trials"):
    """The Judge names the Judge's-choice trials (pair trials, then darkness's), once.

    ``trials`` names them in the order of ``standing``; otherwise each is a random trial: one d6 each
    over the six trials in order (``dice`` when rolled at the table). After a devil's bargain made a new
    pair, only the trials still unnamed are named.
    """

    trials: NamedTrials = None
    dice: TrialDice = None


# --- the table's state: the Judge's lurking trials ------------------------------------------------


class LurkingSet(Op, tag="lurking_set"):
    """Secret lurking trials waiting for the next `flairs` check of ``actor`` (or anyone, in ``scene``)."""

    trials: Annotated[list[Name], Meta(max_length=ITEMS)]
    actor: Name | None = None
    scene: Name | None = None


class LurkingTrialsSet(Event, tag="lurking_set"):
    lurking: str
    trials: list[str]
    """Hidden from players: they see only ``count``."""
    count: int
    actor: str | None = None
    scene: str | None = None
    cause: int = 0


class LurkingTrialsUsed(Event, tag="lurking_used"):
    lurking: str
    check_id: str
    cause: int = 0


class Lurking(msgspec.Struct, gc=False):
    id: str
    count: int
    trials: list[str] | None
    """``None`` for players: they see only the count."""
    actor: str | None = None
    scene: str | None = None


class FlairsScene(ScenePart):
    lurking: list[Lurking] = []
