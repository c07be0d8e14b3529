"""Projections: the table's state folded from its events.

The same fold serves the GM (over every event) and a player (over the events that
player may see), so a player's snapshot can hold nothing the player was not told.
Undone actions are skipped: an ``undone`` event rebuilds the fold without them. A
projection given a ``source`` reads the events back from it for that rebuild instead of
keeping them: it holds the state, not the history.

The checks it holds are the last :data:`~sidecar.config.CHECKS_LATEST` rolled and, older, those still open
to follow-ups, at most :data:`~sidecar.config.CHECKS_HELD` of them: a check its rule set closes (no follow-up
open on its result, :meth:`~sidecar.engine.ruleset.RuleSet.open_on`) leaves once it is not among the last,
and beyond the window the oldest goes (a rule that never closes, like the GM's
removal of a complication after an epic success, would keep it for good). What leaves is never lost: its roll
and follow-up events are in the ledger, and the table reads them back for whoever names the check
(:meth:`.table.Table.check`), answering exactly as it did while it was held. Which checks are held is a
function of the events alone, so a snapshot and its tail hold the same ones a full fold does.

Running values stay within their bounds (``protocol/v1/limits.py``: strain, harm, game changers, Wyrd): the
actions that would carry one past are refused before they are recorded (a Wyrd grant), or cannot add more
than a few at a time (a roll's strain or harm), which the fold holds at the bound, so that no number in the
state, or in a snapshot of it, leaves what the rules can mean (nor a signed 64-bit integer). Extended checks
that ended and gathered checks that resolved stay in the state while they are among the last
:data:`~protocol.v1.limits.ENDED_KEPT`: a campaign's finished ones do not grow it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from protocol.v1 import challenge as challenge_t
from protocol.v1 import facets as facets_t
from protocol.v1 import feats as feats_t
from protocol.v1 import flairs as flairs_t
from protocol.v1 import limits
from protocol.v1 import table as t
from sidecar import config
from sidecar.engine import registry
from sidecar.engine.registry import TAKEN_DOWN_AT


class Folded(msgspec.Struct, array_like=True, gc=False):
    """A projection's state as a table's snapshot stores it (derived data: rebuilt from the events at will)."""

    seq: int
    scene: str | None
    actors: dict[str, t.ActorState]
    scenes: dict[str, t.SceneState]
    extended: dict[str, t.ExtendedState]
    complications: dict[str, challenge_t.Complication]
    lurking: dict[str, flairs_t.Lurking]
    checks: dict[str, t.RollEvent]
    rolls: dict[str, int]
    latest: list[str]
    gathers: dict[str, t.GatherState]
    undone: list[int]
    brought: dict[str, str] = {}


class Projection:
    """Per actor, per scene and per extended check state, plus the checks open to follow-ups.

    It is the :class:`~sidecar.engine.ruleset.TableView` the rule sets read their consequences from."""

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
        self.complications: dict[str, challenge_t.Complication] = {}
        self.lurking: dict[str, flairs_t.Lurking] = {}
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
            self.actors,
            self.scenes,
            self.extended,
            self.complications,
            self.lurking,
            self.checks,
            self.rolls,
            self.latest,
            self.gathers,
            sorted(self.undone),
            self.brought,
        )

    @classmethod
    def unfolded(
        cls, state: Folded, source: Callable[[int], Iterable[tuple[int, object]]], holds_checks: bool = True
    ) -> Projection:
        """The projection a snapshot stored (decoded afresh: nothing shared), reading its history from ``source``."""
        p = cls(source, holds_checks)
        p.seq, p.scene, p.actors, p.scenes = state.seq, state.scene, state.actors, state.scenes
        p.extended, p.complications, p.lurking = state.extended, state.complications, state.lurking
        p.checks, p.rolls, p.gathers, p.undone = state.checks, state.rolls, state.gathers, set(state.undone)
        p.latest, p.brought = state.latest, state.brought
        return p

    # --- accessors ----------------------------------------------------------------

    def actor(self, name: str) -> t.ActorState:
        a = self.actors.get(name)
        if a is None:
            a = self.actors[name] = t.ActorState(conditions=[], facets=[])
            if self._roller[1] is not None and self._folding_cause == self._roller[0]:
                self.brought[name] = self._roller[1]
        return a

    def brought_by(self, user: str) -> int:
        """How many of the actors the table tracks a roll of ``user``'s made tracked."""
        return sum(1 for who in self.brought.values() if who == user)

    def scene_state(self, name: str) -> t.SceneState:
        s = self.scenes.get(name)
        if s is None:
            s = self.scenes[name] = t.SceneState(complications=[], facets=[], lurking=[])
        return s

    def actor_state(self, actor: str) -> t.ActorState:
        """The actor's state as it stands (a blank one for an actor the table has not met); not to be changed."""
        a = self.actors.get(actor)
        return a if a is not None else t.ActorState()

    def complication(self, cid: str) -> challenge_t.Complication | None:
        return self.complications.get(cid)

    def open_lurking(self, actor: str | None, scene: str | None) -> flairs_t.Lurking | None:
        """The oldest lurking trials waiting for this actor, else for anyone in this scene."""
        for lk in self.lurking.values():
            if lk.actor is not None and lk.actor == actor:
                return lk
        for lk in self.lurking.values():
            if lk.actor is None and lk.scene is not None and lk.scene == scene:
                return lk
        return None

    def facet(self, fid: str) -> tuple[facets_t.Facet, list[facets_t.Facet]] | None:
        """The open facet with this id and the list that holds it (an actor's or a scene's)."""
        holders: tuple[t.ActorState | t.SceneState, ...] = (*self.actors.values(), *self.scenes.values())
        for holder in holders:
            for f in holder.facets:
                if f.id == fid:
                    return f, holder.facets
        return None

    def snapshot(self) -> t.Snapshot:
        scenes: dict[str, t.SceneState] = {}
        for name in sorted(
            set(self.scenes)
            | {c.scene for c in self.complications.values()}
            | {lk.scene for lk in self.lurking.values() if lk.scene}
        ):
            base = self.scenes.get(name) or t.SceneState()
            scenes[name] = t.SceneState(
                complications=[c for c in self.complications.values() if c.scene == name],
                facets=list(base.facets),
                lurking=[lk for lk in self.lurking.values() if lk.scene == name],
            )
        actor_lurking = [lk for lk in self.lurking.values() if lk.scene is None]
        if actor_lurking:
            scenes.setdefault("", t.SceneState()).lurking.extend(actor_lurking)
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
        self.scene, self.actors, self.scenes = base.scene, base.actors, base.scenes
        self.extended, self.complications, self.lurking = base.extended, base.complications, base.lurking
        self.checks, self.rolls, self.latest, self.gathers = base.checks, base.rolls, base.latest, base.gathers
        self.brought = base.brought
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
            case challenge_t.StrainChanged():
                a = self.actor(ev.actor)
                value = ev.set if ev.set is not None else a.strain + (ev.delta or 0)
                a.strain = min(max(0, value), limits.STRAIN)  # strain never goes below 0, nor past its bound
            case challenge_t.GameChangerGained():
                a = self.actor(ev.actor)
                a.game_changers = min(max(0, a.game_changers + ev.count), limits.GAME_CHANGERS)
            case t.ConditionAdded():
                a = self.actor(ev.actor)
                a.conditions.append(t.Condition(id=ev.condition, text=ev.text))
            case t.ConditionRemoved():
                a = self.actor(ev.actor)
                a.conditions = [c for c in a.conditions if c.id != ev.condition]
                if len(a.conditions) < TAKEN_DOWN_AT:
                    a.taken_down = False
            case challenge_t.TakenDown():
                self.actor(ev.actor).taken_down = True
            case facets_t.HarmTaken():
                a = self.actor(ev.actor)
                if ev.harm == "wound":
                    a.wounds = min(a.wounds + 1, limits.HARM)
                else:
                    a.scratches = min(a.scratches + 1, limits.HARM)
            case facets_t.FacetCreated():
                f = facets_t.Facet(facet=ev.facet, nature=ev.nature, id=ev.id or f"f{seq}")
                if ev.scene is not None:
                    self.scene_state(ev.scene).facets.append(f)
                elif ev.actor is not None:
                    self.actor(ev.actor).facets.append(f)
            case facets_t.FacetRenamed():
                found = self.facet(ev.facet)
                if found is not None:
                    found[0].facet = ev.text
            case facets_t.FacetRemoved():
                found = self.facet(ev.facet)
                if found is not None:
                    found[1].remove(found[0])
            case facets_t.HarmHealed():
                a = self.actor(ev.actor)
                if ev.harm == "wound":
                    a.wounds = max(0, a.wounds - ev.count)
                else:
                    a.scratches = max(0, a.scratches - ev.count)
            case challenge_t.ComplicationAdded():
                self.complications[ev.complication] = challenge_t.Complication(
                    id=ev.complication, scene=ev.scene, text=ev.text, origin=ev.origin, hidden=ev.hidden
                )
                self.scene_state(ev.scene)
            case challenge_t.ComplicationEdited():
                c = self.complications.get(ev.complication)
                if c is not None:
                    c.text = ev.text
            case challenge_t.ComplicationRevealed():
                c = self.complications.get(ev.complication)
                if c is None:  # a player learns of it only now
                    self.complications[ev.complication] = challenge_t.Complication(
                        id=ev.complication, scene=ev.scene, text=ev.text, origin=ev.origin, hidden=False
                    )
                    self.scene_state(ev.scene)
                else:
                    c.hidden = False
            case challenge_t.ComplicationRemoved():
                self.complications.pop(ev.complication, None)
            case challenge_t.ComplicationConverted():
                c = self.complications.get(ev.complication)
                if c is not None:
                    c.cl = ev.cl
            case feats_t.WyrdChanged():
                a = self.actor(ev.actor)
                a.wyrd = min(max(-limits.WYRD, a.wyrd + ev.delta), limits.WYRD)
            case flairs_t.LurkingTrialsSet():
                self.lurking[ev.lurking] = flairs_t.Lurking(
                    id=ev.lurking, count=ev.count, trials=list(ev.trials) or None, actor=ev.actor, scene=ev.scene
                )
            case flairs_t.LurkingTrialsUsed():
                self.lurking.pop(ev.lurking, None)
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
                pass
