"""The bus between sidecars that share a ledger: any sidecar serves any table.

A sidecar that commits an action notifies (the PostgreSQL ledger does, in the committing transaction). A
ledger that others share says so by having the :class:`~sidecar.state.ledger.Listening` capability, which the
bus looks for once, when it is made; an embedded ledger has nobody else to hear, and the bus then only
checks keys periodically. Every sidecar listens; for each table it holds, a notification of a head beyond its
own makes it read the new events from the ledger in seq order, apply them to its projection and
tell its own connections exactly what it would have told them had the action been its own: a
``rolled`` or ``followed`` (with the request id) for a roll or a follow-up, an ``event`` per
visible event for a GM operation, rendered from the stored events by :mod:`sidecar.state.hearing`
(:meth:`Hub.tell`).

A sidecar pays for the events of the tables its sockets are at, and for nothing else. With the PostgreSQL
ledger each table notifies on a channel of its own, and a sidecar listens only to the tables it has
connections at: a join listens before it reads what it missed (:meth:`Bus.follow`, from
:meth:`Hub.refresh`), so every later commit is notified, and each periodic check stops listening to the
tables nobody is connected to any more (:meth:`Bus.check_all`). Another sidecar's commits at other tables
never reach this one. A notification of a table listened to but left (until that check) is passed on
undecoded, and such a table is not checked periodically either; a table held without connections is
brought up to date by the next join's read. (With the proxy routing a table's sockets to one sidecar, the
others never hear of its events: a roll's cost stays flat in the number of sidecars; see
docs/architecture/several-sidecars.md.)

Notifications are only a hint. A sidecar that missed some (its listening connection dropped, the
network blipped) catches up by seq: every table it holds when the listening connection comes back,
every ``interval`` seconds in any case, before welcoming a client, and in a turn the ledger takes after
refusing an append because the table had moved on (the events it hands the hub's writer, under the
table's row lock).

Keys rotated by any process on the ledger end the sessions let in with the old ones (:meth:`Hub.check_keys`):
each periodic check looks at the keys of the tables this sidecar has connections at (one read for all, every
``interval`` seconds: the bound on an embedded ledger), and a PostgreSQL rotation also notifies the table's
channel, so every sidecar with sessions there looks at once. Nothing of it is on a request's path.
"""

from __future__ import annotations

import asyncio
import contextlib

import structlog
from aiohttp import web

from sidecar import config
from sidecar.state import hearing
from sidecar.state.ledger import LedgerUnavailable, Listening, Row, ServingLedger
from sidecar.state.table import Pending, decode_stored

from .hub import HeldTable, Hub, client_request_id

log = structlog.get_logger("verdict.bus")

INTERVAL = config.BUS_CHECK_EVERY
RETRY = config.BUS_RETRY


class Bus:
    def __init__(self, hub: Hub, ledger: ServingLedger, interval: float = INTERVAL) -> None:
        self.hub = hub
        self.ledger = ledger
        self.listener: Listening | None = ledger if isinstance(ledger, Listening) else None
        """The ledger's listening capability (a shared ledger's), or None: an embedded one has nobody to hear."""
        self.interval = interval
        self.listening = asyncio.Event()
        """Set while the listening connection is up (tests wait on it)."""
        self.listens = 0
        """How many times the listening connection was (re)established."""
        self.reads = 0
        """Catch-ups that read the ledger (at a join, on a gap, after a refused append, periodically)."""
        self.carried = 0
        """Catch-ups made from the events notifications carried, without a read."""
        self.passed = 0
        """Notifications of tables this sidecar has no connection at, passed on without decoding them."""
        self.unlistened = 0
        """Tables this sidecar stopped listening to, nobody being connected to them here any more."""
        self._tasks: list[asyncio.Task[None]] = []
        self._dirty: dict[str, asyncio.Task[None]] = {}
        self._want: dict[str, int | None] = {}
        self._carried: dict[str, list[Row]] = {}
        """Per table waiting for a catch-up: the highest head notified (None: read whatever there is)."""
        self._keys: dict[str, asyncio.Task[None]] = {}
        """Per table, a look at its keys a notification asked for, while it runs."""

    def attach(self, app: web.Application) -> None:
        self.hub.bus = self
        app.on_startup.append(self._start)
        app.on_cleanup.insert(0, self._stop)  # before the ledger closes

    async def _start(self, app: web.Application) -> None:
        self._tasks = [asyncio.create_task(self._periodic())]
        if self.listener is not None:
            self._tasks.append(asyncio.create_task(self._listen(self.listener)))

    async def _stop(self, app: web.Application) -> None:
        for task in [*self._tasks, *self._dirty.values(), *self._keys.values()]:
            task.cancel()
        for task in [*self._tasks, *self._dirty.values(), *self._keys.values()]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.ledger.aclose()

    # --- catching up --------------------------------------------------------------

    async def follow(self, held: HeldTable) -> None:
        """Listen to the table's notifications before a join reads what it missed, so that whatever is
        committed after that read is notified here (and whatever before, read); a table listened to already
        costs nothing. The caller holds ``held.lock``, which keeps the table from being let go meanwhile."""
        if self.listener is not None:
            await self.listener.listen(held.table.id)

    def let_go(self) -> None:
        """Stop listening to the tables this sidecar has no connection at any more (none held, or held
        without connections): their commits then wake it no longer. A join listens again first."""
        if self.listener is None:
            return
        for table_id in self.listener.listened:
            if not self.heard(table_id):
                self.listener.unlisten(table_id)
                self.unlistened += 1

    async def catch_up(self, held: HeldTable, rows: list[Row] | None = None) -> int:
        """Apply and tell what the ledger holds beyond ``held``'s head (or these rows of it, read under
        the table's lock); the caller holds ``held.lock``."""
        table = held.table
        if rows is None:
            self.reads += 1
            rows = await self.ledger.read_rows(table.id, table.head)
        i = 0
        while i < len(rows):
            j = i + 1
            while j < len(rows) and rows[j].batch == rows[i].batch:
                j += 1
            pending = Pending([(r.seq, decode_stored(r.data)) for r in rows[i:j]])
            rid = rows[i].request_id
            await table.commit_read(pending)
            if rid is not None:
                held.known.add(rid)
            await self.hub.tell(held, hearing.Action(pending, client_request_id(rid) if rid else ""))
            i = j
        return len(rows)

    async def _catch_up_locked(self, table_id: str) -> None:
        held = self.hub.tables[table_id]
        async with held.lock:
            del self._dirty[table_id]  # a notification from now on schedules another catch-up
            want = self._want.pop(table_id, None)
            # The notification of this sidecar's own append often comes before the append's answer:
            # once the lock is ours that append is applied, and there is nothing to read.
            carried = self._carried.pop(table_id, [])
            if want is not None and held.table.head >= want:
                return
            rows: list[Row] | None = [r for r in carried if r.seq > held.table.head]
            if (
                not rows
                or rows[0].seq != held.table.head + 1
                or rows[-1].seq - rows[0].seq + 1 != len(rows)
                or (want is not None and rows[-1].seq < want)
            ):
                rows = None  # a gap (a notification missed or too large to carry them): read
            else:
                self.carried += 1
            try:
                await self.catch_up(held, rows)
            except LedgerUnavailable as exc:  # the next notification or check tries again
                log.warning("catch_up_failed", table=table_id, error=str(exc))
            except Exception:
                log.exception("catch_up_failed", table=table_id)

    def heard(self, table_id: str) -> bool:
        """Whether this sidecar has a connection at ``table_id`` (only then are its events worth applying).

        A table whose lock is held counts: a join holds it from its catch-up read to the moment its
        connection is in, and what is committed meanwhile must reach the joiner."""
        held = self.hub.tables.get(table_id)
        return held is not None and (bool(held.connections) or held.lock.locked())

    def _wanted(self, table_id: str) -> bool:
        """Whether a notification of ``table_id`` is worth decoding (counted when it is not)."""
        if self.heard(table_id):
            return True
        self.passed += 1
        return False

    def poke(self, table_id: str, head: int | None = None, rows: list[Row] | None = None) -> None:
        """Catch ``table_id`` up soon, if this sidecar has a connection at it and is behind ``head`` (None:
        look anyway); ``rows`` are events a notification carried (applied without a read when they follow
        the head)."""
        held = self.hub.tables.get(table_id)
        if held is None or not self.heard(table_id) or (head is not None and held.table.head >= head):
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
        """Compare every table this sidecar has connections at with the ledger's head; catch up those behind.
        Stop listening to the others first."""
        self.let_go()
        ids = [table_id for table_id in self.hub.tables if self.heard(table_id)]
        if not ids:
            return
        for table_id, head in (await self.ledger.heads(ids)).items():
            self.poke(table_id, head)
        with contextlib.suppress(LedgerUnavailable):  # the guard says the store is down; the next check looks again
            await self.hub.check_keys(ids)

    def keys_soon(self, table_id: str) -> None:
        """Look at the table's keys now (a notification said they may have changed), once at a time."""
        if table_id in self._keys or not self.heard(table_id):
            return

        async def look() -> None:
            try:
                await self.hub.check_keys([table_id])
            except LedgerUnavailable as exc:  # the periodic check looks again
                log.warning("keys_check_failed", table=table_id, error=str(exc))
            finally:
                del self._keys[table_id]

        self._keys[table_id] = asyncio.create_task(look())

    # --- the loops ----------------------------------------------------------------

    async def _listen(self, listener: Listening) -> None:
        attempt = 0

        async def listening() -> None:
            nonlocal attempt
            self.listens += 1
            attempt = 0
            self.listening.set()
            await self.check_all()  # what was committed while nobody listened

        while True:
            notes = listener.notes(listening, self._wanted)
            try:
                async for table_id, head, rows in notes:
                    self.poke(table_id, head, rows)
                    if head is None:  # no head: the table changed otherwise (its keys rotated, say)
                        self.keys_soon(table_id)
                return  # the notes ended: the ledger stopped listening for good
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning(
                    "bus_disconnected",
                    error=str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__,
                )
            finally:
                self.listening.clear()
                with contextlib.suppress(Exception):
                    await notes.aclose()
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
