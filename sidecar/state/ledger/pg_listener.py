"""How a sidecar hears of what others append to the PostgreSQL ledger: ``LISTEN``/``NOTIFY``, one channel a table.

Each table notifies on a channel of its own (:func:`channel`), from ``verdict_append_many`` as the appending
transaction commits; a sidecar listens only to the tables it has connections at, so another sidecar's commits
at other tables never reach it. A notification's payload is ``<table>:<head>:<first seq>:<events, base64,
comma-separated>:<request id>`` (:func:`parse_note`), or only ``<table>:<head>`` when the events do not fit,
or ``<table>:keys`` when the table's keys were rotated. :class:`PgListener` is the listening connection.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
from collections import deque

import psycopg

from .guard import BOUND, first_line, within
from .protocols import LedgerUnavailable, Row

CHANNEL = "verdict"
"""The prefix of each table's ``NOTIFY`` channel (:func:`channel`)."""

KEYS_NOTE = "keys"
"""What a notification says after the table's id when its keys were rotated (no head: :func:`parse_note` reads
none, and the bus looks at the table's keys)."""


def channel(table_id: str) -> str:
    """The ``NOTIFY`` channel of one table: ``verdict_`` and the MD5 of its id (UTF-8) in hex, as
    ``verdict_append_many`` names it. Safe for any id (a channel is an identifier of at most 63 bytes);
    two ids that share a channel only wake each other's listeners, who read the table id in the payload."""
    return f"{CHANNEL}_{hashlib.md5(table_id.encode(), usedforsecurity=False).hexdigest()}"


def channel_sql(table_id: str) -> str:
    """The table's channel as ``LISTEN`` and ``UNLISTEN`` take it: a quoted identifier."""
    return '"' + channel(table_id) + '"'  # hex digits and an underscore: nothing to escape


def parse_note(payload: str) -> tuple[str, int | None, list[Row]]:
    """A notification's table, head and the rows it carries (none when it carries only the head)."""
    parts = payload.split(":", 4)
    table_id = parts[0]
    try:
        head = int(parts[1])
    except (IndexError, ValueError):
        return table_id, None, []
    if len(parts) < 5:
        return table_id, head, []
    try:
        first = int(parts[2])
        data = [base64.b64decode(x) for x in parts[3].split(",")]
    except ValueError:
        return table_id, head, []
    rid = parts[4] or None
    return table_id, head, [Row(first + i, first, d, rid if i == 0 else None) for i, d in enumerate(data)]


class PgListener:
    """The listening connection: notifications read off its socket as they arrive, without a statement
    in flight (libpq's ``PQconsumeInput`` and ``PQnotifies``, as psycopg's own ``notifies()`` does),
    and ``LISTEN``/``UNLISTEN`` sent between reads, in the order asked, several in one round trip."""

    def __init__(self, db: psycopg.AsyncConnection) -> None:
        self.db = db
        self._fd = db.fileno()
        self._encoding = db.info.encoding
        self._ready: deque[str] = deque()
        self._wake: asyncio.Future[None] | None = None
        self._error: BaseException | None = None
        self._asked: list[tuple[str, asyncio.Future[None]]] = []
        self._sending: asyncio.Task[None] | None = None
        self._loop = asyncio.get_running_loop()
        # what psycopg reads while a command runs, it hands here
        db.add_notify_handler(lambda n: self._arrived(n.payload))
        self._loop.add_reader(self._fd, self._readable)

    def _arrived(self, payload: str) -> None:
        self._ready.append(payload)
        self._wakeup()

    def _wakeup(self) -> None:
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)

    def _readable(self) -> None:
        pgconn = self.db.pgconn
        try:
            pgconn.consume_input()
        except psycopg.Error as exc:
            self._fail(exc)
            return
        while (n := pgconn.notifies()) is not None:
            self._ready.append(n.extra.decode(self._encoding))
        if self._ready:
            self._wakeup()

    def _fail(self, exc: BaseException) -> None:
        if self._error is None:
            self._error = exc
        self._loop.remove_reader(self._fd)
        self._wakeup()

    async def payloads(self) -> list[str]:
        """The payloads arrived since the last call, waiting for one; raises what broke the connection."""
        while not self._ready:
            if isinstance(self._error, LedgerUnavailable):
                raise self._error
            if self._error is not None:
                raise LedgerUnavailable(f"the PostgreSQL ledger stopped notifying: {first_line(self._error)}")
            self._wake = self._loop.create_future()
            await self._wake
        out = list(self._ready)
        self._ready.clear()
        return out

    def command(self, sql: str) -> asyncio.Future[None]:
        """Send ``sql`` (``LISTEN``, ``UNLISTEN``) after whatever was asked before; done once answered."""
        fut: asyncio.Future[None] = self._loop.create_future()
        fut.add_done_callback(_seen)  # an UNLISTEN's outcome is nobody's to await
        if self._error is not None:
            fut.set_exception(LedgerUnavailable("the PostgreSQL ledger's listening connection broke"))
            return fut
        self._asked.append((sql, fut))
        if self._sending is None:
            self._sending = self._loop.create_task(self._send())
        return fut

    async def _send(self) -> None:
        try:
            while self._asked and self._error is None:
                asked, self._asked = self._asked, []
                self._loop.remove_reader(self._fd)  # psycopg reads the socket itself while the statement runs
                try:
                    await within(self.db.execute(" ".join(sql.rstrip(";") + ";" for sql, _ in asked)), BOUND)
                except (TimeoutError, psycopg.Error, OSError) as exc:
                    self._fail(exc)
                    for _, fut in asked:
                        if not fut.done():
                            fut.set_exception(LedgerUnavailable(f"listening failed: {first_line(exc)}"))
                    break
                self._loop.add_reader(self._fd, self._readable)
                self._readable()  # what came with the answer
                for _, fut in asked:
                    if not fut.done():
                        fut.set_result(None)
        finally:
            self._sending = None
            for _, fut in self._asked:
                if not fut.done():
                    fut.set_exception(LedgerUnavailable("the PostgreSQL ledger's listening connection broke"))
            if self._error is not None:
                self._asked = []

    def close(self) -> None:
        if self._error is None:
            self._error = LedgerUnavailable("the listening connection was closed")
        self._loop.remove_reader(self._fd)
        if self._sending is not None:
            self._sending.cancel()
        for _, fut in self._asked:
            if not fut.done():
                fut.set_exception(LedgerUnavailable("the PostgreSQL ledger's listening connection was closed"))
        self._asked = []
        self._wakeup()


def _seen(fut: asyncio.Future[None]) -> None:
    if not fut.cancelled():
        fut.exception()


def _channel_sql(table_id: str) -> str:
    """The table's channel as ``LISTEN`` and ``UNLISTEN`` take it: a quoted identifier."""
    return '"' + channel(table_id) + '"'  # hex digits and an underscore: nothing to escape
