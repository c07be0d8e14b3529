"""`flairs`' part of the table (docs/rules/flairs.md): the Judge's lurking trials waiting for the next full
check of an actor, or of anyone in a scene (kept here by id, shown in their scenes: an actor's under the
unnamed scene ``""``). Players see how many trials wait, never which."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from protocol.v1 import flairs as flairs_t

from ...ruleset import TableView
from ...table_part import PartTable, TablePart

NAME = "flairs"


class Held(msgspec.Struct, gc=False):
    """What `flairs` keeps on the table: the lurking trials waiting, by id, oldest first."""

    lurking: dict[str, flairs_t.Lurking] = {}


def held(view: TableView) -> Held:
    """`flairs`' own state on the table ``view`` reads."""
    own: Held = view.part(NAME)
    return own


def open_lurking(view: TableView, actor: str | None, scene: str | None) -> flairs_t.Lurking | None:
    """The oldest lurking trials waiting for this actor, else for anyone in this scene."""
    waiting = held(view).lurking.values()
    for lk in waiting:
        if lk.actor is not None and lk.actor == actor:
            return lk
    for lk in waiting:
        if lk.actor is None and lk.scene is not None and lk.scene == scene:
            return lk
    return None


class FlairsPart(TablePart):
    events = (flairs_t.LurkingTrialsSet, flairs_t.LurkingTrialsUsed)
    state = Held

    def fold(self, own: Held, seq: int, ev: object, table: PartTable) -> None:
        match ev:
            case flairs_t.LurkingTrialsSet():
                own.lurking[ev.lurking] = flairs_t.Lurking(
                    id=ev.lurking, count=ev.count, trials=list(ev.trials) or None, actor=ev.actor, scene=ev.scene
                )
            case flairs_t.LurkingTrialsUsed():
                own.lurking.pop(ev.lurking, None)

    def scenes_shown(self, own: Held) -> Iterable[str]:
        return {lk.scene for lk in own.lurking.values() if lk.scene}

    def show(self, own: Held, scenes: dict[str, Any], blank: Callable[[], Any]) -> None:
        for name, scene in scenes.items():
            scene.lurking = [lk for lk in own.lurking.values() if lk.scene == name]
        of_actors = [lk for lk in own.lurking.values() if lk.scene is None]
        if of_actors:
            scenes.setdefault("", blank()).lurking.extend(of_actors)

    def redact(self, ev: Any) -> Any:
        if isinstance(ev, flairs_t.LurkingTrialsSet) and ev.trials:
            return msgspec.structs.replace(ev, trials=[])  # players see how many, never which
        return ev

    def recap(self, seq: int, ev: Any, memo: dict[str, Any]) -> str | None:
        if isinstance(ev, flairs_t.LurkingTrialsSet):
            return f"{ev.count} lurking trial(s) set for {ev.actor or ev.scene}: {', '.join(ev.trials)}"
        return None


PART = FlairsPart()
