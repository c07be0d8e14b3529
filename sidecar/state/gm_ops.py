"""The GM's operations: from an operation and the table's state to the events it appends, each with who
hears it. Pure: nothing here changes the table; :meth:`.table.Table.prepare_op` numbers the events, and the
hub appends them and tells them (:mod:`.hearing`).

Every operation is the GM's alone (the hub refuses it from any other role), and each event is seen as its
visibility says (``"all"``: everyone; ``"gm"``: the GM's sockets only; ``"roller_gm"``: the GM and one player).
The table's own operations:

====================================  ============================================  ==========================
operation                             events                                        who hears them
====================================  ============================================  ==========================
``condition_add``                     ``condition_added`` and what a rule set       everyone (what a rule set
                                      sets off (``RuleSet.on_condition``)           sets off: as its part says)
``condition_remove``                  ``condition_removed``                         as the condition was (a
                                                                                    hidden roll's: its viewers)
``extended_start``                    ``extended_started``                          everyone
``scene_activate``                    ``scene_activated``                           everyone
``gather_start``                      ``gather_started``                            everyone
``undo``                              ``undone`` (the seqs of the last actions,     each viewer: only the seqs
                                      with their consequences, or the last          it was told of, in its
                                      events)                                       numbering; not told at all
                                                                                    when none
a rule set's own                      what the rule set's ``prepare_op`` says       as it says (bare events:
                                                                                    everyone), each event as
                                                                                    its part hears it
====================================  ============================================  ==========================

A rule set's operation is prepared on an :class:`~sidecar.engine.table_part.OpView` of the table: its state,
who heard the events the rule set asked the table to remember (:meth:`~sidecar.engine.table_part.OpView.heard`)
and what each player was told (:meth:`~sidecar.engine.table_part.OpView.seen_by`), so that what an operation
removes, changes or heals is told as the thing was: a viewer never hears of the end of something it was never
shown (which would tell it that a hidden roll went badly). An operation that states a value or brings
something new is everyone's: the GM says it to the table. The undo never names a ``self`` roll (no action of
the GM's view: undoing it would tell the GM of it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from protocol.v1 import table as t
from protocol.v1.errors import ErrorCode
from sidecar.engine import CheckError, gather, registry
from sidecar.engine.ruleset import TableView, new_id
from sidecar.engine.table_part import Told as TableTold

from .bounds import refuse_op
from .errors import ActionError
from .projection import Projection

if TYPE_CHECKING:
    from .stored import Stored

Told = tuple[t.AnyEvent, str, "str | None"]
"""An event an operation appends, with its visibility and owner (who hears it: :func:`.visibility.may_see`)."""

History = Callable[[], Iterable[tuple[int, "Stored"]]]
"""The table's committed events, newest first (what an undo looks back through)."""


@dataclass(frozen=True)
class Seen:
    """Who saw what an operation changes or removes: its events are told to them alone."""

    conditions: Mapping[str, tuple[str, str | None]]
    """(visibility, owner) of the event that added each condition not seen by all (absent: everyone's)."""
    heard: Callable[[str], list[tuple[str, str | None]]]
    """Who heard the events remembered under a key (``TablePart.remembers``)."""
    seen_by: Callable[[str | None], TableView]
    """The table as a player (``None``: any player) was told of it."""


class OpTable:
    """The table as a rule set's GM operation reads it (:class:`~sidecar.engine.table_part.OpView`): the GM's
    projection, and who heard what."""

    __slots__ = ("_state", "_seen")

    def __init__(self, state: Projection, seen: Seen) -> None:
        self._state, self._seen = state, seen

    @property
    def scene(self) -> str | None:
        return self._state.scene

    def actor_state(self, actor: str) -> t.ActorState:
        return self._state.actor_state(actor)

    @property
    def extended(self) -> Mapping[str, t.ExtendedState]:
        return self._state.extended

    @property
    def actors(self) -> Mapping[str, t.ActorState]:
        return self._state.actors

    @property
    def scenes(self) -> Mapping[str, t.SceneState]:
        return self._state.scenes

    @property
    def gathers(self) -> Mapping[str, t.GatherState]:
        return self._state.gathers

    def brought_by(self, user: str) -> int:
        return self._state.brought_by(user)

    def part(self, name: str) -> Any:
        return self._state.part(name)

    def heard(self, key: str) -> list[tuple[str, str | None]]:
        return self._seen.heard(key)

    def seen_by(self, user: str | None) -> TableView:
        return self._seen.seen_by(user)


def prepare(op: object, state: Projection, seen: Seen, backwards: History, undone: set[int]) -> list[Told]:
    """The events of the GM operation ``op`` on the table as ``state`` has it, each with who hears it; raises
    :class:`ActionError` for an operation that cannot be made (nothing is then appended). ``seen``: who saw
    what the operation changes; ``backwards`` and ``undone``: the history an undo looks back through, and the
    seqs already undone."""
    refuse_op(op, state)
    out: list[Told] = []

    def add(ev: object, vis: str = "all", owner: str | None = None) -> None:
        out.append((ev, vis, owner))  # type: ignore[arg-type]

    match op:
        case t.ConditionAdd():
            try:
                for ev in add_condition(op.actor, state.scene, state):
                    if isinstance(ev, t.ConditionAdded):
                        ev.text = op.text
                    add(ev)
            except CheckError as exc:
                raise ActionError(exc.code, exc.message) from None
        case t.ConditionRemove():
            a = state.actors.get(op.actor)
            if a is None or all(c.id != op.condition for c in a.conditions):
                raise ActionError(ErrorCode.UNKNOWN_CONDITION, f"{op.actor} has no condition {op.condition!r}")
            # seen as the condition was: a hidden roll's condition goes unseen, and so does its removal
            add(t.ConditionRemoved(actor=op.actor, condition=op.condition), *seen.conditions.get(op.condition, _ALL))
        case t.ExtendedStart():
            if op.threshold < 1:
                raise ActionError(ErrorCode.INVALID_OP, "an extended check's threshold is 1 or more net successes")
            if op.limit is not None and op.limit < 1:
                raise ActionError(ErrorCode.INVALID_OP, "an attempt limit is 1 or more")
            for name in registry.EXTENDED:
                try:
                    registry.RULESETS[name].validate_extended(op)
                except CheckError as exc:
                    raise ActionError(exc.code, f"the extended check's difficulty: {exc.message}") from None
            add(
                t.ExtendedStarted(
                    extended=new_id("x"),
                    name=op.name,
                    threshold=op.threshold,
                    time_unit=op.time_unit,
                    limit=op.limit,
                    trial=op.trial,
                    crisis=op.crisis,
                    actor=op.actor,
                    scene=op.scene,
                )
            )
        case t.SceneActivate():
            add(t.SceneActivated(scene=op.scene))
        case t.GatherStart():
            try:
                names = [name for name, _ in gather.parts(op.check)]
            except CheckError as exc:
                raise ActionError(exc.code, exc.message) from None
            add(
                t.GatherStarted(
                    gather=new_id("g"), name=op.name, check=op.check, parts=names, scene=op.scene or state.scene
                )
            )
        case t.Undo():
            if op.count < 1:
                raise ActionError(ErrorCode.INVALID_OP, "undo at least 1 action")
            seqs = (
                last_events(backwards(), undone, op.count) if op.events else last_actions(backwards(), undone, op.count)
            )
            if not seqs:
                raise ActionError(ErrorCode.NOTHING_TO_UNDO, "there is nothing left to undo")
            add(t.Undone(seqs=seqs))
        case _:
            rules = registry.owns_op(op)
            if rules is None:
                raise ActionError(ErrorCode.UNKNOWN_OP, "unknown GM operation")
            try:
                events = rules.prepare_op(op, OpTable(state, seen))
            except CheckError as exc:
                raise ActionError(exc.code, exc.message) from None
            for ev in events:
                if isinstance(ev, TableTold):
                    add(ev.event, ev.vis, ev.owner)
                else:
                    add(ev)
    return out


_ALL: tuple[str, str | None] = ("all", None)


def add_condition(actor: str, scene: str | None, state: Projection) -> Iterable[object]:
    """A condition the GM adds, and what it sets off under the rule sets (a fourth one takes a hero down)."""
    yield t.ConditionAdded(actor=actor, condition=new_id("c"))
    yield from registry.condition_consequences(actor, scene, state)


def last_events(backwards: Iterable[tuple[int, Stored]], undone: set[int], count: int) -> list[int]:
    """The seqs of the last ``count`` events not yet undone (``backwards``: newest first)."""
    live: list[int] = []
    for seq, st in backwards:
        if len(live) == count:
            break
        if (
            st.vis != "roller"  # a `self` roll is no action of the GM's view: undoing it would tell of it
            and not isinstance(st.event, t.Undone)
            and seq not in undone
            and getattr(st.event, "cause", 0) not in undone
        ):
            live.append(seq)
    return sorted(live)


def last_actions(backwards: Iterable[tuple[int, Stored]], undone: set[int], count: int) -> list[int]:
    """Seqs of the last ``count`` actions not yet undone, each with its consequences (``backwards``: newest
    first)."""
    actions: dict[int, list[int]] = {}
    floor = 0
    for seq, st in backwards:
        # an action's events all come at or after its first (its cause): once ``count`` actions
        # begin after this seq, none of them has an event further back
        if seq < floor:
            break
        ev = st.event
        if isinstance(ev, t.Undone) or seq in undone or st.vis == "roller":
            continue  # (a `self` roll is no action of the GM's view: undoing it would tell of it)
        cause = getattr(ev, "cause", 0) or seq
        if cause not in actions:
            actions[cause] = []
            if len(actions) > count:
                floor = sorted(actions)[-count]
        actions[cause].append(seq)
    chosen = sorted(actions)[-count:]
    return sorted(s for c in chosen for s in actions[c])
