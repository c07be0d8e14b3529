"""What a `flairs` roll and its follow-ups do to the table (docs/rules/flairs.md).

- Lurking trials the Judge set (``lurking_set``, a GM operation of `flairs`) wait for the next full check
  of their actor, or of anyone in their scene: that roll takes them (their names go into the check, hidden
  from players until revealed) and they are used up (``LurkingTrialsUsed``). Only the GM names lurking
  trials in a check; a player's check that names them is refused (``forbidden``).
- A group check's part (one participant's simple check) cannot take a devil's bargain.
- Flairs, trials, the bargain and the Judge's names change the result only: no other table state.
"""

from __future__ import annotations

import msgspec

from protocol.v1 import flairs as flairs_t
from protocol.v1 import limits
from protocol.v1 import table as t
from protocol.v1.base import Action
from protocol.v1.flairs import FlairsBargain, FlairsCheck

from ... import bounds
from ...errors import CheckError, ErrorCode
from ...ruleset import Prepared, RollContext, TableView, new_id
from .rules import RULES, TRIALS
from .table import held, open_lurking


def take_lurking(check: FlairsCheck, ctx: RollContext, view: TableView) -> Prepared:
    """A full check takes the lurking trials waiting for it; a player may not name them, not even as none
    (an empty list would otherwise leave the Judge's trials waiting and the check free of them)."""
    if check.lurking_trials is not None and not ctx.by_gm:
        raise CheckError(
            ErrorCode.FORBIDDEN, "only the GM sets the names of lurking trials; leave `lurking_trials` out"
        )
    if not check.lurking_trials and not check.simple and not check.group:
        lurking = open_lurking(view, ctx.actor, ctx.scene)
        if lurking is not None and lurking.trials:
            taken = msgspec.structs.replace(check, lurking=len(lurking.trials), lurking_trials=list(lurking.trials))
            return Prepared(taken, (flairs_t.LurkingTrialsUsed(lurking=lurking.id, check_id=ctx.check_id),))
    return Prepared(check)


def before_follow(roll: t.RollEvent, action: Action) -> None:
    """ "You cannot enter a devil's bargain during group checks": also not on one participant's part of one
    (its faces are already the group's)."""
    if isinstance(action, FlairsBargain) and roll.gather is not None:
        raise CheckError(
            ErrorCode.BARGAIN_IN_GROUP_CHECK,
            "flairs: you cannot enter a devil's bargain during a group check (it relies on collective skill); "
            f"this roll is {roll.part!r}'s part of one",
        )


def lurking_set(op: flairs_t.LurkingSet, view: TableView) -> list[object]:
    """The Judge sets secret lurking trials for an actor, or for anyone in a scene (the active one by default)."""
    if not op.trials:
        raise CheckError(ErrorCode.INVALID_OP, "set at least one lurking trial")
    if len(op.trials) > RULES.max_lurking:
        raise CheckError(
            ErrorCode.TOO_MANY_LURKING,
            f"at most {RULES.max_lurking} lurking trials wait for one check; got {len(op.trials)}",
        )
    bad = [x for x in op.trials if x not in TRIALS]
    if bad:
        raise CheckError(ErrorCode.UNKNOWN_TRIAL, f"unknown trial(s) {bad}; trials are {', '.join(TRIALS)}")
    scene = op.scene
    if op.actor is None and op.scene is None:
        if view.scene is None:
            raise CheckError(ErrorCode.INVALID_OP, "lurking trials wait for an actor or a scene: name one")
        scene = view.scene
    bounds.room_for_open("sets of lurking trials waiting", len(held(view).lurking), limits.LURKING)
    return [
        flairs_t.LurkingTrialsSet(
            lurking=new_id("l"), trials=list(op.trials), count=len(op.trials), actor=op.actor, scene=scene
        )
    ]
