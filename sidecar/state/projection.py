"""Projections: the table's state folded from its events.

The same fold serves the GM (over every event) and a player (over the events that
player may see), so a player's snapshot can hold nothing the player was not told.
Undone actions are skipped: an ``undone`` event rebuilds the fold without them. A
projection given a ``source`` reads the events back from it for that rebuild instead of
keeping them: it holds the state, not the history.

The checks it holds are the last :data:`~sidecar.config.CHECKS_LATEST` rolled and, older, those still open
to follow-ups, at most :data:`~sidecar.config.CHECKS_HELD` of them: a check its rule set closes (no follow-up
open on its result, :meth:`~sidecar.engine.ruleset.RuleSet.open_on`) leaves once it is not among the last,
and beyond the window the oldest goes (a rule that never closes, like a follow-up of the GM's that waits for
good, would keep it for good). What leaves is never lost: its roll
and follow-up events are in the ledger, and the table reads them back for whoever names the check
(:meth:`.table.Table.check`), answering exactly as it did while it was held. Which checks are held is a
function of the events alone, so a snapshot and its tail hold the same ones a full fold does.

The projection folds the table's own events (rolls, follow-ups, conditions, scenes, extended and gathered
checks, undo) and hands every other event to the rule set whose it is (its table part,
:class:`~sidecar.engine.table_part.TablePart`), by the event's class: the part changes the flat actor and
scene states (its fields of them) and what it keeps of its own. A part may fold some of the table's own events
too, after the table has (its reactions). Running values stay within their bounds (``protocol/v1/limits.py``):
a part's fold holds them there, so that no number in the state, or in a snapshot of it, leaves what the rules
can mean (nor a signed 64-bit integer). Extended checks
that ended and gathered checks that resolved stay in the state while they are among the last
:data:`~protocol.v1.limits.ENDED_KEPT`: a campaign's finished ones do not grow it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from protocol.v1 import limits
from protocol.v1 import table as t
from protocol.v1.systems import ACTOR_PARTS, SCENE_PARTS
from sidecar import config
from sidecar.engine import registry
from sidecar.engine.registry import PARTS, REACTIONS


class Folded(msgspec.Struct, array_like=True, gc=False):
    """A projection's state as a table's snapshot stores it (derived data: rebuilt from the events at will): the
    table's own, and each rule set's part under its tag (:class:`PartFolded`, encoded apart)."""

    seq: int
    scene: str | None
    actors: dict[str, t.CoreActor]
    scenes: list[str]
    """The scenes the table holds state in."""
    extended: dict[str, t.ExtendedState]
    checks: dict[str, t.RollEvent]
    rolls: dict[str, int]
    latest: list[str]
    gathers: dict[str, t.GatherState]
    undone: list[int]
    brought: dict[str, str]
    parts: dict[str, msgspec.Raw]
    """Per rule set (its tag): :class:`PartFolded`, encoded."""


class _Part:
    """How one rule set's part is stored: its fields of each actor and each scene, and what it keeps of its own."""

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.actor: type | None = dict(ACTOR_PARTS).get(tag)
        self.scene: type | None = dict(SCENE_PARTS).get(tag)
        self.actor_fields = tuple(f.name for f in msgspec.structs.fields(self.actor)) if self.actor else ()
        self.scene_fields = tuple(f.name for f in msgspec.structs.fields(self.scene)) if self.scene else ()
        part = PARTS.get(tag)
        self.part = part
        own: Any = part.state if part is not None and part.state is not None else None
        self.decoder = msgspec.msgpack.Decoder(
            tuple[dict[str, self.actor or None], dict[str, self.scene or None], own]  # type: ignore[misc]
        )

    def encode(self, p: Projection) -> msgspec.Raw:
        actors = (
            {name: self.actor(**{f: getattr(a, f) for f in self.actor_fields}) for name, a in p.actors.items()}
            if self.actor is not None
            else {}
        )
        scenes = (
            {name: self.scene(**{f: getattr(s, f) for f in self.scene_fields}) for name, s in p.scenes.items()}
            if self.scene is not None
            else {}
        )
        return msgspec.Raw(_enc.encode((actors, scenes, p.parts.get(self.tag))))

    def decode(self, raw: msgspec.Raw | None, p: Projection) -> None:
        """Fill ``p``'s flat actors and scenes with this part's fields and its own state, from ``raw``."""
        if raw is None:  # a rule set installed since: its fields as on an empty table
            if self.part is not None:
                p.parts[self.tag] = self.part.blank()
            return
        actors, scenes, own = self.decoder.decode(raw)
        for name, fields in actors.items():
            a = p.actors.get(name)
            if a is not None:
                for f in self.actor_fields:
                    setattr(a, f, getattr(fields, f))
        for name, fields in scenes.items():
            s = p.scenes.get(name)
            if s is not None:
                for f in self.scene_fields:
                    setattr(s, f, getattr(fields, f))
        if self.part is not None:
            p.parts[self.tag] = own if own is not None else self.part.blank()


_enc = msgspec.msgpack.Encoder()
_STORED: tuple[_Part, ...] = tuple(
    _Part(tag) for tag in dict.fromkeys([*PARTS, *(tag for tag, _ in ACTOR_PARTS), *(tag for tag, _ in SCENE_PARTS)])
)


def _copy(state: Any) -> Any:
    """A copy of a flat state whose lists are its own (the snapshot's, to fill in)."""
    return msgspec.structs.replace(
        state, **{f: list(v) for f in state.__struct_fields__ if isinstance(v := getattr(state, f), list)}
    )


class Projection:
    """Per actor, per scene and per extended check state, plus the checks open to follow-ups, and each rule
    set's part.

    It is the :class:`~sidecar.engine.ruleset.TableView` the rule sets read their consequences from, and the
    :class:`~sidecar.engine.table_part.PartTable` their parts fold into."""

    def __init__(
        self, source: Callable[[int], Iterable[tuple[int, object]]] | None = None, holds_checks: bool = True
    ) -> None:
        self.holds_checks = holds_checks
        """Whether it holds the checks open to follow-ups: the GM's does (follow-ups and ``verify`` read it);
        a player's view need not, since nothing reads its checks."""
        self.checks_held = config.CHECKS_HELD
        self.checks_latest = config.CHECKS_LATEST
        self._source = source
        """The events up to a seq, for a rebuild after an undo; without one, the events are kept here."""
        self._log: list[tuple[int, object]] | None = None if source is not None else []
        self._reset()

    def _reset(self) -> None:
        """The empty table: no event applied."""
        self.seq = 0
        self.scene: str | None = None
        self.actors: dict[str, t.ActorState] = {}
        self.scenes: dict[str, t.SceneState] = {}
        self.extended: dict[str, t.ExtendedState] = {}
        self.parts: dict[str, Any] = {name: part.blank() for name, part in PARTS.items()}
        """What each rule set keeps of its own (its part's ``state``), by tag."""
        self.checks: dict[str, t.RollEvent] = {}
        """The checks open to follow-ups, oldest first, as they stand (their results after follow-ups)."""
        self.rolls: dict[str, int] = {}
        """The seq of each held check's roll event."""
        self.latest: list[str] = []
        """The last checks rolled (``CHECKS_LATEST``), held open or closed: the cards just drawn, verified
        again by every browser that draws them."""
        self.gathers: dict[str, t.GatherState] = {}
        self.brought: dict[str, str] = {}
        """The actors a player's roll made tracked, with that player's user: what one player may bring is bounded
        (:data:`~protocol.v1.limits.ACTORS_PER_USER`)."""
        self._folding_cause = 0
        self._roller: tuple[int, str | None] = (0, None)
        """The seq of the last roll folded and its player's user (``None``: the GM's): its consequences follow it."""
        self.undone: set[int] = set()

    @classmethod
    def build(
        cls,
        events: Iterable[tuple[int, object]],
        source: Callable[[int], Iterable[tuple[int, object]]] | None = None,
        holds_checks: bool = True,
    ) -> Projection:
        """Fold ``events``; with a ``source``, the events kept while folding are let go at the end."""
        p = cls(holds_checks=holds_checks)
        for seq, ev in events:
            p.apply(seq, ev)
        if source is not None:
            p._source, p._log = source, None
        return p

    def folded(self) -> Folded:
        """The state, for a snapshot (encoded at once: the structs are the projection's own)."""
        return Folded(
            self.seq,
            self.scene,
            {name: t.CoreActor(conditions=a.conditions) for name, a in self.actors.items()},
            list(self.scenes),
            self.extended,
            self.checks,
            self.rolls,
            self.latest,
            self.gathers,
            sorted(self.undone),
            self.brought,
            {stored.tag: stored.encode(self) for stored in _STORED},
        )

    def _load(self, state: Folded) -> None:
        """Take the state a snapshot stored (decoded for this projection alone)."""
        self.scene = state.scene
        self.actors = {name: t.ActorState(conditions=a.conditions) for name, a in state.actors.items()}
        self.scenes = {name: t.SceneState() for name in state.scenes}
        for stored in _STORED:
            stored.decode(state.parts.get(stored.tag), self)
        self.extended, self.checks, self.rolls = state.extended, state.checks, state.rolls
        self.latest, self.gathers, self.brought = state.latest, state.gathers, state.brought

    @classmethod
    def unfolded(
        cls, state: Folded, source: Callable[[int], Iterable[tuple[int, object]]], holds_checks: bool = True
    ) -> Projection:
        """The projection a snapshot stored (decoded afresh: nothing shared), reading its history from ``source``."""
        p = cls(source, holds_checks)
        p._load(state)
        p.seq, p.undone = state.seq, set(state.undone)
        return p

    # --- accessors ----------------------------------------------------------------

    def actor(self, name: str) -> t.ActorState:
        """The actor's state, to change: tracked from now on."""
        a = self.actors.get(name)
        if a is None:
            a = self.actors[name] = t.ActorState()
            if self._roller[1] is not None and self._folding_cause == self._roller[0]:
                self.brought[name] = self._roller[1]
        return a

    def brought_by(self, user: str) -> int:
        """How many of the actors the table tracks a roll of ``user``'s made tracked."""
        return sum(1 for who in self.brought.values() if who == user)

    def scene_state(self, name: str) -> t.SceneState:
        """The scene's state, to change: held from now on."""
        s = self.scenes.get(name)
        if s is None:
            s = self.scenes[name] = t.SceneState()
        return s

    def actor_state(self, actor: str) -> t.ActorState:
        """The actor's state as it stands (a blank one for an actor the table has not met); not to be changed."""
        a = self.actors.get(actor)
        return a if a is not None else t.ActorState()

    def part(self, name: str) -> Any:
        """What the rule set ``name`` keeps of its own; not to be changed."""
        return self.parts.get(name)

    def snapshot(self) -> t.Snapshot:
        names = set(self.scenes)
        for name, part in PARTS.items():
            names.update(part.scenes_shown(self.parts[name]))
        scenes: dict[str, t.SceneState] = {}
        for name in sorted(names):
            base = self.scenes.get(name)
            scenes[name] = _copy(base) if base is not None else t.SceneState()
        for name, part in PARTS.items():
            part.show(self.parts[name], scenes, t.SceneState)
        return t.Snapshot(
            seq=self.seq,
            scene=self.scene,
            actors={k: msgspec.structs.replace(v) for k, v in sorted(self.actors.items())},
            scenes=scenes,
            extended=dict(self.extended),
            gathers=dict(self.gathers),
        )

    def _open(self, rec: t.RollEvent) -> bool:
        """Whether a follow-up may still be made on the check as it stands (its rule set's word, on the table
        as it is at this event): a ``self`` roll and a check of a rule set without follow-ups never are."""
        if rec.mode == "self":
            return False
        rules = registry.ruleset_of(rec.check)
        return rules.offers and bool(rules.open_on(rec, self))

    # --- the fold -----------------------------------------------------------------

    def apply(self, seq: int, ev: object) -> None:
        self.seq = max(self.seq, seq)
        if self._log is not None:
            self._log.append((seq, ev))
        if isinstance(ev, t.Undone):
            self.undone.update(ev.seqs)
            self._rebuild()
            return
        self._fold(seq, ev)

    def rebuild_from(self, base: Folded, events: Iterable[tuple[int, object]], seq: int, ev: t.Undone) -> None:
        """Apply the ``undone`` ``ev`` at ``seq`` by rebuilding from ``base`` (a snapshot's state, decoded for
        this projection alone) and ``events``, those after it up to ``seq``: what :meth:`apply` does from the
        first event, when nothing undone since ``base`` is behind it (the caller's to know)."""
        self.seq = max(self.seq, seq)
        if self._log is not None:
            self._log.append((seq, ev))
        undone, at = self.undone | set(ev.seqs), self.seq
        self._reset()
        self._load(base)
        self.undone, self.seq = undone, at
        for s, e in events:
            if s <= at and not isinstance(e, t.Undone):
                self._fold(s, e)

    def _rebuild(self) -> None:
        undone, seq = self.undone, self.seq
        if self._log is not None:
            events: Iterable[tuple[int, object]] = self._log
        else:
            assert self._source is not None  # a projection keeps its events or has a source to read them from
            events = self._source(seq)
        self._reset()
        self.undone, self.seq = undone, seq
        for s, ev in events:
            if s <= seq and not isinstance(ev, t.Undone):
                self._fold(s, ev)

    @staticmethod
    def _keep_ended(held: dict[str, Any], ended: list[str]) -> None:
        """Let the oldest ended items of ``held`` go beyond :data:`~protocol.v1.limits.ENDED_KEPT` (their events
        stay in the ledger): a campaign's finished extended and gathered checks do not grow its state."""
        for gone in ended[: max(0, len(ended) - limits.ENDED_KEPT)]:
            del held[gone]

    def _fold(self, seq: int, ev: object) -> None:
        if seq in self.undone or getattr(ev, "cause", 0) in self.undone:
            return
        self._folding_cause = getattr(ev, "cause", 0)
        match ev:
            case t.RollEvent():
                self._roller = (seq, ev.user if ev.by != "gm" else None)
                if self.holds_checks:
                    # the label is the roll's history, not state a follow-up reads: let it go with the event
                    self.checks[ev.check_id] = msgspec.structs.replace(ev, label=None) if ev.label is not None else ev
                    self.rolls[ev.check_id] = seq
                    self.latest.append(ev.check_id)
                    if len(self.latest) > self.checks_latest:  # no longer among the last: held while open
                        gone = self.latest.pop(0)
                        rec = self.checks.get(gone)
                        if rec is not None and not self._open(rec):
                            del self.checks[gone], self.rolls[gone]
                    if len(self.checks) > self.checks_held:  # the oldest goes: the ledger answers for it
                        oldest = next(iter(self.checks))
                        del self.checks[oldest], self.rolls[oldest]
            case t.FollowEvent():
                rec = self.checks.get(ev.check_id)
                if rec is not None:
                    rec = self.checks[ev.check_id] = msgspec.structs.replace(rec, result=ev.result)
                    if not self._open(rec) and ev.check_id not in self.latest:  # closed: nothing more can follow
                        del self.checks[ev.check_id], self.rolls[ev.check_id]
            case t.ConditionAdded():
                a = self.actor(ev.actor)
                a.conditions.append(t.Condition(id=ev.condition, text=ev.text))
            case t.ConditionRemoved():
                a = self.actor(ev.actor)
                a.conditions = [c for c in a.conditions if c.id != ev.condition]
            case t.ExtendedStarted():
                self.extended[ev.extended] = t.ExtendedState(
                    id=ev.extended,
                    name=ev.name,
                    threshold=ev.threshold,
                    time_unit=ev.time_unit,
                    limit=ev.limit,
                    trial=ev.trial,
                    crisis=ev.crisis,
                    actor=ev.actor,
                    scene=ev.scene,
                )
            case t.ExtendedProgressed():
                x = self.extended.get(ev.extended)
                if x is not None:
                    x.progress, x.attempts, x.status = ev.progress, ev.attempts, ev.status
                    if x.status != "in_progress":
                        self._keep_ended(
                            self.extended, [k for k, e in self.extended.items() if e.status != "in_progress"]
                        )
            case t.GatherStarted():
                self.gathers[ev.gather] = t.GatherState(
                    id=ev.gather, name=ev.name, check=ev.check, parts=list(ev.parts), rolled={}, scene=ev.scene
                )
            case t.GatherPartRolled():
                g = self.gathers.get(ev.gather)
                if g is not None:
                    g.rolled[ev.part] = list(ev.faces)
            case t.GatherResolved():
                g = self.gathers.get(ev.gather)
                if g is not None:
                    g.result = ev.result
                    self._keep_ended(self.gathers, [k for k, e in self.gathers.items() if e.result is not None])
            case t.SceneActivated():
                self.scene = ev.scene
                self.scene_state(ev.scene)
            case _:
                owned = registry.part_of_event(ev)
                if owned is not None:
                    owned[1].fold(self.parts[owned[0]], seq, ev, self)
                return
        reactions = REACTIONS.get(type(ev))
        if reactions is not None:
            for name, part in reactions:
                part.fold(self.parts[name], seq, ev, self)
