"""A table: its ledger of events, its projection, and the actions that append to them.

Every action (a roll, a follow-up, a GM operation) turns into one or more events:
the roll or op itself first, then each consequence as its own event (so each can be
undone). :meth:`Table.prepare` computes the events without changing anything; the
server appends them to the ledger and only then calls :meth:`Table.commit` and tells
anyone. A refused action raises :class:`ActionError` and leaves no trace.
"""

from __future__ import annotations

import bisect
import secrets
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import msgspec

from protocol.v1 import messages as m
from protocol.v1 import table as t
from sidecar import engine
from sidecar.engine import CheckError, Dice, gather

from .ledger import Ledger
from .projection import TAKEN_DOWN_AT, Projection
from .visibility import ROLL_VISIBILITY, Viewer, may_see, view


VIEWS_KEPT = 64
"""Per-user projections kept current; one asked for after it was let go is rebuilt from the log."""


class ActionError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Stored(msgspec.Struct, array_like=True):
    """An event as the ledger keeps it: who may see it, whose it is, and the event."""

    vis: str
    owner: str | None
    event: t.AnyEvent  # type: ignore[valid-type]


_enc = msgspec.msgpack.Encoder()
_dec = msgspec.msgpack.Decoder(Stored)


@dataclass
class Pending:
    """Events an action will append, in order, with their seqs."""

    events: list[tuple[int, Stored]] = field(default_factory=list)
    check_id: str | None = None
    result: object | None = None

    @property
    def first(self) -> int:
        return self.events[0][0]

    def encoded(self) -> list[tuple[int, bytes]]:
        return [(seq, _enc.encode(st)) for seq, st in self.events]


EPIC_FAILURE_TEXT = "Epic failure: the GM adds a complication"
TAKEN_DOWN_TEXT = "Taken down: the GM adds a complication"
CHALLENGE_SUCCESSES = frozenset({"success_at_cost", "success", "epic_success"})


class Table:
    """One table's state. All methods run on the event loop; none blocks on I/O but :meth:`load`."""

    def __init__(self, table_id: str, ledger: Ledger, rng: Dice | None = None) -> None:
        self.id = table_id
        self.ledger = ledger
        self.rng = rng or Dice()
        self.log: list[tuple[int, Stored]] = []
        self.state = Projection()
        self.head = 0
        self.restricted: dict[int, tuple[str, str | None]] = {}
        """(visibility, owner) of every event not seen by all: what an ``undone`` may show of its seqs."""
        self.roll_seq: dict[str, int] = {}
        """The seq of each check's roll event."""
        self.views: OrderedDict[str | None, Projection] = OrderedDict()
        """Projections of what non-GM viewers see, by user (``None``: the public view), kept current."""

    def load(self) -> None:
        self.log = [(seq, _dec.decode(data)) for seq, data in self.ledger.events(self.id)]
        self.state = Projection.build((seq, st.event) for seq, st in self.log)
        self.head = self.log[-1][0] if self.log else 0
        self.restricted, self.roll_seq, self.views = {}, {}, OrderedDict()
        for seq, st in self.log:
            self._index(seq, st)

    def _index(self, seq: int, st: Stored) -> None:
        if st.vis != "all":
            self.restricted[seq] = (st.vis, st.owner)
        if isinstance(st.event, t.RollEvent):
            self.roll_seq[st.event.check_id] = seq

    def _viewed(self, seq: int, st: Stored, viewer: Viewer) -> object | None:
        """``view`` of a stored event, with an ``undone`` naming only the seqs ``viewer`` may know of."""
        ev = view(st.event, st.vis, st.owner, viewer)
        if isinstance(ev, t.Undone) and not viewer.is_gm:
            seqs = [s for s in ev.seqs if s not in self.restricted or may_see(*self.restricted[s], viewer)]
            if not seqs:
                return None
            if len(seqs) != len(ev.seqs):
                ev = msgspec.structs.replace(ev, seqs=seqs)
        return ev

    # --- reading ------------------------------------------------------------------

    def visible(self, since: int, viewer: Viewer) -> list[t.Sequenced]:
        out = []
        for seq, st in self.log[bisect.bisect_right(self.log, since, key=lambda row: row[0]):]:
            ev = self._viewed(seq, st, viewer)
            if ev is not None:
                out.append(t.Sequenced(seq=seq, event=ev))
        return out

    def snapshot(self, viewer: Viewer) -> t.Snapshot:
        snap = (self.state if viewer.is_gm else self._view(viewer)).snapshot()
        snap.seq = self.head
        return snap

    def _view(self, viewer: Viewer) -> Projection:
        """The projection a non-GM viewer sees: built once from what it may see, then kept current by commit.

        Every non-GM viewer with the same user (or none) sees the same events, so they share one."""
        p = self.views.get(viewer.user)
        if p is None:
            p = self.views[viewer.user] = Projection.build((s.seq, s.event) for s in self.visible(0, viewer))
            while len(self.views) > VIEWS_KEPT:
                del self.views[next(iter(self.views))]  # the least recently used; rebuilt if asked again
        else:
            self.views.move_to_end(viewer.user)
        return p

    def view_pending(self, pending: Pending, viewer: Viewer) -> list[t.Sequenced]:
        out = []
        for seq, st in pending.events:
            ev = self._viewed(seq, st, viewer)
            if ev is not None:
                out.append(t.Sequenced(seq=seq, event=ev))
        return out

    def verify(self, msg: m.Verify, viewer: Viewer) -> m.Verified:
        rec = self.state.checks.get(msg.check)
        seq = self.roll_seq.get(msg.check)
        if rec is None or seq is None:
            return m.Verified(id=msg.id, check=msg.check, found=False)
        vis, owner = self.restricted.get(seq, ("all", None))
        ev = view(rec, vis, owner, viewer)
        if ev is None and (owner is None or owner != viewer.user):
            # hidden from this viewer: not even that it exists (the roller of a blind roll knows it does)
            return m.Verified(id=msg.id, check=msg.check, found=False)
        return m.Verified(id=msg.id, check=msg.check, found=True, seq=seq, result=ev.result if ev is not None else None)  # type: ignore[attr-defined]

    # --- committing ---------------------------------------------------------------

    def commit(self, pending: Pending) -> None:
        """Apply events that are now durable in the ledger."""
        for seq, st in pending.events:
            self.log.append((seq, st))
            self._index(seq, st)
            self.state.apply(seq, st.event)
            for user, p in self.views.items():
                ev = self._viewed(seq, st, Viewer("player", user))
                if ev is not None:
                    p.apply(seq, ev)
        self.head = max(self.head, pending.events[-1][0])

    def _pend(self) -> tuple[Pending, Callable[..., int]]:
        """A new pending action and the function that adds its events with their seqs and causes."""
        pending = Pending()

        def add(ev: object, vis: str = "all", owner: str | None = None) -> int:
            if isinstance(ev, t.ComplicationAdded) and ev.hidden:
                vis = "gm"  # off-screen complications are the GM's alone, whatever caused them
            seq = self.head + len(pending.events) + 1
            if hasattr(ev, "cause") and pending.events:
                ev.cause = pending.first  # type: ignore[attr-defined]
            elif hasattr(ev, "cause"):
                ev.cause = seq  # type: ignore[attr-defined]
            pending.events.append((seq, Stored(vis=vis, owner=owner, event=ev)))
            return seq

        return pending, add

    # --- rolls --------------------------------------------------------------------

    def prepare_roll(self, msg: m.Roll, viewer: Viewer, user: str | None) -> Pending:
        check = msg.check
        system = engine.system_of(check)
        tag = type(check).__struct_config__.tag  # type: ignore[attr-defined]
        pending, add = self._pend()
        vis = ROLL_VISIBILITY[msg.mode]
        check_id = f"{self.id}-{self.head + 1}"
        lurking = None

        gathering = None
        if msg.gather is not None:
            gathering = self.state.gathers.get(msg.gather)
            if gathering is None:
                raise ActionError("unknown_gather", f"no gathered check {msg.gather!r} on this table")
            if gathering.result is not None:
                raise ActionError("gather_complete", f"every part of {gathering.name or msg.gather!r} is already rolled")
            by_name = dict(gather.parts(gathering.check))
            if msg.part not in by_name:
                raise ActionError("unknown_part", f"{msg.gather!r} has the parts {', '.join(by_name)}; name one as `part`")
            if msg.part in gathering.rolled:
                raise ActionError("part_already_rolled", f"{msg.part} has already rolled for {gathering.name or msg.gather!r}")
            # the part's own check, as the GM set it; only supplied faces come from the request
            check = msgspec.structs.replace(by_name[msg.part], dice=check.dice)
            system = engine.system_of(check)
            tag = type(check).__struct_config__.tag  # type: ignore[attr-defined]
        if msg.extended is not None:
            x = self.state.extended.get(msg.extended)
            if x is None:
                raise ActionError("unknown_extended", f"no extended check {msg.extended!r} on this table")
            if tag != "boons":
                raise ActionError("invalid_check", "extended checks are `boons` checks")
            check = _fill_extended(check, x)
        if tag == "challenge" and getattr(check, "complication", None) is not None:
            self._addressable(check, viewer)
        if tag == "flairs" and getattr(check, "lurking_trials", None) is None and not check.simple and not check.group:
            lurking = self.state.open_lurking(msg.actor, msg.scene or self.state.scene)
            if lurking is not None and lurking.trials:
                check = msgspec.structs.replace(check, lurking=len(lurking.trials), lurking_trials=list(lurking.trials))
        if tag == "flairs" and getattr(check, "lurking_trials", None) and not viewer.is_gm:
            if msg.check is check:
                raise ActionError("forbidden", "only the GM sets the names of lurking trials")
        try:
            faces = check.dice if check.dice is not None else system.roll(check, self.rng)
            result = system.read(check, faces)
        except CheckError as exc:
            raise ActionError(exc.code, exc.message) from None
        if tag == "feats" and msg.actor is not None:
            cost = getattr(result, "cost", 0) or 0
            have = self.state.actors.get(msg.actor, t.ActorState()).wyrd
            if cost > have:
                raise ActionError(
                    "insufficient_wyrd", f"{msg.actor} has {have} Wyrd Points; this feat costs {cost}"
                )

        roll_ev = t.RollEvent(
            check_id=check_id, check=check, result=result, by=viewer.role, user=user, actor=msg.actor,
            target=msg.target, scene=msg.scene or self.state.scene, mode=msg.mode, label=msg.label,
            extended=msg.extended, gather=msg.gather, part=msg.part,
        )
        add(roll_ev, vis, user)
        if lurking is not None and getattr(check, "lurking_trials", None):
            add(t.LurkingTrialsUsed(lurking=lurking.id, check_id=check_id), vis, user)
        for ev in self._consequences(tag, check, result, roll_ev):
            add(ev, vis, user)
        if gathering is not None:
            add(t.GatherPartRolled(gather=gathering.id, part=msg.part or "", check_id=check_id, faces=list(result.dice)))  # type: ignore[attr-defined]
            rolled = {**gathering.rolled, msg.part or "": list(result.dice)}  # type: ignore[attr-defined]
            if len(rolled) == len(gathering.parts):
                whole = system.read(gathering.check, gather.whole_faces(gathering.check, rolled))
                add(t.GatherResolved(gather=gathering.id, result=whole))
        pending.check_id = check_id
        pending.result = result
        return pending

    def _consequences(self, tag: str, check: object, result: object, roll: t.RollEvent) -> Iterable[object]:
        actor, scene = roll.actor, roll.scene
        if tag == "challenge":
            if actor is not None:
                if result.strain:  # type: ignore[attr-defined]
                    yield t.StrainChanged(actor=actor, delta=result.strain)  # type: ignore[attr-defined]
                if result.condition:  # type: ignore[attr-defined]
                    yield from self._add_condition(actor, scene)
            if result.complication == "add":  # type: ignore[attr-defined]
                # The GM adds a complication whether or not a scene is named: without one it is kept
                # under the unnamed scene "" rather than lost.
                yield t.ComplicationAdded(
                    complication=_new_id("k"), scene=scene or "", text=EPIC_FAILURE_TEXT, origin="epic_failure", hidden=True
                )
            addressed = getattr(check, "complication", None)
            if addressed and result.outcome in CHALLENGE_SUCCESSES and addressed in self.state.complications:  # type: ignore[attr-defined]
                yield t.ComplicationRemoved(complication=addressed)
        elif tag == "facets":
            for side, who in (("character", actor), ("opponent", roll.target)):
                if who is None:
                    continue
                for harm in getattr(result.harm, side):  # type: ignore[attr-defined]
                    if harm == "condition":
                        yield from self._add_condition(who, scene, take_down=False)
                    else:
                        yield t.HarmTaken(actor=who, harm=harm)
            nature = result.facet  # type: ignore[attr-defined]
            if nature is not None and (scene is not None or actor is not None):
                yield t.FacetCreated(
                    facet=result.suggestion or nature, nature=nature,  # type: ignore[attr-defined]
                    actor=None if scene is not None else actor, scene=scene, id=_new_id("f"),
                )
        elif tag == "feats":
            cost = getattr(result, "cost", 0) or 0
            if actor is not None and cost:
                yield t.WyrdChanged(actor=actor, delta=-cost)
        elif tag == "boons" and roll.extended is not None:
            x = self.state.extended[roll.extended]
            ext = getattr(result, "extended", None)
            if ext is not None:
                yield t.ExtendedProgressed(
                    extended=x.id, added=ext.added, progress=ext.progress, attempts=ext.attempts,
                    status=ext.status, check_id=roll.check_id,
                )

    def _add_condition(self, actor: str, scene: str | None, take_down: bool = True) -> Iterable[object]:
        a = self.state.actors.get(actor, t.ActorState())
        yield t.ConditionAdded(actor=actor, condition=_new_id("c"))
        if take_down and len(a.conditions) + 1 >= TAKEN_DOWN_AT and not a.taken_down:
            yield t.TakenDown(actor=actor)
            yield t.ComplicationAdded(
                complication=_new_id("k"), scene=scene or "", text=TAKEN_DOWN_TEXT, origin="taken_down", hidden=True
            )

    # --- follow-ups ---------------------------------------------------------------

    def prepare_follow(self, msg: m.Follow, viewer: Viewer, user: str | None) -> Pending:
        rec = self.state.checks.get(msg.check)
        if rec is None:
            raise ActionError("unknown_check", f"no check {msg.check!r} on this table (or it was undone)")
        action_tag = type(msg.action).__struct_config__.tag  # type: ignore[attr-defined]
        if action_tag in GM_FOLLOWUPS:
            if not viewer.is_gm:
                raise ActionError("forbidden", f"only the GM can do `{action_tag}`")
        elif rec.user != user:
            raise ActionError("not_your_check", "only the one who rolled this check can follow it up")
        if action_tag == "flairs_bargain" and rec.gather is not None:
            # The part is one participant's simple check within a group check: its faces are already the
            # group's. "You cannot enter a devil's bargain during group checks."
            raise ActionError(
                "bargain_in_group_check",
                "flairs: you cannot enter a devil's bargain during a group check (it relies on collective skill); "
                f"this roll is {rec.part!r}'s part of one",
            )
        system = engine.system_of(rec.check)
        follow = getattr(system, "follow", None)
        if follow is None:
            raise ActionError("forbidden_followup", f"{rec.check.system if hasattr(rec.check, 'system') else 'this'} checks have no follow-ups")
        vis = ROLL_VISIBILITY.get(rec.mode, "all")
        owner = rec.user  # a follow-up is seen by whoever could see the roll
        try:
            result = follow(rec.check, rec.result, msg.action, self.rng)
        except CheckError as exc:
            if not may_see(vis, owner, viewer):
                # the engine's reason would tell the result (e.g. "success at cost with margin +0")
                raise ActionError(
                    "followup_refused", "this follow-up does not apply to this check; its result is the GM's to see"
                ) from None
            raise ActionError(exc.code, exc.message) from None
        pending, add = self._pend()
        add(t.FollowEvent(check_id=rec.check_id, action=msg.action, result=result, by=viewer.role, user=user), vis, owner)
        tag = type(rec.check).__struct_config__.tag  # type: ignore[attr-defined]
        if action_tag == "challenge_remove_complication":
            c = self.state.complications.get(msg.action.complication)  # type: ignore[attr-defined]
            if c is None or (rec.scene is not None and c.scene != rec.scene):
                where = f" in scene {rec.scene!r}" if rec.scene is not None else ""
                raise ActionError("unknown_complication", f"no open complication {msg.action.complication!r}{where} to remove")  # type: ignore[attr-defined]
            add(t.ComplicationRemoved(complication=c.id), "gm" if c.hidden else "all")
        if tag == "challenge" and rec.actor is not None:
            d_strain = (getattr(result, "strain", 0) or 0) - (getattr(rec.result, "strain", 0) or 0)
            d_gc = (getattr(result, "game_changers", 0) or 0) - (getattr(rec.result, "game_changers", 0) or 0)
            if d_strain:
                add(t.StrainChanged(actor=rec.actor, delta=d_strain), vis, owner)
            if d_gc:
                add(t.GameChangerGained(actor=rec.actor, count=d_gc), vis, owner)
        pending.check_id = rec.check_id
        pending.result = result
        return pending

    # --- GM operations ------------------------------------------------------------

    def prepare_op(self, op: object) -> Pending:
        pending, add = self._pend()
        st = self.state
        match op:
            case t.ComplicationAdd():
                _need(op.text.strip(), "a complication needs a text")
                add(t.ComplicationAdded(complication=_new_id("k"), scene=op.scene, text=op.text, origin="gm", hidden=op.hidden),
                    "gm" if op.hidden else "all")
            case t.ComplicationEdit():
                c = self._complication(op.complication)
                add(t.ComplicationEdited(complication=c.id, text=op.text), "gm" if c.hidden else "all")
            case t.ComplicationReveal():
                c = self._complication(op.complication)
                if not c.hidden:
                    raise ActionError("already_revealed", f"complication {c.id} is already revealed")
                add(t.ComplicationRevealed(complication=c.id, scene=c.scene, text=c.text, origin=c.origin))
            case t.ComplicationRemove():
                c = self._complication(op.complication)
                add(t.ComplicationRemoved(complication=c.id), "gm" if c.hidden else "all")
            case t.ComplicationConvert():
                c = self._complication(op.complication)
                if op.cl < 1:
                    raise ActionError("invalid_op", "a Challenge Level is 1 or more")
                if c.hidden:  # addressing it brings it on-screen
                    add(t.ComplicationRevealed(complication=c.id, scene=c.scene, text=c.text, origin=c.origin))
                add(t.ComplicationConverted(complication=c.id, cl=op.cl))
            case t.StrainSet():
                if op.strain < 0:
                    raise ActionError("invalid_op", "strain never goes below 0")
                add(t.StrainChanged(actor=op.actor, set=op.strain))
            case t.ConditionAdd():
                for ev in self._add_condition(op.actor, st.scene):
                    if isinstance(ev, t.ConditionAdded):
                        ev.text = op.text
                    add(ev, "gm" if isinstance(ev, t.ComplicationAdded) else "all")
            case t.ConditionRemove():
                a = st.actors.get(op.actor)
                if a is None or all(c.id != op.condition for c in a.conditions):
                    raise ActionError("unknown_condition", f"{op.actor} has no condition {op.condition!r}")
                add(t.ConditionRemoved(actor=op.actor, condition=op.condition))
            case t.FacetAdd():
                _need(op.facet.strip(), "a facet needs a name")
                if op.actor is not None and op.scene is not None:
                    raise ActionError("invalid_op", "a facet belongs to an actor or a scene, not both: name one")
                scene = op.scene if op.actor is not None or op.scene is not None else st.scene
                if op.actor is None and scene is None:
                    raise ActionError("invalid_op", "a facet belongs to an actor or a scene: name one (or activate a scene)")
                add(t.FacetCreated(facet=op.facet, nature=op.nature, actor=op.actor, scene=scene, id=_new_id("f")))
            case t.FacetRename():
                _need(op.text.strip(), "a facet needs a name")
                vis, owner = self._facet_seen(op.facet)
                add(t.FacetRenamed(facet=op.facet, text=op.text), vis, owner)
            case t.FacetRemove():
                vis, owner = self._facet_seen(op.facet)
                add(t.FacetRemoved(facet=op.facet), vis, owner)
            case t.HarmHeal():
                if op.count < 1:
                    raise ActionError("invalid_op", "heal at least 1")
                a = st.actors.get(op.actor, t.ActorState())
                have = a.wounds if op.harm == "wound" else a.scratches
                if have < op.count:
                    raise ActionError(
                        "no_such_harm", f"{op.actor} has {have} {op.harm}{'s' if have != 1 else ''}; cannot heal {op.count}"
                    )
                add(t.HarmHealed(actor=op.actor, harm=op.harm, count=op.count))
            case t.WyrdGrant():
                have = st.actors.get(op.actor, t.ActorState()).wyrd
                if have + op.amount < 0:
                    raise ActionError("insufficient_wyrd", f"{op.actor} has only {have} Wyrd Points")
                add(t.WyrdChanged(actor=op.actor, delta=op.amount))
            case t.LurkingSet():
                _need(op.trials, "set at least one lurking trial")
                bad = [x for x in op.trials if x not in TRIALS]
                if bad:
                    raise ActionError("unknown_trial", f"unknown trial(s) {bad}; trials are {', '.join(TRIALS)}")
                if op.actor is None and op.scene is None and st.scene is None:
                    raise ActionError("invalid_op", "lurking trials wait for an actor or a scene: name one")
                add(t.LurkingTrialsSet(lurking=_new_id("l"), trials=list(op.trials), count=len(op.trials),
                                       actor=op.actor, scene=op.scene if op.actor is None else op.scene))
                if op.actor is None and op.scene is None:
                    pending.events[-1][1].event.scene = st.scene  # type: ignore[attr-defined]
            case t.ExtendedStart():
                if op.threshold < 1:
                    raise ActionError("invalid_op", "an extended check's threshold is 1 or more net successes")
                if op.limit is not None and op.limit < 1:
                    raise ActionError("invalid_op", "an attempt limit is 1 or more")
                add(t.ExtendedStarted(extended=_new_id("x"), name=op.name, threshold=op.threshold, time_unit=op.time_unit,
                                      limit=op.limit, trial=op.trial, crisis=op.crisis, actor=op.actor, scene=op.scene))
            case t.SceneActivate():
                add(t.SceneActivated(scene=op.scene))
            case t.GatherStart():
                try:
                    names = [name for name, _ in gather.parts(op.check)]
                except CheckError as exc:
                    raise ActionError(exc.code, exc.message) from None
                add(t.GatherStarted(gather=_new_id("g"), name=op.name, check=op.check, parts=names,
                                    scene=op.scene or st.scene))
            case t.Undo():
                if op.count < 1:
                    raise ActionError("invalid_op", "undo at least 1 action")
                seqs = self._last_events(op.count) if op.events else self._last_actions(op.count)
                if not seqs:
                    raise ActionError("nothing_to_undo", "there is nothing left to undo")
                add(t.Undone(seqs=seqs))
            case _:
                raise ActionError("unknown_op", "unknown GM operation")
        return pending

    def _addressable(self, check: object, viewer: Viewer) -> None:
        """A roll addressing a complication: only one the GM converted (and the roller may see), at its CL."""
        cid = check.complication  # type: ignore[attr-defined]
        c = self.state.complications.get(cid)
        if c is None or (c.hidden and not viewer.is_gm):
            raise ActionError("unknown_complication", f"no open complication {cid!r} to address")
        if c.cl is None:
            raise ActionError(
                "complication_not_converted",
                f"complication {cid} is not a challenge yet: the GM converts it (`complication_convert`) and sets its CL "
                "before a hero addresses it",
            )
        if check.cl != c.cl:  # type: ignore[attr-defined]
            raise ActionError(
                "difficulty_mismatch",
                f"complication {cid} was converted into a challenge at CL {c.cl} by the GM; roll it with `cl: {c.cl}`, "
                f"not {check.cl}",  # type: ignore[attr-defined]
            )

    def _facet_seen(self, fid: str) -> tuple[str, str | None]:
        """Who saw the facet created (a facet from a blind roll stays the GM's): its changes go to them."""
        if self.state.facet(fid) is None:
            raise ActionError("unknown_facet", f"no facet {fid!r} on this table (see the snapshot's facets for their ids)")
        for seq, stored in reversed(self.log):
            ev = stored.event
            if isinstance(ev, t.FacetCreated) and (ev.id or f"f{seq}") == fid:
                return stored.vis, stored.owner
        return "all", None

    def _complication(self, cid: str) -> t.Complication:
        c = self.state.complications.get(cid)
        if c is None:
            raise ActionError("unknown_complication", f"no open complication {cid!r}")
        return c

    def _last_events(self, count: int) -> list[int]:
        live = [
            seq for seq, st in self.log
            if not isinstance(st.event, t.Undone) and seq not in self.state.undone
            and getattr(st.event, "cause", 0) not in self.state.undone
        ]
        return live[-count:]

    def _last_actions(self, count: int) -> list[int]:
        """Seqs of the last ``count`` actions not yet undone, each with its consequences."""
        actions: dict[int, list[int]] = {}
        for seq, st in self.log:
            ev = st.event
            if isinstance(ev, t.Undone) or seq in self.state.undone:
                continue
            cause = getattr(ev, "cause", 0) or seq
            actions.setdefault(cause, []).append(seq)
        chosen = sorted(actions)[-count:]
        return sorted(s for c in chosen for s in actions[c])


GM_FOLLOWUPS = frozenset({"flairs_reveal", "flairs_set_lurking", "flairs_name_trials", "challenge_remove_complication"})
"""Follow-ups that are the GM's (the Judge's) to make, not the roller's."""

TRIALS = ("costly", "slow", "loud", "harmful", "foolish", "chaotic")


def _need(value: object, message: str) -> None:
    if not value:
        raise ActionError("invalid_op", message)


def _new_id(prefix: str) -> str:
    return f"{prefix}{secrets.token_hex(4)}"


def _fill_extended(check: object, x: t.ExtendedState) -> object:
    """The roll as the extended check has it: the GM's difficulty, threshold, limit and time unit, and the
    table's progress. The request may leave them out or repeat them; a different value is refused."""
    fields = {
        "threshold": x.threshold, "progress": x.progress, "attempts": x.attempts, "limit": x.limit,
        "time_unit": x.time_unit, "trial": x.trial, "crisis": x.crisis, "upgrade": 0,
    }
    unset = {"threshold": None, "progress": 0, "attempts": 0, "limit": None, "time_unit": None, "trial": 0, "crisis": 0,
             "upgrade": 0}
    for name, want in fields.items():
        got = getattr(check, name)
        if got != unset[name] and got != want:
            what = "difficulty" if name in ("trial", "crisis", "upgrade") else "extended check"
            raise ActionError(
                "difficulty_mismatch",
                f"the GM set this {what} at `extended_start` ({x.name or x.id}: {name} {want}); the roll asks for "
                f"{name} {got}: leave it out, or send {want}",
            )
    return msgspec.structs.replace(check, **fields)  # type: ignore[type-var]
