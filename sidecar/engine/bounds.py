"""Room on the table for what an action may add: the bounds of ``protocol/v1/limits.py``, checked on the
table as a rule set reads it (a :class:`~sidecar.engine.ruleset.TableView`).

Each ``room_for_*`` refuses (:class:`CheckError` with a ``too_many_*`` code naming the bound) when the item
the action may add would be one too many; it says nothing when the item is already there (an actor the table
tracks, a scene it holds). The bounds of what a rule set keeps of its own are its part's (its package's
``table.py``). A rule set checks what its rules *may* add, before anything is recorded and
whatever the dice say (a roll that may add an item is refused at the item's bound, whatever it then adds): the refusal depends on the request and the table alone, never on a hidden result.
"""

from __future__ import annotations

from protocol.v1 import limits

from .errors import CheckError, ErrorCode
from .ruleset import TableView


def room_for_actor(view: TableView, actor: str | None, user: str | None = None) -> None:
    """Room for ``actor``'s state: it is tracked already, or the table tracks fewer than :data:`ACTORS` (and, for
    a roll of the player ``user``, that player's rolls brought fewer than :data:`ACTORS_PER_USER`)."""
    if actor is None or actor in view.actors:
        return
    if len(view.actors) >= limits.ACTORS:
        raise CheckError(
            ErrorCode.TOO_MANY_ACTORS,
            f"this table tracks {limits.ACTORS} actors, the most it may; {actor!r} would be one more: the GM "
            "undoes what made an actor tracked, or the roll names an actor the table tracks",
        )
    if user is not None and view.brought_by(user) >= limits.ACTORS_PER_USER:
        raise CheckError(
            ErrorCode.TOO_MANY_ACTORS,
            f"your rolls brought {limits.ACTORS_PER_USER} actors to this table, the most one player's may; "
            f"{actor!r} would be one more: roll for an actor the table tracks, or ask the GM",
        )


def room_for_scene(view: TableView, scene: str | None) -> None:
    """Room for state in ``scene``: it holds some already, or the table holds fewer than :data:`SCENES`."""
    if scene is None or scene in view.scenes:
        return
    if len(view.scenes) >= limits.SCENES:
        raise CheckError(
            ErrorCode.TOO_MANY_SCENES,
            f"this table holds state in {limits.SCENES} scenes, the most it may; {scene!r} would be one more",
        )


def room_for_condition(view: TableView, actor: str, user: str | None = None) -> None:
    """Room for one more condition on ``actor``."""
    room_for_actor(view, actor, user)
    held = view.actors.get(actor)
    if held is not None and len(held.conditions) >= limits.CONDITIONS_PER_ACTOR:
        raise CheckError(
            ErrorCode.TOO_MANY_CONDITIONS,
            f"{actor!r} has {limits.CONDITIONS_PER_ACTOR} conditions, the most one may (a roll that may add one is "
            "refused): the GM removes one first (`condition_remove`)",
        )
    if sum(len(a.conditions) for a in view.actors.values()) >= limits.CONDITIONS:
        raise CheckError(
            ErrorCode.TOO_MANY_CONDITIONS,
            f"this table has {limits.CONDITIONS} conditions, the most it may (a roll that may add one is "
            "refused): the GM removes one first (`condition_remove`)",
        )


def room_for_open(what: str, held: int, most: int) -> None:
    """Room for one more of a kind the GM opens (lurking trials, extended or gathered checks): ``held`` of at
    most ``most``."""
    if held >= most:
        raise CheckError(
            ErrorCode.TOO_MANY_OPEN,
            f"this table has {most} {what}, the most it may: the GM ends or undoes one first",
        )


def within(what: str, value: int, most: int, least: int = 0) -> None:
    """A running value an action would make ``value``: refused with ``over_limit`` outside ``least``..``most``."""
    if not least <= value <= most:
        raise CheckError(
            ErrorCode.OVER_LIMIT,
            f"{what} would be {value}; it stays within {least} and {most}",
        )
