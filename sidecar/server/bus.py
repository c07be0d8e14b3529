"""The bus between sidecars that share a ledger: any sidecar serves any table.

A sidecar that commits an action notifies (the ledger's ``verdict_append`` does, in the committing
transaction). Every sidecar listens; for each table it holds, a notification of a head beyond its
own makes it read the new events from the ledger in seq order, apply them to its projection and
tell its own connections exactly what it would have told them had the action been its own: a
``rolled`` or ``followed`` (with the request id) for a roll or a follow-up, an ``event`` per
visible event for a GM operation, through the same filtering (:meth:`Hub._fanout`).

A sidecar pays for the events of the tables its sockets are at, and for nothing else: a notification
of a table it has no connection at is passed on undecoded, and such a table is not checked
periodically either. A join reads what it missed first (:meth:`Hub.refresh`), so a table held without
connections is brought up to date when someone comes back to it. (With the proxy routing a table's
sockets to one sidecar, the others never decode its events: a roll's cost stays flat in the number of
sidecars; see docs/architecture/several-sidecars.md.)

Notifications are only a hint. A sidecar that missed some (its listening connection dropped, the
network blipped) catches up by seq: every table it holds when the listening connection comes back,
every ``interval`` seconds in any case, before welcoming a client, and before retrying an append the
ledger refused because the table had moved on (then with the table's row locked: :meth:`Bus.again`).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import structlog
from aiohttp import web

from protocol.v1 import codec
from protocol.v1 import messages as m
from protocol.v1 import table as t
from sidecar.state.ledger_pg import Row, parse_note
from sidecar.state.table import Pending, _dec

from .hub import Build, Hub, TableHub, _followed, _rolled, client_request_id

log = structlog.get_logger("verdict.bus")

INTERVAL = 2.0
"""Seconds between two checks of every held table's head, whatever the notifications said."""
RETRY = (0.1, 0.5, 1.0, 2.0, 5.0)
"""Waits before reconnecting the listening connection, growing, then staying at the last."""


class Bus:
    def __init__(self, hub: Hub, ledger: Any, interval: float = INTERVAL) -> None:
        self.hub = hub
        self.ledger = ledger
        self.interval = interval
        self.listening = asyncio.Event()
        """Set while the listening connection is up (tests wait on it)."""
        self.listens = 0
        """How many times the listening connection was (re)established."""
        self.reads = 0
        """Catch-ups that read the ledger (at a join, on a gap, after a refused append, periodically)."""
        self.carried = 0
        """Catch-ups made from the events notifications carried, without a read."""
        self.turns = 0
        """How many appends the ledger refused and this sidecar made again in turn."""
        self.passed = 0
        """Notifications of tables this sidecar has no connection at, passed on without decoding them."""
        self._tasks: list[asyncio.Task[None]] = []
        self._dirty: dict[str, asyncio.Task[None]] = {}
        self._want: dict[str, int | None] = {}
        self._carried: dict[str, list[Any]] = {}
        """Per table waiting for a catch-up: the highest head notified (None: read whatever there is)."""

    def attach(self, app: web.Application) -> None:
        self.hub.bus = self
        app.on_startup.append(self._start)
        app.on_cleanup.insert(0, self._stop)  # before the ledger closes

    async def _start(self, app: web.Application) -> None:
        self._tasks = [asyncio.create_task(self._listen()), asyncio.create_task(self._periodic())]

    async def _stop(self, app: web.Application) -> None:
        for task in [*self._tasks, *self._dirty.values()]:
            task.cancel()
        for task in [*self._tasks, *self._dirty.values()]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.ledger.aclose()

    # --- catching up --------------------------------------------------------------

    async def catch_up(self, hub: TableHub, rows: Any = None) -> int:
        """Apply and tell what the ledger holds beyond ``hub``'s head (or these rows of it, read under
        the table's lock); the caller holds ``hub.lock``."""
        table = hub.table
        if rows is None:
            self.reads += 1
            rows = await self.ledger.read_since(table.id, table.head)
        i = 0
        while i < len(rows):
            j = i + 1
            while j < len(rows) and rows[j].batch == rows[i].batch:
                j += 1
            pending = Pending([(r.seq, _dec.decode(r.data)) for r in rows[i:j]])
            rid = rows[i].request_id
            table.commit(pending)
            if rid is not None:
                hub.known.add(rid)
            await self.hub._fanout(hub, None, pending, _builder(pending, rid, table))
            i = j
        return len(rows)

    async def again(self, hub: TableHub, rid: str, role: str, prepare: Any) -> Any:
        """Prepare and append an action again, the table's row locked, after the ledger refused it.

        Returns the stored reply (a :class:`StoredRequest`) when another sidecar answered ``rid``
        first, else ``(pending, reply_msg, build, reply)`` of the action, committed."""
        self.turns += 1
        async with self.ledger.turn(hub.table.id, hub.table.head, rid) as turn:
            await self.catch_up(hub, turn.rows)
            if turn.stored is not None:
                hub.known.add(rid)
                return turn.stored
            pending, reply_msg, build = prepare()
            reply = codec.encode(reply_msg)
            await turn.append(pending.encoded(), (rid, role, reply))
        return pending, reply_msg, build, reply

    async def _catch_up_locked(self, table_id: str) -> None:
        hub = self.hub.tables[table_id]
        async with hub.lock:
            del self._dirty[table_id]  # a notification from now on schedules another catch-up
            want = self._want.pop(table_id, None)
            # The notification of this sidecar's own append often comes before the append's answer:
            # once the lock is ours that append is applied, and there is nothing to read.
            carried = self._carried.pop(table_id, [])
            if want is not None and hub.table.head >= want:
                return
            rows: list[Row] | None = [r for r in carried if r.seq > hub.table.head]
            if (
                not rows
                or rows[0].seq != hub.table.head + 1
                or rows[-1].seq - rows[0].seq + 1 != len(rows)
                or (want is not None and rows[-1].seq < want)
            ):
                rows = None  # a gap (a notification missed or too large to carry them): read
            else:
                self.carried += 1
            try:
                await self.catch_up(hub, rows)
            except Exception:  # the ledger is unreachable: the next notification or check tries again
                log.warning("catch_up_failed", table=table_id, exc_info=True)

    def heard(self, table_id: str) -> bool:
        """Whether this sidecar has a connection at ``table_id`` (only then are its events worth applying).

        A table whose lock is held counts: a join holds it from its catch-up read to the moment its
        connection is in, and what is committed meanwhile must reach the joiner."""
        hub = self.hub.tables.get(table_id)
        return hub is not None and (bool(hub.connections) or hub.lock.locked())

    def poke(self, table_id: str, head: int | None = None, rows: list[Any] | None = None) -> None:
        """Catch ``table_id`` up soon, if this sidecar has a connection at it and is behind ``head`` (None:
        look anyway); ``rows`` are events a notification carried (applied without a read when they follow
        the head)."""
        hub = self.hub.tables.get(table_id)
        if hub is None or not self.heard(table_id) or (head is not None and hub.table.head >= head):
            return
        if rows:
            self._carried.setdefault(table_id, []).extend(rows)
        if table_id in self._want:
            old = self._want[table_id]
            self._want[table_id] = None if head is None or old is None else max(old, head)
        else:
            self._want[table_id] = head
        if table_id not in self._dirty:
            self._dirty[table_id] = asyncio.create_task(self._catch_up_locked(table_id))

    async def check_all(self) -> None:
        """Compare every table this sidecar has connections at with the ledger's head; catch up those behind."""
        ids = [table_id for table_id in self.hub.tables if self.heard(table_id)]
        if not ids:
            return
        for table_id, head in (await self.ledger.heads(ids)).items():
            self.poke(table_id, head)

    # --- the loops ----------------------------------------------------------------

    async def _listen(self) -> None:
        attempt = 0
        while True:
            db = None
            try:
                db = await self.ledger.listener()
                self.listens += 1
                attempt = 0
                self.listening.set()
                await self.check_all()  # what was committed while nobody listened
                async for note in db.notifies():
                    if not self.heard(note.payload.partition(":")[0]):
                        self.passed += 1
                        continue
                    table_id, head, rows = parse_note(note.payload)
                    self.poke(table_id, head, rows)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning(
                    "bus_disconnected",
                    error=str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__,
                )
            finally:
                self.listening.clear()
                if db is not None:
                    with contextlib.suppress(Exception):
                        await db.close()
            await asyncio.sleep(RETRY[min(attempt, len(RETRY) - 1)])
            attempt += 1

    async def _periodic(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.check_all()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning(
                    "bus_check_failed",
                    error=str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__,
                )


ROLES: dict[str, m.Role] = {"gm": "gm", "player": "player", "observer": "observer"}
"""A role as the ledger stores it (a string, checked when the action was taken), as the protocol types it."""
MODES: dict[str, m.RollMode] = {"public": "public", "gm": "gm", "blind": "blind", "self": "self"}
"""A roll mode likewise."""


def _builder(pending: Pending, rid: str | None, table: Any) -> Build | None:
    """How the sidecar that committed the action built what each viewer hears of it (None: a GM op)."""
    ev = pending.events[0][1].event
    if isinstance(ev, t.RollEvent):
        pending.check_id = ev.check_id
        msg = m.Roll(
            id=client_request_id(rid) if rid else "",
            check=ev.check,
            actor=ev.actor,
            target=ev.target,
            scene=ev.scene,
            mode=MODES[ev.mode],
            label=ev.label,
            extended=ev.extended,
            gather=ev.gather,
            part=ev.part,
            user=ev.user,
        )

        def render(viewer: Any, requester: bool = False) -> Any:
            return _rolled(msg, pending, viewer, ROLES[ev.by], ev.user, table, requester)
    elif isinstance(ev, t.FollowEvent):
        pending.check_id = ev.check_id
        follow = m.Follow(id=client_request_id(rid) if rid else "", check=ev.check_id, action=ev.action, user=ev.user)

        def render(viewer: Any, requester: bool = False) -> Any:
            return _followed(follow, pending, viewer, ROLES[ev.by], ev.user, table, requester)
    else:
        return None
    # the roller's (whose visibility every event of the action follows, and to whom its follow-ups are open)
    return Build(render, owner=pending.events[0][1].owner, actor=None)
