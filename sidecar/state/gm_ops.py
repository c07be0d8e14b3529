"""The GM's operations: from an operation and the table's state to the events it appends, each with who
hears it. Pure: nothing here changes the table; :meth:`.table.Table.prepare_op` numbers the events, and the
hub appends them and tells them (:mod:`.hearing`).

Every operation is the GM's alone (the hub refuses it from any other role), and each event is seen as its
visibility says (``"all"``: everyone; ``"gm"``: the GM's sockets only; a facet's: whoever saw it created):

====================================  ============================================  ==========================
operation                             events                                        who hears them
====================================  ============================================  ==========================
``complication_add``                  ``complication_added``                        the GM if ``hidden``, else
                                                                                    everyone
``complication_edit``                 ``complication_edited``                       as the complication is
``complication_reveal``               ``complication_revealed`` (text and scene:    everyone
                                      players learn of it now)
``complication_remove``               ``complication_removed``                      as the complication is
``complication_convert``              (``complication_revealed`` if hidden:         everyone
                                      addressing it brings it on-screen)
                                      ``complication_converted``
``strain_set``                        ``strain_changed`` (the value the GM states)  everyone
``condition_add``                     ``condition_added`` and what a rule set       everyone; a complication
                                      sets off (a fourth condition: ``taken_down``  it adds: the GM (hidden)
                                      and a complication)
``condition_remove``                  ``condition_removed``                         as the condition was (a
                                                                                    hidden roll's: its viewers)
``facet_add``                         ``facet_created``                             everyone
``facet_rename`` / ``facet_remove``   ``facet_renamed`` / ``facet_removed``         whoever saw the facet
                                                                                    created (a blind roll's:
                                                                                    the GM)
``harm_heal``                         ``harm_healed``, one per part of the harm     each part as its harm was:
                                      (what everyone saw heals first, then what     everyone's, a player's own
                                      a player's own ``gm`` rolls dealt, then a     (and the GM), the GM's
                                      blind roll's)
``wyrd_grant``                        ``wyrd_changed``                              everyone
``extended_start``                    ``extended_started``                          everyone
``scene_activate``                    ``scene_activated``                           everyone
``gather_start``                      ``gather_started``                            everyone
``undo``                              ``undone`` (the seqs of the last actions,     each viewer: only the seqs
                                      with their consequences, or the last          it was told of, in its
                                      events)                                       numbering; not told at all
                                                                                    when none
a rule set's own (``lurking_set``…)   what the rule set says                        everyone (the rule set's
                                                                                    events redact themselves:
                                                                                    players see how many
                                                                                    lurking trials, not which)
====================================  ============================================  ==========================

An off-screen complication is the GM's whatever added it (:meth:`.table.Table._pend` sees to that). The
undo never names a ``self`` roll (no action of the GM's view: undoing it would tell the GM of it).

What an operation removes or heals is told as the thing was: a viewer never hears of the end of something it
was never shown (a condition, a wound, a facet or a complication a hidden roll brought), which would tell it
that the hidden roll went badly. An operation that states a value (``strain_set``, a Wyrd grant's delta) or
brings something new is everyone's: the GM says it to the table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from protocol.v1 import challenge as challenge_t
from protocol.v1 import facets as facets_t
from protocol.v1 import feats as feats_t
from protocol.v1 import table as t
from protocol.v1.errors import ErrorCode
from sidecar.engine import CheckError, gather, registry
from sidecar.engine.ruleset import new_id

from .bounds import refuse_op
from .errors import ActionError
from .projection import Projection

if TYPE_CHECKING:
    from .table import Stored

Told = tuple[t.AnyEvent, str, "str | None"]
"""An event an operation appends, with its visibility and owner (who hears it: :func:`.visibility.may_see`)."""

History = Callable[[], Iterable[tuple[int, "Stored"]]]
"""The table's committed events, newest first (what an undo looks back through)."""


@dataclass(frozen=True)
class Seen:
    """Who saw what an operation changes or removes: its events are told to them alone."""

    facets: Mapping[str, tuple[str, str | None]]
    """(visibility, owner) of the event that created each facet."""
    conditions: Mapping[str, tuple[str, str | None]]
    """(visibility, owner) of the event that added each condition not seen by all (absent: everyone's)."""
    harm: Callable[[str, str], list[tuple[str, str | None, int]]]
    """An actor's wounds or scratches in parts, each with who may see it, in the order a heal takes them."""


def prepare(op: object, state: Projection, seen: Seen, backwards: History, undone: set[int]) -> list[Told]:
    """The events of the GM operation ``op`` on the table as ``state`` has it, each with who hears it; raises
    :class:`ActionError` for an operation that cannot be made (nothing is then appended). ``seen``: who saw
    what the operation changes; ``backwards`` and ``undone``: the history an undo looks back through, and the
    seqs already undone."""
    refuse_op(op, state)
    out: list[Told] = []

    def add(ev: t.AnyEvent, vis: str = "all", owner: str | None = None) -> None:
        out.append((ev, vis, owner))

    match op:
        case challenge_t.ComplicationAdd():
            _need(op.text.strip(), "a complication needs a text")
            add(
                challenge_t.ComplicationAdded(
                    complication=new_id("k"), scene=op.scene, text=op.text, origin="gm", hidden=op.hidden
                ),
                "gm" if op.hidden else "all",
            )
        case challenge_t.ComplicationEdit():
            c = _complication(state, op.complication)
            add(challenge_t.ComplicationEdited(complication=c.id, text=op.text), "gm" if c.hidden else "all")
        case challenge_t.ComplicationReveal():
            c = _complication(state, op.complication)
            if not c.hidden:
                raise ActionError(ErrorCode.ALREADY_REVEALED, f"complication {c.id} is already revealed")
            add(challenge_t.ComplicationRevealed(complication=c.id, scene=c.scene, text=c.text, origin=c.origin))
        case challenge_t.ComplicationRemove():
            c = _complication(state, op.complication)
            add(challenge_t.ComplicationRemoved(complication=c.id), "gm" if c.hidden else "all")
        case challenge_t.ComplicationConvert():
            c = _complication(state, op.complication)
            if op.cl < 1:
                raise ActionError(ErrorCode.INVALID_OP, "a Challenge Level is 1 or more")
            if c.hidden:  # addressing it brings it on-screen
                add(challenge_t.ComplicationRevealed(complication=c.id, scene=c.scene, text=c.text, origin=c.origin))
            add(challenge_t.ComplicationConverted(complication=c.id, cl=op.cl))
        case challenge_t.StrainSet():
            if op.strain < 0:
                raise ActionError(ErrorCode.INVALID_OP, "strain never goes below 0")
            add(challenge_t.StrainChanged(actor=op.actor, set=op.strain))
        case t.ConditionAdd():
            for ev in add_condition(op.actor, state.scene, state):
                if isinstance(ev, t.ConditionAdded):
                    ev.text = op.text
                add(ev, "gm" if isinstance(ev, challenge_t.ComplicationAdded) else "all")  # type: ignore[arg-type]
        case t.ConditionRemove():
            a = state.actors.get(op.actor)
            if a is None or all(c.id != op.condition for c in a.conditions):
                raise ActionError(ErrorCode.UNKNOWN_CONDITION, f"{op.actor} has no condition {op.condition!r}")
            # seen as the condition was: a hidden roll's condition goes unseen, and so does its removal
            add(t.ConditionRemoved(actor=op.actor, condition=op.condition), *seen.conditions.get(op.condition, _ALL))
        case facets_t.FacetAdd():
            _need(op.facet.strip(), "a facet needs a name")
            if op.actor is not None and op.scene is not None:
                raise ActionError(ErrorCode.INVALID_OP, "a facet belongs to an actor or a scene, not both: name one")
            scene = op.scene if op.actor is not None or op.scene is not None else state.scene
            if op.actor is None and scene is None:
                raise ActionError(
                    ErrorCode.INVALID_OP, "a facet belongs to an actor or a scene: name one (or activate a scene)"
                )
            add(facets_t.FacetCreated(facet=op.facet, nature=op.nature, actor=op.actor, scene=scene, id=new_id("f")))
        case facets_t.FacetRename():
            _need(op.text.strip(), "a facet needs a name")
            vis, owner = _facet_seen(state, seen.facets, op.facet)
            add(facets_t.FacetRenamed(facet=op.facet, text=op.text), vis, owner)
        case facets_t.FacetRemove():
            vis, owner = _facet_seen(state, seen.facets, op.facet)
            add(facets_t.FacetRemoved(facet=op.facet), vis, owner)
        case facets_t.HarmHeal():
            if op.count < 1:
                raise ActionError(ErrorCode.INVALID_OP, "heal at least 1")
            a = state.actors.get(op.actor, t.ActorState())
            have = a.wounds if op.harm == "wound" else a.scratches
            if have < op.count:
                raise ActionError(
                    ErrorCode.NO_SUCH_HARM,
                    f"{op.actor} has {have} {op.harm}{'s' if have != 1 else ''}; cannot heal {op.count}",
                )
            # the harm everyone saw heals first, then what only some saw, each part told as its harm was
            left = op.count
            for vis, owner, n in seen.harm(op.actor, op.harm):
                take = min(n, left)
                if take > 0:
                    add(facets_t.HarmHealed(actor=op.actor, harm=op.harm, count=take), vis, owner)
                    left -= take
        case feats_t.WyrdGrant():
            have = state.actors.get(op.actor, t.ActorState()).wyrd
            if have + op.amount < 0:
                raise ActionError(ErrorCode.INSUFFICIENT_WYRD, f"{op.actor} has only {have} Wyrd Points")
            add(feats_t.WyrdChanged(actor=op.actor, delta=op.amount))
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
                events = rules.prepare_op(op, state)
            except CheckError as exc:
                raise ActionError(exc.code, exc.message) from None
            for ev in events:
                add(ev)  # type: ignore[arg-type]
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


def _facet_seen(
    state: Projection, facet_seen: Mapping[str, tuple[str, str | None]], fid: str
) -> tuple[str, str | None]:
    """Who saw the facet created (a facet from a blind roll stays the GM's): its changes go to them."""
    if state.facet(fid) is None:
        raise ActionError(
            ErrorCode.UNKNOWN_FACET, f"no facet {fid!r} on this table (see the snapshot's facets for their ids)"
        )
    return facet_seen.get(fid, ("all", None))


def _complication(state: Projection, cid: str) -> challenge_t.Complication:
    c = state.complications.get(cid)
    if c is None:
        raise ActionError(ErrorCode.UNKNOWN_COMPLICATION, f"no open complication {cid!r}")
    return c


def _need(value: object, message: str) -> None:
    if not value:
        raise ActionError(ErrorCode.INVALID_OP, message)
