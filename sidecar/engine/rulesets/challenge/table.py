"""`challenge`'s part of the table (docs/rules/challenge.md): each hero's strain, game changers and whether
they are taken down (its ``ChallengeActor`` fields), and the open complications (kept here by id, shown in
their scenes), with the GM's operations on them.

A hidden complication is the GM's alone whatever caused it; what changes or removes one is told as it is
(hidden: the GM; revealed: everyone). Strain never goes below 0 nor past its bound, game changers likewise.
A hero below ``taken_down_at`` conditions again is up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from protocol.v1 import challenge as challenge_t
from protocol.v1 import limits
from protocol.v1 import table as t

from ... import bounds
from ...errors import CheckError, ErrorCode
from ...ruleset import TableView, new_id
from ...table_part import OpView, PartTable, TablePart, Told
from .rules import RULES

NAME = "challenge"


class Held(msgspec.Struct, gc=False):
    """What `challenge` keeps beside its actors' fields: the open complications, by id, oldest first."""

    complications: dict[str, challenge_t.Complication] = {}


def held(view: TableView) -> Held:
    """`challenge`'s own state on the table ``view`` reads."""
    own: Held = view.part(NAME)
    return own


def complication(view: TableView, cid: str) -> challenge_t.Complication | None:
    """The open complication with this id, or ``None``."""
    return held(view).complications.get(cid)


def room_for_complication(view: TableView, scene: str) -> None:
    """Room for one more open complication in ``scene`` (``""``: the unnamed one)."""
    bounds.room_for_scene(view, scene)
    complications = held(view).complications
    if len(complications) >= limits.COMPLICATIONS:
        raise CheckError(
            ErrorCode.TOO_MANY_COMPLICATIONS,
            f"this table has {limits.COMPLICATIONS} open complications, the most it may (a roll that may add one "
            "is refused): the GM removes one first (`complication_remove`)",
        )
    if sum(1 for c in complications.values() if c.scene == scene) >= limits.COMPLICATIONS_PER_SCENE:
        raise CheckError(
            ErrorCode.TOO_MANY_COMPLICATIONS,
            f"scene {scene!r} has {limits.COMPLICATIONS_PER_SCENE} open complications, the most one may (a roll "
            "that may add one is refused): the GM removes one first (`complication_remove`)",
        )


class ChallengePart(TablePart):
    events = (
        challenge_t.StrainChanged,
        challenge_t.GameChangerGained,
        challenge_t.TakenDown,
        challenge_t.ComplicationAdded,
        challenge_t.ComplicationEdited,
        challenge_t.ComplicationRevealed,
        challenge_t.ComplicationRemoved,
        challenge_t.ComplicationConverted,
    )
    reacts_to = (t.ConditionRemoved,)
    state = Held

    def fold(self, own: Held, seq: int, ev: object, table: PartTable) -> None:
        match ev:
            case challenge_t.StrainChanged():
                a = table.actor(ev.actor)
                value = ev.set if ev.set is not None else a.strain + (ev.delta or 0)
                a.strain = min(max(0, value), limits.STRAIN)  # never below 0, nor past its bound
            case challenge_t.GameChangerGained():
                a = table.actor(ev.actor)
                a.game_changers = min(max(0, a.game_changers + ev.count), limits.GAME_CHANGERS)
            case challenge_t.TakenDown():
                table.actor(ev.actor).taken_down = True
            case t.ConditionRemoved():
                a = table.actor(ev.actor)
                if len(a.conditions) < RULES.taken_down_at:
                    a.taken_down = False
            case challenge_t.ComplicationAdded():
                own.complications[ev.complication] = challenge_t.Complication(
                    id=ev.complication, scene=ev.scene, text=ev.text, origin=ev.origin, hidden=ev.hidden
                )
                table.scene_state(ev.scene)
            case challenge_t.ComplicationEdited():
                c = own.complications.get(ev.complication)
                if c is not None:
                    c.text = ev.text
            case challenge_t.ComplicationRevealed():
                c = own.complications.get(ev.complication)
                if c is None:  # a player learns of it only now
                    own.complications[ev.complication] = challenge_t.Complication(
                        id=ev.complication, scene=ev.scene, text=ev.text, origin=ev.origin, hidden=False
                    )
                    table.scene_state(ev.scene)
                else:
                    c.hidden = False
            case challenge_t.ComplicationRemoved():
                own.complications.pop(ev.complication, None)
            case challenge_t.ComplicationConverted():
                c = own.complications.get(ev.complication)
                if c is not None:
                    c.cl = ev.cl

    def scenes_shown(self, own: Held) -> Iterable[str]:
        return {c.scene for c in own.complications.values()}

    def show(self, own: Held, scenes: dict[str, Any], blank: Callable[[], Any]) -> None:
        for name, scene in scenes.items():
            scene.complications = [c for c in own.complications.values() if c.scene == name]

    def heard_by(self, ev: object, vis: str) -> str:
        if isinstance(ev, challenge_t.ComplicationAdded) and ev.hidden:
            return "gm"  # off-screen complications are the GM's alone, whatever caused them
        return vis

    def recap(self, seq: int, ev: Any, memo: dict[str, Any]) -> str | None:
        match ev:
            case challenge_t.StrainChanged():
                return (
                    f"{ev.actor}: strain set to {ev.set}" if ev.set is not None else f"{ev.actor}: strain {ev.delta:+d}"
                )
            case challenge_t.GameChangerGained():
                return f"{ev.actor}: +{ev.count} game changer"
            case challenge_t.TakenDown():
                return f"{ev.actor} is **taken down**"
            case challenge_t.ComplicationAdded():
                return f"complication in {ev.scene} ({ev.origin.replace('_', ' ')}): {ev.text}"
            case challenge_t.ComplicationEdited():
                return f"complication {ev.complication} now reads: {ev.text}"
            case challenge_t.ComplicationRevealed():
                return f"complication revealed: {ev.text}"
            case challenge_t.ComplicationRemoved():
                return f"complication {ev.complication} removed"
            case challenge_t.ComplicationConverted():
                return f"complication {ev.complication} addressed as a challenge at CL {ev.cl}"
        return None


def prepare_op(op: Any, view: OpView) -> list[object]:
    """The events of one of `challenge`'s GM operations."""
    match op:
        case challenge_t.ComplicationAdd():
            room_for_complication(view, op.scene)
            _need(op.text.strip(), "a complication needs a text")
            return [
                challenge_t.ComplicationAdded(
                    complication=new_id("k"), scene=op.scene, text=op.text, origin="gm", hidden=op.hidden
                )
            ]
        case challenge_t.ComplicationEdit():
            c = _complication(view, op.complication)
            return [Told(challenge_t.ComplicationEdited(complication=c.id, text=op.text), _as_it_is(c))]
        case challenge_t.ComplicationReveal():
            c = _complication(view, op.complication)
            if not c.hidden:
                raise CheckError(ErrorCode.ALREADY_REVEALED, f"complication {c.id} is already revealed")
            return [challenge_t.ComplicationRevealed(complication=c.id, scene=c.scene, text=c.text, origin=c.origin)]
        case challenge_t.ComplicationRemove():
            c = _complication(view, op.complication)
            return [Told(challenge_t.ComplicationRemoved(complication=c.id), _as_it_is(c))]
        case challenge_t.ComplicationConvert():
            c = _complication(view, op.complication)
            if op.cl < 1:
                raise CheckError(ErrorCode.INVALID_OP, "a Challenge Level is 1 or more")
            out: list[object] = []
            if c.hidden:  # addressing it brings it on-screen
                out.append(
                    challenge_t.ComplicationRevealed(complication=c.id, scene=c.scene, text=c.text, origin=c.origin)
                )
            out.append(challenge_t.ComplicationConverted(complication=c.id, cl=op.cl))
            return out
        case challenge_t.StrainSet():
            bounds.room_for_actor(view, op.actor)
            if op.strain < 0:
                raise CheckError(ErrorCode.INVALID_OP, "strain never goes below 0")
            return [challenge_t.StrainChanged(actor=op.actor, set=op.strain)]
    raise CheckError(ErrorCode.UNKNOWN_OP, f"challenge has no GM operation {type(op).__name__}")


def _as_it_is(c: challenge_t.Complication) -> str:
    """Who hears of a change to the complication: the GM while it is hidden, else everyone."""
    return "gm" if c.hidden else "all"


def _complication(view: TableView, cid: str) -> challenge_t.Complication:
    c = complication(view, cid)
    if c is None:
        raise CheckError(ErrorCode.UNKNOWN_COMPLICATION, f"no open complication {cid!r}")
    return c


def _need(value: object, message: str) -> None:
    if not value:
        raise CheckError(ErrorCode.INVALID_OP, message)


PART = ChallengePart()
