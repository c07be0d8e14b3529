"""What a `challenge` roll and its follow-ups do to the table (docs/rules/challenge.md).

- Strain: the result's change (+1 at a cost, +2/+3/+4 on a failure, −2 on an epic success) is added to the
  hero's strain (the table clamps it at 0).
- An epic failure: a new condition on the hero, and a complication the GM adds, hidden (kept under the
  unnamed scene ``""`` when no scene is named, rather than lost).
- A condition that is the hero's fourth (``ChallengeRules.taken_down_at``) takes the hero down, and the GM
  adds a complication, hidden. The same holds for a condition the GM adds by hand.
- A roll that addresses a complication (converted into a challenge by the GM) removes it on any success.
- The choice after beating the CL by 2 or 3: the change of strain, or the game changer gained.
- After an epic success, the GM's removal of a complication of the roll's scene.
- The table's bounds (``protocol/v1/limits.py``): any roll the sidecar rolls may fail epically (a natural 1),
  so it is refused whole, whatever its die, when its scene (or the table) holds the most open complications
  it may, or when its hero carries the most conditions one may, or is one the table does not track when it
  tracks the most actors it may; a roll of a given face is refused for what that face adds. A `self` roll
  adds nothing and is not refused.
"""

from __future__ import annotations

from collections.abc import Iterable

from protocol.v1 import challenge as challenge_t
from protocol.v1 import table as t
from protocol.v1.base import Action
from protocol.v1.challenge import ChallengeCheck, ChallengeRemoveComplication, ChallengeResult

from ... import bounds
from ...errors import CheckError, ErrorCode
from ...ruleset import Consequence, RollContext, Shown, TableView, new_id
from .rules import RULES, SUCCESSES
from .table import complication, room_for_complication

EPIC_FAILURE_TEXT = "Epic failure: the GM adds a complication"
TAKEN_DOWN_TEXT = "Taken down: the GM adds a complication"


def addressable(check: ChallengeCheck, ctx: RollContext, view: TableView) -> None:
    """A roll addressing a complication: only one the GM converted (and the roller may see), at its CL."""
    cid = check.complication
    if cid is None:
        return
    c = complication(view, cid)
    if c is None or (c.hidden and not ctx.by_gm):
        raise CheckError(ErrorCode.UNKNOWN_COMPLICATION, f"no open complication {cid!r} to address")
    if c.cl is None:
        raise CheckError(
            ErrorCode.COMPLICATION_NOT_CONVERTED,
            f"complication {cid} is not a challenge yet: the GM converts it (`complication_convert`) and sets its CL "
            "before a hero addresses it",
        )
    if check.cl != c.cl:
        raise CheckError(
            ErrorCode.DIFFICULTY_MISMATCH,
            f"complication {cid} was converted into a challenge at CL {c.cl} by the GM; roll it with `cl: {c.cl}`, "
            f"not {check.cl}",
        )


def condition(actor: str, scene: str | None, view: TableView) -> Iterable[object]:
    """What a new condition sets off: the fourth takes the hero down, and the GM adds a complication."""
    a = view.actor_state(actor)
    if len(a.conditions) + 1 >= RULES.taken_down_at and not a.taken_down:
        yield challenge_t.TakenDown(actor=actor)
        yield challenge_t.ComplicationAdded(
            complication=new_id("k"), scene=scene or "", text=TAKEN_DOWN_TEXT, origin="taken_down", hidden=True
        )


def room(roll: t.RollEvent, view: TableView) -> None:
    """Refuse a roll when what it adds has no room on the table: what an epic failure adds when the sidecar
    rolls (whatever the die), what the given face adds when it was given (the requester knows it already)."""
    check, result = roll.check, roll.result
    assert isinstance(check, ChallengeCheck) and isinstance(result, ChallengeResult)
    if roll.mode == "self":
        return
    given, user = check.dice is not None, roll.user if roll.by != "gm" else None
    if roll.actor is not None:
        if not given or result.condition:
            bounds.room_for_condition(view, roll.actor, user)
        elif result.strain:
            bounds.room_for_actor(view, roll.actor, user)
    if not given or result.complication == "add" or (result.condition and roll.actor is not None):
        room_for_complication(view, roll.scene or "")


def of_roll(roll: t.RollEvent, view: TableView) -> Iterable[Consequence]:
    """The events a `challenge` result produces; refuses a roll whose consequences would have no room."""
    room(roll, view)
    check, result = roll.check, roll.result
    assert isinstance(check, ChallengeCheck) and isinstance(result, ChallengeResult)
    actor, scene = roll.actor, roll.scene
    if actor is not None:
        if result.strain:
            yield challenge_t.StrainChanged(actor=actor, delta=result.strain)
        if result.condition:
            yield t.ConditionAdded(actor=actor, condition=new_id("c"))
            yield from condition(actor, scene, view)
    if result.complication == "add":
        yield challenge_t.ComplicationAdded(
            complication=new_id("k"), scene=scene or "", text=EPIC_FAILURE_TEXT, origin="epic_failure", hidden=True
        )
    addressed = check.complication
    gone = complication(view, addressed) if addressed and result.outcome in SUCCESSES else None
    if gone is not None:  # seen as the complication was, whoever saw the roll: a public one's removal is public
        yield Shown(challenge_t.ComplicationRemoved(complication=gone.id), "gm" if gone.hidden else "all")


def of_follow(roll: t.RollEvent, action: Action, result: ChallengeResult, view: TableView) -> Iterable[Consequence]:
    """The events a `challenge` follow-up produces (``roll.result`` is the result before it)."""
    if isinstance(action, ChallengeRemoveComplication):
        c = complication(view, action.complication)
        if c is None or (roll.scene is not None and c.scene != roll.scene):
            where = f" in scene {roll.scene!r}" if roll.scene is not None else ""
            raise CheckError(
                ErrorCode.UNKNOWN_COMPLICATION, f"no open complication {action.complication!r}{where} to remove"
            )
        yield Shown(challenge_t.ComplicationRemoved(complication=c.id), "gm" if c.hidden else "all")
    before = roll.result
    assert isinstance(before, ChallengeResult)
    if roll.actor is not None:
        d_strain = (result.strain or 0) - (before.strain or 0)
        d_gc = (result.game_changers or 0) - (before.game_changers or 0)
        if d_strain:
            yield challenge_t.StrainChanged(actor=roll.actor, delta=d_strain)
        if d_gc:
            yield challenge_t.GameChangerGained(actor=roll.actor, count=d_gc)
