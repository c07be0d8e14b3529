"""Table state on the wire: GM operations, ledger events and the snapshot.

Everything that changes a table is an event with a per-table ``seq`` in the ledger. Events are a
tagged union on ``kind``. The sidecar filters them per connection: hidden
complications, lurking trial names and blind or GM-only rolls never reach a player. On the
wire every seq (a message's, an event's, its ``cause``, an ``undone``'s ``seqs``, ``hello.since``)
is in the receiving viewer's own numbering, which counts only the events it is told of
(see ``sidecar/state/hearing.py``).
"""

from __future__ import annotations

from typing import Annotated, Literal, Union, get_args

import msgspec
from msgspec import Meta

from .limits import ITEMS, STRAIN, WYRD, Count, Level, Name, Note
from .systems import AnyAction, AnyCheck, AnyResult

ComplicationOrigin = Literal["epic_failure", "taken_down", "gm"]


class Op(msgspec.Struct, gc=False, tag_field="op", forbid_unknown_fields=True):
    """A GM operation (the ``op`` of a ``gm`` message)."""


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


class ConditionAdd(Op, tag="condition_add"):
    actor: Name
    text: Note = "condition"


class ConditionRemove(Op, tag="condition_remove"):
    actor: Name
    condition: Name


class FacetAdd(Op, tag="facet_add"):
    """The GM writes a facet of their own (docs/rules/facets.md: the GM has the final say and may write their own), on an
    actor, or a scene (the active scene when neither is named)."""

    facet: Note
    nature: Literal["beneficial", "detrimental"]
    actor: Name | None = None
    scene: Name | None = None


class FacetRename(Op, tag="facet_rename"):
    """Name a facet (say, the suggestion a triumph stored) or rename it, by its id."""

    facet: Name
    text: Note


class FacetRemove(Op, tag="facet_remove"):
    facet: Name


class HarmHeal(Op, tag="harm_heal"):
    """Heal (remove) ``count`` wounds or scratches of an actor."""

    actor: Name
    harm: Literal["wound", "scratch"]
    count: Count = 1


class WyrdGrant(Op, tag="wyrd_grant"):
    actor: Name
    amount: Annotated[int, Meta(ge=-WYRD, le=WYRD)]


class LurkingSet(Op, tag="lurking_set"):
    """Secret lurking trials waiting for the next `flairs` check of ``actor`` (or anyone, in ``scene``)."""

    trials: Annotated[list[Name], Meta(max_length=ITEMS)]
    actor: Name | None = None
    scene: Name | None = None


class ExtendedStart(Op, tag="extended_start"):
    """An extended `boons` check: rolls that name it add their net successes."""

    name: Name
    threshold: Count
    time_unit: Name = "round"
    limit: Count | None = None
    trial: Count = 0
    crisis: Count = 0
    actor: Name | None = None
    scene: Name | None = None


class GatherStart(Op, tag="gather_start"):
    """A check whose dice come from several people (a `flairs` group check, a `boons` opposed check).

    Each part is rolled by a ``roll`` that names ``gather`` and ``part``; the last one resolves the check.
    """

    check: AnyCheck
    name: Name = ""
    scene: Name | None = None


class Undo(Op, tag="undo"):
    """Undo the last ``count`` actions (a roll or follow-up with its consequences, or a GM op), or with
    ``events`` the last ``count`` single events (one consequence, say). Nothing is deleted: an ``undone``
    event records what no longer counts."""

    count: Count = 1
    events: bool = False


class SceneActivate(Op, tag="scene_activate"):
    scene: Name


AnyOp = Union[
    ComplicationAdd,
    ComplicationEdit,
    ComplicationReveal,
    ComplicationRemove,
    ComplicationConvert,
    StrainSet,
    ConditionAdd,
    ConditionRemove,
    WyrdGrant,
    LurkingSet,
    ExtendedStart,
    GatherStart,
    Undo,
    SceneActivate,
    FacetAdd,
    FacetRename,
    FacetRemove,
    HarmHeal,
]
OPS: tuple[type, ...] = get_args(AnyOp)


# --- events -------------------------------------------------------------------------


class Event(msgspec.Struct, gc=False, tag_field="kind", omit_defaults=False):
    """Base of every ledger event. ``cause`` is the seq of the action it belongs to."""


class RollEvent(Event, tag="roll"):
    check_id: str
    check: AnyCheck
    result: AnyResult
    by: str
    user: str | None = None
    actor: str | None = None
    target: str | None = None
    scene: str | None = None
    mode: str = "public"
    label: str | None = None
    extended: str | None = None
    gather: str | None = None
    part: str | None = None


class FollowEvent(Event, tag="follow"):
    check_id: str
    action: AnyAction
    result: AnyResult
    by: str
    user: str | None = None


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


class ConditionAdded(Event, tag="condition_added"):
    actor: str
    condition: str
    text: str = "condition"
    cause: int = 0


class ConditionRemoved(Event, tag="condition_removed"):
    actor: str
    condition: str
    cause: int = 0


class TakenDown(Event, tag="taken_down"):
    actor: str
    cause: int = 0


class HarmTaken(Event, tag="harm"):
    """A wound or a scratch (`facets`)."""

    actor: str
    harm: Literal["wound", "scratch"]
    cause: int = 0


class FacetCreated(Event, tag="facet_created"):
    facet: str
    nature: Literal["beneficial", "detrimental"]
    actor: str | None = None
    scene: str | None = None
    cause: int = 0
    id: str = ""
    """The facet's id, which `facet_rename` and `facet_remove` name (``f<seq>`` for a facet recorded without one)."""


class FacetRenamed(Event, tag="facet_renamed"):
    facet: str
    """The facet's id."""
    text: str
    cause: int = 0


class FacetRemoved(Event, tag="facet_removed"):
    facet: str
    cause: int = 0


class HarmHealed(Event, tag="harm_healed"):
    """Wounds or scratches healed (removed) by the GM."""

    actor: str
    harm: Literal["wound", "scratch"]
    count: int = 1
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


class WyrdChanged(Event, tag="wyrd"):
    actor: str
    delta: int
    cause: int = 0


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


class ExtendedStarted(Event, tag="extended_started"):
    extended: str
    name: str
    threshold: int
    time_unit: str
    limit: int | None
    trial: int = 0
    crisis: int = 0
    actor: str | None = None
    scene: str | None = None
    cause: int = 0


class ExtendedProgressed(Event, tag="extended_progress"):
    extended: str
    added: int
    progress: int
    attempts: int
    status: str
    check_id: str = ""
    cause: int = 0


class GatherStarted(Event, tag="gather_started"):
    gather: str
    name: str
    check: AnyCheck
    parts: list[str]
    scene: str | None = None
    cause: int = 0


class GatherPartRolled(Event, tag="gather_part"):
    gather: str
    part: str
    check_id: str
    faces: list[int]
    cause: int = 0


class GatherResolved(Event, tag="gather_resolved"):
    gather: str
    result: AnyResult
    cause: int = 0


class SceneActivated(Event, tag="scene_activated"):
    scene: str
    cause: int = 0


class Undone(Event, tag="undone"):
    """Earlier actions reversed: their events no longer count. Nothing is deleted."""

    seqs: list[int]
    cause: int = 0


AnyEvent = Union[
    RollEvent,
    FollowEvent,
    StrainChanged,
    GameChangerGained,
    ConditionAdded,
    ConditionRemoved,
    TakenDown,
    HarmTaken,
    FacetCreated,
    ComplicationAdded,
    ComplicationEdited,
    ComplicationRevealed,
    ComplicationRemoved,
    ComplicationConverted,
    WyrdChanged,
    LurkingTrialsSet,
    LurkingTrialsUsed,
    ExtendedStarted,
    ExtendedProgressed,
    GatherStarted,
    GatherPartRolled,
    GatherResolved,
    SceneActivated,
    Undone,
    FacetRenamed,
    FacetRemoved,
    HarmHealed,
]
EVENT_TYPES: tuple[type, ...] = get_args(AnyEvent)


class Sequenced(msgspec.Struct, gc=False):
    """An event as a client receives it, with its seq."""

    seq: int
    event: AnyEvent


# --- the snapshot -------------------------------------------------------------------


class Condition(msgspec.Struct, gc=False):
    id: str
    text: str


class Facet(msgspec.Struct, gc=False):
    facet: str
    nature: str
    id: str = ""
    """What `facet_rename` and `facet_remove` name."""


class ActorState(msgspec.Struct, gc=False):
    strain: int = 0
    conditions: list[Condition] = []
    taken_down: bool = False
    wounds: int = 0
    scratches: int = 0
    facets: list[Facet] = []
    wyrd: int = 0
    game_changers: int = 0


class Complication(msgspec.Struct, gc=False):
    id: str
    scene: str
    text: str
    origin: ComplicationOrigin
    hidden: bool
    cl: int | None = None


class Lurking(msgspec.Struct, gc=False):
    id: str
    count: int
    trials: list[str] | None
    """``None`` for players: they see only the count."""
    actor: str | None = None
    scene: str | None = None


class SceneState(msgspec.Struct, gc=False):
    complications: list[Complication] = []
    facets: list[Facet] = []
    lurking: list[Lurking] = []


class ExtendedState(msgspec.Struct, gc=False):
    id: str
    name: str
    threshold: int
    time_unit: str
    limit: int | None
    progress: int = 0
    attempts: int = 0
    status: str = "in_progress"
    trial: int = 0
    crisis: int = 0
    actor: str | None = None
    scene: str | None = None


class GatherState(msgspec.Struct, gc=False):
    """A gathered check: who has rolled their part, and the outcome once everyone has."""

    id: str
    name: str
    check: AnyCheck
    parts: list[str]
    rolled: dict[str, list[int]] = {}
    result: AnyResult | None = None
    scene: str | None = None


class Snapshot(msgspec.Struct, gc=False):
    seq: int
    scene: str | None = None
    actors: dict[str, ActorState] = {}
    scenes: dict[str, SceneState] = {}
    extended: dict[str, ExtendedState] = {}
    gathers: dict[str, GatherState] = {}
