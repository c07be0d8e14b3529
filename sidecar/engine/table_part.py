"""A rule set's share of the table's state: what it keeps, folds, shows and hides (:class:`TablePart`).

The table keeps its own state (actors and their conditions, scenes, extended and gathered checks, the checks
open to follow-ups) and folds its own events; every other event is a rule set's, folded by its part
(:meth:`TablePart.fold`). A part's state is of two kinds:

- the fields it adds to every actor and every scene (its ``ActorPart`` and ``ScenePart`` Structs, in its
  protocol module): they live in the table's flat actor and scene states, which the snapshot sends as they are;
- what it keeps of its own beside them (:attr:`TablePart.state`, a msgspec Struct: a rule set's open items
  by id, say), which it shows in the snapshot's scenes (:meth:`TablePart.show`).

The stored snapshot keeps each part's state under its rule set's tag. Who hears an event is the table's to
decide (``sidecar/state/hearing.py``); a part says what of its own events a player may see
(:meth:`TablePart.redact`) and which of them only the GM hears whatever action caused them
(:meth:`TablePart.heard_by`), and names the events whose audience a later GM operation needs to know
(:meth:`TablePart.remembers`, read back through :meth:`OpView.heard`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from protocol.v1 import table as t

from .ruleset import TableView


class PartTable(Protocol):
    """The table as a part's fold changes it: the actors and scenes it touches become tracked."""

    @property
    def scene(self) -> str | None:
        """The active scene."""
        ...

    def actor(self, name: str) -> t.ActorState:
        """The actor's flat state, to change; the table tracks it from now on."""
        ...

    def scene_state(self, name: str) -> t.SceneState:
        """The scene's flat state, to change; the table holds it from now on."""
        ...

    @property
    def actors(self) -> Mapping[str, t.ActorState]:
        """The actors tracked, by name (to read: :meth:`actor` to change one)."""
        ...

    @property
    def scenes(self) -> Mapping[str, t.SceneState]:
        """The scenes held, by name."""
        ...


class OpView(TableView, Protocol):
    """The table as a GM operation of a rule set's reads it: its state, and who heard what it changes."""

    def heard(self, key: str) -> list[tuple[str, str | None]]:
        """The (visibility, owner) of each event remembered under ``key`` (:meth:`TablePart.remembers`), in
        order; none remembered: ``[]``."""
        ...

    def seen_by(self, user: str | None) -> TableView:
        """The table as the player ``user`` (``None``: any player) was told of it."""
        ...


@dataclass(frozen=True, slots=True)
class Told:
    """An event of a GM operation with who hears it (a bare event is everyone's): ``vis`` a visibility
    (``all``, ``gm``, ``roller_gm``), ``owner`` the user it belongs to."""

    event: object
    vis: str = "all"
    owner: str | None = None


class TablePart:
    """A rule set's part of the table's state. Subclass it, set :attr:`events` (and :attr:`state` and
    :attr:`reacts_to` where it has them) and override what it needs: every default says "nothing"."""

    events: tuple[type, ...] = ()
    """The events it folds: its own (its protocol module's ``Event`` subclasses)."""
    reacts_to: tuple[type, ...] = ()
    """The table's own events it folds too, after the table has (a condition removed, say)."""
    state: type | None = None
    """The msgspec Struct of what it keeps beside the actors' and scenes' fields (``None``: nothing), built with
    no arguments when the table is empty."""

    def blank(self) -> Any:
        """What it keeps on an empty table."""
        return self.state() if self.state is not None else None

    def fold(self, own: Any, seq: int, ev: object, table: PartTable) -> None:
        """Apply one of :attr:`events` or :attr:`reacts_to` (never an undone one) to ``own`` and the table."""

    def scenes_shown(self, own: Any) -> Iterable[str]:
        """The scenes the snapshot shows because of what it keeps (beside those the table holds)."""
        return ()

    def show(self, own: Any, scenes: dict[str, t.SceneState], blank: Callable[[], t.SceneState]) -> None:
        """Fill in the snapshot's ``scenes`` (copies, to change) from what it keeps; ``blank`` makes a scene
        it may add."""

    def heard_by(self, ev: object, vis: str) -> str:
        """The visibility one of its events gets, as the action that causes it would give it ``vis``: ``gm``
        for what only the GM hears whatever caused it."""
        return vis

    def redact(self, ev: Any) -> Any:
        """One of its events as a player may see it (the same object when nothing is hidden)."""
        return ev

    def recap(self, seq: int, ev: Any, memo: dict[str, Any]) -> str | None:
        """One of its events as a line of the table's recap (``verdict table export``; Markdown), or ``None``
        for one that says nothing to a reader. ``memo`` is its own for the whole recap, the events in order (a
        name as last written, say)."""
        return None

    def remembers(self, seq: int, ev: object, vis: str) -> Iterable[str]:
        """The keys under which the table remembers who heard this event (``vis`` its visibility), for a later
        GM operation of the rule set to tell its change to the same eyes (:meth:`OpView.heard`)."""
        return ()
