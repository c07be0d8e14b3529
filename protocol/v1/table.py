"""Table state on the wire: GM operations, ledger events and the snapshot.

Everything that changes a table is an event with a per-table ``seq`` in the ledger. Events are a
tagged union on ``kind``: the table's own here (rolls, follow-ups, conditions, scenes, extended and gathered
checks, undo), then each rule set's, from its Structs' module (``protocol/v1/systems.py`` collects them), and
so are the GM's operations on ``op``. An actor's and a scene's state are flat: the table's fields, then each
rule set's ``ActorPart`` and ``ScenePart``. The sidecar filters events per connection: what a rule set hides
and blind or GM-only rolls never reach a player. On the
wire every seq (a message's, an event's, its ``cause``, an ``undone``'s ``seqs``, ``hello.since``)
is in the receiving viewer's own numbering, which counts only the events it is told of
(see ``sidecar/state/hearing.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union

import msgspec

from .base import Event, Op
from .limits import Count, Name, Note
from .systems import (
    ACTOR_PARTS,
    OP_TYPES,
    SCENE_PARTS,
    WIRE_ORDER,
    AnyAction,
    AnyCheck,
    AnyResult,
    RuleSetPackageError,
    tags_unique,
)
from .systems import EVENT_TYPES as RULE_SET_EVENTS


class ConditionAdd(Op, tag="condition_add"):
    actor: Name
    text: Note = "condition"


class ConditionRemove(Op, tag="condition_remove"):
    actor: Name
    condition: Name


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


CORE_OPS: tuple[type, ...] = (ConditionAdd, ConditionRemove, ExtendedStart, GatherStart, Undo, SceneActivate)
"""The table's own GM operations (a rule set's are in its Structs' module)."""
OPS: tuple[type, ...] = (*CORE_OPS, *OP_TYPES)
tags_unique(OPS, "GM operation")
if TYPE_CHECKING:
    AnyOp = Op
else:
    AnyOp = Union[OPS]


# --- events -------------------------------------------------------------------------


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


class ConditionAdded(Event, tag="condition_added"):
    actor: str
    condition: str
    text: str = "condition"
    cause: int = 0


class ConditionRemoved(Event, tag="condition_removed"):
    actor: str
    condition: str
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


CORE_EVENTS: tuple[type, ...] = (
    RollEvent,
    FollowEvent,
    ConditionAdded,
    ConditionRemoved,
    ExtendedStarted,
    ExtendedProgressed,
    GatherStarted,
    GatherPartRolled,
    GatherResolved,
    SceneActivated,
    Undone,
)
"""The table's own events (a rule set's are in its Structs' module)."""
EVENT_TYPES: tuple[type, ...] = (*CORE_EVENTS, *RULE_SET_EVENTS)
tags_unique(EVENT_TYPES, "event")
if TYPE_CHECKING:
    AnyEvent = Event
else:
    AnyEvent = Union[EVENT_TYPES]


class Sequenced(msgspec.Struct, gc=False):
    """An event as a client receives it, with its seq."""

    seq: int
    event: AnyEvent


# --- the snapshot -------------------------------------------------------------------


class Condition(msgspec.Struct, gc=False):
    id: str
    text: str


class CoreActor(msgspec.Struct, gc=False):
    """The table's own fields of an actor's state (each rule set adds its own: its ``ActorPart``)."""

    conditions: list[Condition] = []


class CoreScene(msgspec.Struct, gc=False):
    """The table's own fields of a scene's state (none: each rule set adds its own, its ``ScenePart``)."""


def _flat(name: str, core: type, parts: tuple[tuple[str, type], ...], order: tuple[str, ...]) -> type:
    """The state of an actor (or a scene) as the snapshot carries it: the table's fields and every rule set's,
    flat, in the wire's order."""
    fields: dict[str, tuple[str, object, object]] = {}
    for owner, struct in (("the table", core), *parts):
        for f in msgspec.structs.fields(struct):
            if f.name in fields:
                raise RuleSetPackageError(
                    f"the rule set {owner!r} adds the field {f.name!r}, which {fields[f.name][0]} has already"
                )
            default = f.default if f.default is not msgspec.NODEFAULT else f.default_factory()
            fields[f.name] = (owner, f.type, default)
    named = sorted(fields, key=lambda n: order.index(n) if n in order else len(order))
    return msgspec.defstruct(name, [(n, fields[n][1], fields[n][2]) for n in named], gc=False, module=__name__)


if TYPE_CHECKING:
    ActorState = Any
    SceneState = Any
else:
    ActorState = _flat("ActorState", CoreActor, ACTOR_PARTS, WIRE_ORDER["actor"])
    """An actor's state: conditions, and what each rule set adds (its ``ActorPart``)."""
    SceneState = _flat("SceneState", CoreScene, SCENE_PARTS, WIRE_ORDER["scene"])
    """A scene's state: what each rule set adds (its ``ScenePart``)."""


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


class PublicView(msgspec.Struct, gc=False):
    """The table as every player may see it (a player who rolled none of the hidden rolls, an observer): what a
    GM's client may write into the world, which every player's client loads (token statuses, actor flags)."""

    actors: dict[str, ActorState] = {}


class Snapshot(msgspec.Struct, gc=False):
    seq: int
    scene: str | None = None
    actors: dict[str, ActorState] = {}
    scenes: dict[str, SceneState] = {}
    extended: dict[str, ExtendedState] = {}
    gathers: dict[str, GatherState] = {}
    public: PublicView | msgspec.UnsetType = msgspec.UNSET
    """A GM's snapshot only: the players' view beside the GM's own (absent from every other viewer's)."""
