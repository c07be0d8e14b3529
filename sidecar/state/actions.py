"""A roll's and a follow-up's events: from the request and the table's state to what the action will append
(a :class:`~.stored.Pending`), each event with who hears it. Nothing here changes the table: the hub commits
each action to the table in memory (:meth:`.table.Table.commit`, ``durable=False``), appends the turn's actions
to the ledger in one write and marks what is stored (:meth:`.table.Table.stored_up_to`) before anyone is told;
should the append fail, the table is read back from the ledger. A refusal raises :class:`ActionError`, nothing
applied.

The check's rule set decides what it is (``RuleSet.prepare``, ``read``, ``consequences``, ``follow``,
``follow_consequences``); here, who may make it, where it is rolled (:func:`_roll_scene`), how a gathered or
extended check's roll is set up, and that a consequence is seen as the roll is (or as a ``Shown`` one says).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import msgspec

from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.errors import ErrorCode
from sidecar.engine import CheckError, gather, registry
from sidecar.engine.ruleset import Prepared, RollContext, RuleSet, Shown

from .errors import ActionError
from .stored import Pending
from .visibility import ROLL_VISIBILITY, Viewer, may_see

if TYPE_CHECKING:
    from .table import Table

BLIND_FOLLOWUP = (
    "a blind roll's result is the GM's to see, and so are its follow-ups: the GM makes them "
    "(a bargain or a choice the roller asks for, out loud)"
)
"""The one refusal of every follow-up on a blind roll asked by its roller: the same whatever the result."""


# --- rolls --------------------------------------------------------------------


def prepare_roll(table: Table, msg: m.Roll, viewer: Viewer, user: str | None) -> Pending:
    try:
        return _prepare_roll(table, msg, viewer, user)
    except CheckError as exc:
        raise ActionError(exc.code, exc.message) from None


def _prepare_roll(table: Table, msg: m.Roll, viewer: Viewer, user: str | None) -> Pending:
    check = msg.check
    rules = registry.ruleset_of(check)
    pending, add = table.pend()
    vis = ROLL_VISIBILITY[msg.mode]
    private = msg.mode == "self"
    if private:
        _refuse_private_part(msg, rules)
    check_id = table._new_check_id()

    gathering = None
    if msg.gather is not None:
        gathering = table.state.gathers.get(msg.gather)
        if gathering is None:
            raise ActionError(ErrorCode.UNKNOWN_GATHER, f"no gathered check {msg.gather!r} on this table")
        if gathering.result is not None:
            raise ActionError(
                ErrorCode.GATHER_COMPLETE, f"every part of {gathering.name or msg.gather!r} is already rolled"
            )
        by_name = dict(gather.parts(gathering.check))
        if msg.part not in by_name:
            raise ActionError(
                ErrorCode.UNKNOWN_PART, f"{msg.gather!r} has the parts {', '.join(by_name)}; name one as `part`"
            )
        if msg.part in gathering.rolled:
            raise ActionError(
                ErrorCode.PART_ALREADY_ROLLED, f"{msg.part} has already rolled for {gathering.name or msg.gather!r}"
            )
        # the part's own check, as the GM set it; only supplied faces come from the request
        check = msgspec.structs.replace(by_name[msg.part], dice=check.dice)
        rules = registry.ruleset_of(check)
    if msg.extended is not None:
        x = table.state.extended.get(msg.extended)
        if x is None:
            raise ActionError(ErrorCode.UNKNOWN_EXTENDED, f"no extended check {msg.extended!r} on this table")
        if not rules.extended:
            raise ActionError(
                ErrorCode.INVALID_CHECK,
                f"extended checks are {' or '.join(f'`{n}`' for n in registry.EXTENDED)} checks",
            )
        check = rules.fill_extended(check, x)
    scene = _roll_scene(table, msg.scene, viewer)
    ctx = RollContext(check_id=check_id, actor=msg.actor, scene=scene, by_gm=viewer.is_gm)
    prepared = rules.prepare(check, ctx, table.state)  # its refusals hold for a private test too
    if private and prepared.events:
        # what the check took from the table stays there, waiting for a real roll
        prepared = Prepared(check)
    check = prepared.check
    faces = check.dice if check.dice is not None else rules.roll(check, table.rng)
    result = rules.read(check, faces)

    roll_ev = t.RollEvent(
        check_id=check_id,
        check=check,
        result=result,
        by=viewer.role,
        user=user,
        actor=msg.actor,
        target=msg.target,
        scene=scene,
        mode=msg.mode,
        label=msg.label,
        extended=msg.extended,
        gather=msg.gather,
        part=msg.part,
    )
    consequences = list(rules.consequences(roll_ev, table.state))  # may refuse the roll: before anything is added
    add(roll_ev, vis, user)
    if private:
        # A `self` roll is its roller's private test: read as any roll is (a refusal above holds, and the
        # roller sees the outcome), but the GM has a part in every consequence (RULINGS), and a roll the GM
        # cannot see cannot have one. The table is as if it never happened.
        pending.check_id = check_id
        pending.result = result
        return pending
    for ev in prepared.events:
        add(ev, vis, user)
    _add_consequences(add, consequences, vis, user)
    if gathering is not None:
        # A part's faces are seen as its roll is; the whole check tells every part's faces, so it is
        # everyone's only when every part was rolled in the open, else the GM's.
        add(
            t.GatherPartRolled(gather=gathering.id, part=msg.part or "", check_id=check_id, faces=list(result.dice)),
            vis,
            user,
        )
        rolled = {**gathering.rolled, msg.part or "": list(result.dice)}
        if len(rolled) == len(gathering.parts):
            whole = rules.read(gathering.check, gather.whole_faces(gathering.check, rolled))
            secret = vis != "all" or gathering.id in table.gather_secret
            add(t.GatherResolved(gather=gathering.id, result=whole), "gm" if secret else "all")
    pending.check_id = check_id
    pending.result = result
    return pending


def _roll_scene(table: Table, named: str | None, viewer: Viewer) -> str | None:
    """The scene a roll is in: the one the GM names, any; else the table's active scene.

    What a rule set keys by scene (what waits for anyone in it, what a roll adds to it or removes from it)
    is the GM's to place: a player's roll is in the active scene, and naming any other is refused rather
    than moved."""
    active = table.state.scene
    if not named:
        return active
    if viewer.is_gm or named == active:
        return named
    if active is None:
        raise ActionError(
            ErrorCode.FORBIDDEN,
            "a player's roll is in the table's active scene, and none is active: leave out `scene`",
        )
    raise ActionError(
        ErrorCode.FORBIDDEN,
        f"a player's roll is in the table's active scene {active!r}: name it or leave out `scene`",
    )


def _add_consequences(add: Callable[..., int], consequences: Iterable[object], vis: str, owner: str | None) -> None:
    """Add a rule set's consequences: seen as the roll is, or as a :class:`Shown` one says."""
    for c in consequences:
        if isinstance(c, Shown):
            add(c.event, c.to)
        else:
            add(c, vis, owner)


# --- follow-ups ---------------------------------------------------------------


def prepare_follow(table: Table, msg: m.Follow, viewer: Viewer, user: str | None) -> Pending:
    found = table.check(msg.check)
    rec = found.rec if found is not None else None
    # A GM connection relaying a player's follow-up (``user`` another than its own) is that player here.
    sight = viewer if user == viewer.user else Viewer("player", user)
    # A check hidden from the requester does not exist for them: the same answer as one that never did.
    # A `self` roll is hidden from every GM socket (the GM's own too): only its roller's player sockets see it.
    if rec is None or not (
        may_see(ROLL_VISIBILITY["self"], rec.user, viewer)
        if rec.mode == "self"
        else sight.is_gm
        or may_see(ROLL_VISIBILITY.get(rec.mode, "all"), rec.user, sight)
        or (rec.user is not None and rec.user == sight.user)
    ):
        raise ActionError(ErrorCode.UNKNOWN_CHECK, f"no check {msg.check!r} on this table (or it was undone)")
    if rec.mode == "self":
        raise ActionError(
            ErrorCode.FORBIDDEN_FOLLOWUP,
            "a `self` roll is a private test that changes nothing at the table: it has no follow-ups; "
            "roll it `gm` to keep it between you and the GM",
        )
    vis = ROLL_VISIBILITY.get(rec.mode, "all")
    owner = rec.user  # a follow-up is seen by whoever could see the roll
    # Whoever may not see the result (a blind roll's roller, on their own key or relayed) gets one refusal
    # for every follow-up on it, before anything that reads the result: which follow-ups apply is the
    # result's to say. A blind roll's follow-ups are the GM's to make.
    if not may_see(vis, owner, sight):
        raise ActionError(ErrorCode.FOLLOWUP_REFUSED, BLIND_FOLLOWUP)
    action_tag = type(msg.action).__struct_config__.tag
    if type(msg.action) in registry.GM_FOLLOWUPS:
        if not viewer.is_gm:
            raise ActionError(ErrorCode.FORBIDDEN, f"only the GM can do `{action_tag}`")
    elif rec.user != user and not (rec.mode == "blind" and viewer.is_gm):
        raise ActionError(ErrorCode.NOT_YOUR_CHECK, "only the one who rolled this check can follow it up")
    rules = registry.ruleset_of(rec.check)
    try:
        rules.before_follow(rec, msg.action)
    except CheckError as exc:
        raise ActionError(exc.code, exc.message) from None
    if not rules.followups:
        raise ActionError(ErrorCode.FORBIDDEN_FOLLOWUP, f"{rules.name} checks have no follow-ups")
    try:
        result = rules.follow(rec.check, rec.result, msg.action, table.rng)
    except CheckError as exc:
        raise ActionError(exc.code, exc.message) from None
    pending, add = table.pend()
    add(
        t.FollowEvent(check_id=rec.check_id, action=msg.action, result=result, by=viewer.role, user=user),
        vis,
        owner,
    )
    try:
        _add_consequences(add, rules.follow_consequences(rec, msg.action, result, table.state), vis, owner)
    except CheckError as exc:
        raise ActionError(exc.code, exc.message) from None
    pending.check_id = rec.check_id
    pending.result = result
    return pending


def _refuse_private_part(msg: m.Roll, rules: RuleSet[Any, Any]) -> None:
    """A `self` roll changes nothing at the table, so it cannot be what the GM set up to move: a part of a
    gathered check, an attempt of an extended check, or what its rule set says it moves."""
    what = None
    if msg.gather is not None:
        what = "a part of a gathered check"
    elif msg.extended is not None:
        what = "an attempt of an extended check"
    else:
        what = rules.private_refusal(msg.check)
    if what is not None:
        raise ActionError(
            ErrorCode.FORBIDDEN,
            f"a `self` roll is a private test that changes nothing at the table, so it cannot be {what}; "
            "roll it `gm` to keep it between you and the GM",
        )
