"""The two primitives of :mod:`.hearing` (where who hears what is stated, for every mode and role): whether a
viewer may see a stored event (:func:`may_see`, from the event's visibility and owner), and the copy a non-GM
viewer gets (:func:`redacted`: what a player may see of a check, a result or a follow-up is its rule set's to
say, ``RuleSet.redact*``, and of a rule set's own event its table part's, ``TablePart.redact``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar, cast

import msgspec

from protocol.v1 import table as t
from sidecar.engine.registry import part_of_event, redact_action, redact_check, redact_result

E = TypeVar("E")
"""An event, seen as it is or redacted: the same type either way."""

ROLL_VISIBILITY = {"public": "all", "gm": "roller_gm", "blind": "gm", "self": "roller"}


@dataclass(frozen=True, slots=True)
class Viewer:
    role: str
    user: str | None
    is_gm: bool = field(init=False, repr=False, compare=False)
    """The role is the GM's (a slot, not a property: asked several times for every viewer of every action)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "is_gm", self.role == "gm")


def may_see(vis: str, owner: str | None, viewer: Viewer) -> bool:
    if vis == "all":
        return True
    mine = owner is not None and owner == viewer.user
    if vis == "roller":
        # a `self` roll is its roller's private test: their player sockets', never a GM socket's (not even one
        # whose hello names the roller, nor the GM's own: the GM's view is the table's, which it did not touch)
        return mine and not viewer.is_gm
    if vis == "roller_gm":
        return mine or viewer.is_gm
    return viewer.is_gm  # "gm"


SECRET = frozenset(("roller", "roller_gm"))
"""Visibilities that show an event to its owner but not to every player: an owner of one sees more than the others."""


def view(ev: E, vis: str, owner: str | None, viewer: Viewer) -> E | None:
    """The event as ``viewer`` may see it, or ``None``."""
    if not may_see(vis, owner, viewer):
        return None
    if viewer.is_gm:
        return ev
    return redacted(ev)


def redacted(ev: E) -> E:
    """The event as any non-GM viewer allowed to see it sees it: the same for every one of them.

    An action's event is shown to several kinds of viewer and to the players' projection one after the
    other: the last one redacted is answered again without redacting it again (events are not changed
    once appended; the memo holds the event, so its identity is not reused while it is kept)."""
    global _last
    last = _last  # one tuple, read once: consistent even with another thread redacting
    if last[0] is ev:
        return cast(E, last[1])
    shown = _redact(ev)
    _last = (ev, shown)
    return shown


_last: tuple[object, object] = (None, None)
"""The last event redacted, and what it was redacted to."""


def _redact(ev: E) -> E:
    # Most rule sets redact nothing of most checks: the event itself then, not a copy of it.
    match ev:
        case t.RollEvent():
            check, result = redact_check(ev.check), redact_result(ev.result)
            if check is ev.check and result is ev.result:
                return ev
            return msgspec.structs.replace(ev, check=check, result=result)
        case t.FollowEvent():
            action, result = redact_action(ev.action), redact_result(ev.result)
            if action is ev.action and result is ev.result:
                return ev
            return msgspec.structs.replace(ev, action=action, result=result)
    owned = part_of_event(ev)
    return ev if owned is None else owned[1].redact(ev)
