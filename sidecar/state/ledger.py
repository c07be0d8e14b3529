"""The ledger: where tables and their events are stored.

:class:`Ledger` is the small interface everything above ``state/`` relies on: append a
batch of events atomically (with the reply of the request that caused them, for
idempotency), read events since a seq, manage tables and their keys.
:class:`SqliteLedger` is the embedded default: one SQLite file in WAL mode with
``synchronous=FULL`` that commits concurrent appends together (group commit), so an event is on
disk before anyone is told of it. The appends of one turn of the event loop share a commit; it runs
on the loop's own thread (``commit="loop"``: no hand-off), on a writer thread of its own
(``commit="thread"``: the loop goes on during the fsync), or, by default (``commit="auto"``), on the
loop when the turn brought a single append and the writer is idle (one client: no hand-off), and on
the writer thread when several share it or the writer is still busy (under load: the loop keeps
reading and preparing while the disk syncs).
:class:`~sidecar.state.ledger_pg.PostgresLedger` (``--ledger postgresql://...``) is the same interface
over a database that several sidecars share; its appends may raise :class:`Behind`.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import queue
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    gm_hash TEXT NOT NULL,
    player_hash TEXT NOT NULL,
    observer_hash TEXT NOT NULL,
    created REAL NOT NULL,
    user_secret TEXT
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data BLOB NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS requests (
    table_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    role TEXT NOT NULL,
    reply BLOB NOT NULL,
    PRIMARY KEY (table_id, request_id)
) WITHOUT ROWID;
"""

ROLES = ("gm", "player", "observer")

Action = tuple[list[tuple[int, bytes]], "tuple[str, str, bytes] | None"]
"""An action as a ledger appends it: its events (seq, encoded) and its request (id, role, reply), if any."""


def hash_key(key: str) -> str:
    # Keys are 192-bit random tokens, so a plain SHA-256 is enough: no dictionary to attack.
    return hashlib.sha256(key.encode()).hexdigest()


def new_key() -> str:
    return secrets.token_urlsafe(24)


def new_table(name: str) -> tuple[TableKeys, tuple[str, str, str, str, str, float, str]]:
    """A new table's keys (shown once) and its row as every ledger stores it: id, name, the three keys'
    hashes, the creation time and the secret the user keys derive from."""
    table_id = secrets.token_hex(4)
    keys = TableKeys(table_id, new_key(), new_key(), new_key())
    row = (
        table_id,
        name,
        hash_key(keys.gm),
        hash_key(keys.player),
        hash_key(keys.observer),
        time.time(),
        secrets.token_hex(32),
    )
    return keys, row


@dataclass(frozen=True)
class TableInfo:
    id: str
    name: str
    created: float


@dataclass(frozen=True)
class TableKeys:
    table: str
    gm: str
    player: str
    observer: str


@dataclass(frozen=True)
class StoredRequest:
    role: str
    reply: bytes


class Behind(Exception):
    """An append refused because the table moved on in a ledger that several sidecars share.

    Another sidecar appended to the table first, or already took the request id: nothing of the
    batch was stored. The caller reads the events it missed and prepares the action again (or
    answers from the stored reply). An embedded ledger, with one writer, never raises it."""

    def __init__(self, table_id: str, head: int) -> None:
        super().__init__(f"table {table_id} is at seq {head} in the ledger")
        self.table_id = table_id
        self.head = head


class Ledger(Protocol):
    """What the sidecar needs from storage: reads are synchronous, appends asynchronous.

    A ledger that other sidecars append to as well says so with ``shared = True`` (the server then
    runs its bus), may refuse an append with :class:`Behind`, and offers ``read_since``, ``heads``,
    ``turn``, ``listener`` and ``aclose`` (see :mod:`sidecar.state.ledger_pg`)."""

    def create_table(self, name: str) -> TableKeys: ...
    def rotate_keys(self, table_id: str) -> TableKeys: ...
    def tables(self) -> list[TableInfo]: ...
    def table(self, table_id: str) -> TableInfo | None: ...
    def role_for(self, table_id: str, key: str) -> str | None: ...
    def user_secret(self, table_id: str) -> bytes | None:
        """The table's secret that per-user keys are derived from (made on first use; replaced by rotate_keys)."""
        ...

    def events(self, table_id: str, since: int = 0, upto: int | None = None) -> list[tuple[int, bytes]]:
        """The events after ``since`` (up to ``upto``, if given), in seq order."""
        ...

    def request(self, table_id: str, request_id: str) -> StoredRequest | None: ...
    def request_ids(self, table_id: str) -> list[str]: ...
    async def append(
        self, table_id: str, events: list[tuple[int, bytes]], request: tuple[str, str, bytes] | None
    ) -> None: ...
    async def append_actions(self, table_id: str, actions: list[Action]) -> None:
        """Append several actions of a table in order: in one transaction on a ledger of one's own (all
        durable, or none stored); on a shared one, each in its own, stopping at a refusal (:class:`Behind`)."""
        ...

    def append_sync(
        self, table_id: str, events: list[tuple[int, bytes]], request: tuple[str, str, bytes] | None
    ) -> None: ...
    def close(self) -> None: ...


def open_ledger(url: str | None, data: Path) -> Ledger:
    """The ledger a ``--ledger`` value names: empty for SQLite in ``data``, ``sqlite:PATH``, or ``postgresql://...``."""
    if not url:
        return SqliteLedger(data / "verdict.sqlite3")
    if url.startswith("sqlite:"):
        return SqliteLedger(Path(url.removeprefix("sqlite:").removeprefix("//")))
    if url.startswith(("postgresql://", "postgres://")):
        from .ledger_pg import PostgresLedger  # needs the optional extra verdict[postgres]

        return PostgresLedger(url)
    raise ValueError(f"unknown ledger {url.split(':', 1)[0]!r}: use postgresql://USER:PASSWORD@HOST/DB or sqlite:PATH")


class SqliteLedger:
    """The embedded ledger: ``<data>/verdict.sqlite3`` in WAL mode."""

    COMMITS = ("auto", "loop", "thread")

    def __init__(self, path: str | Path, synchronous: str = "FULL", commit: str = "auto") -> None:
        """``commit="loop"`` commits on the event loop's thread, once per turn of the loop for all the
        appends of that turn: no hand-off to another thread and back, at the price of the loop waiting
        for the fsync. ``commit="thread"`` commits on a writer thread while the loop goes on, and wakes
        the loop through its self-pipe. ``commit="auto"`` takes the first for a lone append while the
        writer is idle and the second otherwise. Only one of the two commits at any time."""
        if commit not in self.COMMITS:
            raise ValueError(f"commit must be one of {', '.join(self.COMMITS)}, not {commit!r}")
        self.commit = commit
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._synchronous = synchronous
        self._read = self._connect()
        self._read.executescript(SCHEMA)
        columns = {row[1] for row in self._read.execute("PRAGMA table_info(tables)")}
        if "user_secret" not in columns:  # a ledger from before per-user keys
            self._read.execute("ALTER TABLE tables ADD COLUMN user_secret TEXT")
        self._queue: queue.SimpleQueue[tuple[Any, ...] | None] = queue.SimpleQueue()
        self._writer: threading.Thread | None = None
        self._lock = threading.Lock()
        self._closed = False
        self._pending: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[None], list[tuple[Any, ...]]]]] = {}
        self._wdb: sqlite3.Connection | None = None
        self._inflight = 0
        """Appends handed to the writer thread and not yet settled (read and written on the loop's thread)."""

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={self._synchronous}")
        db.execute("PRAGMA busy_timeout=5000")
        return db

    # --- tables -------------------------------------------------------------------

    def create_table(self, name: str) -> TableKeys:
        keys, row = new_table(name)
        with self._lock:
            self._read.execute(
                "INSERT INTO tables (id, name, gm_hash, player_hash, observer_hash, created, user_secret)"
                " VALUES (?,?,?,?,?,?,?)",
                row,
            )
        return keys

    def rotate_keys(self, table_id: str) -> TableKeys:
        keys = TableKeys(table_id, new_key(), new_key(), new_key())
        with self._lock:
            cur = self._read.execute(
                "UPDATE tables SET gm_hash=?, player_hash=?, observer_hash=?, user_secret=? WHERE id=?",
                (hash_key(keys.gm), hash_key(keys.player), hash_key(keys.observer), secrets.token_hex(32), table_id),
            )
        if cur.rowcount == 0:
            raise KeyError(table_id)
        return keys

    def tables(self) -> list[TableInfo]:
        with self._lock:
            rows = self._read.execute("SELECT id, name, created FROM tables ORDER BY created").fetchall()
        return [TableInfo(*r) for r in rows]

    def table(self, table_id: str) -> TableInfo | None:
        with self._lock:
            row = self._read.execute("SELECT id, name, created FROM tables WHERE id=?", (table_id,)).fetchone()
        return TableInfo(*row) if row else None

    def role_for(self, table_id: str, key: str) -> str | None:
        with self._lock:
            row = self._read.execute(
                "SELECT gm_hash, player_hash, observer_hash FROM tables WHERE id=?", (table_id,)
            ).fetchone()
        if row is None:
            return None
        h = hash_key(key)
        for role, stored in zip(ROLES, row):
            if hmac.compare_digest(h, stored):
                return role
        return None

    def user_secret(self, table_id: str) -> bytes | None:
        with self._lock:
            row = self._read.execute("SELECT user_secret FROM tables WHERE id=?", (table_id,)).fetchone()
            if row is None:
                return None
            if row[0] is None:  # a table made before per-user keys: give it its secret now
                self._read.execute(
                    "UPDATE tables SET user_secret=? WHERE id=? AND user_secret IS NULL",
                    (secrets.token_hex(32), table_id),
                )
                row = self._read.execute("SELECT user_secret FROM tables WHERE id=?", (table_id,)).fetchone()
        return bytes.fromhex(row[0])

    # --- events -------------------------------------------------------------------

    def events(self, table_id: str, since: int = 0, upto: int | None = None) -> list[tuple[int, bytes]]:
        with self._lock:
            if upto is None:
                return self._read.execute(
                    "SELECT seq, data FROM events WHERE table_id=? AND seq>? ORDER BY seq", (table_id, since)
                ).fetchall()
            return self._read.execute(
                "SELECT seq, data FROM events WHERE table_id=? AND seq>? AND seq<=? ORDER BY seq",
                (table_id, since, upto),
            ).fetchall()

    def request_ids(self, table_id: str) -> list[str]:
        with self._lock:
            return [r for (r,) in self._read.execute("SELECT request_id FROM requests WHERE table_id=?", (table_id,))]

    def request(self, table_id: str, request_id: str) -> StoredRequest | None:
        with self._lock:
            row = self._read.execute(
                "SELECT role, reply FROM requests WHERE table_id=? AND request_id=?", (table_id, request_id)
            ).fetchone()
        return StoredRequest(*row) if row else None

    def _write(self, db: sqlite3.Connection, batch: Iterable[tuple[Any, ...]]) -> None:
        now = time.time()
        events: list[object] = []
        requests: list[object] = []
        for table_id, evs, request in batch:
            for seq, data in evs:
                events += (table_id, seq, data, now)
            if request is not None:
                requests += (table_id, *request)
        db.execute("BEGIN IMMEDIATE")
        try:
            # A few multi-row statements, not a statement per row: each statement is a trip out of
            # and back into the GIL, and the loop thread holds the GIL most of the time under load.
            _insert(db, "INSERT INTO events (table_id, seq, data, created) VALUES ", events)
            _insert(db, "INSERT OR IGNORE INTO requests (table_id, request_id, role, reply) VALUES ", requests)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def append_sync(
        self, table_id: str, events: list[tuple[int, bytes]], request: tuple[str, str, bytes] | None
    ) -> None:
        """Append on the caller's thread (CLI, tests)."""
        with self._lock:
            self._write(self._read, [(table_id, events, request)])

    async def append(
        self, table_id: str, events: list[tuple[int, bytes]], request: tuple[str, str, bytes] | None
    ) -> None:
        """Append atomically; returns once the events are durable. Concurrent appends share a commit."""
        await self.append_actions(table_id, [(events, request)])

    async def append_actions(self, table_id: str, actions: list[Action]) -> None:
        """Append several actions of a table, in order, atomically: all durable when this returns, or none.

        Concurrent appends share a commit."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        pending = self._pending.get(loop)
        if pending is None:  # the first append of this turn: commit them all once the turn's work is done
            pending = self._pending[loop] = []
            loop.call_soon(self._flush, loop)
        pending.append((fut, [(table_id, events, request) for events, request in actions]))
        await fut

    def _flush(self, loop: asyncio.AbstractEventLoop, direct: bool = False) -> None:
        """Commit every append of the loop's last turn in one transaction, then settle their futures.

        ``call_soon`` runs this after the callbacks already due, so all the appends that the turn's
        reads led to share the commit (and its fsync)."""
        items = self._pending.pop(loop, [])
        if not items:
            return
        if not direct and (self.commit == "thread" or (self.commit == "auto" and (len(items) > 1 or self._inflight))):
            if self._writer is None:
                self._writer = threading.Thread(target=self._write_loop, name="verdict-ledger", daemon=True)
                self._writer.start()
            self._inflight += len(items)
            for fut, works in items:
                self._queue.put((loop, fut, works))
            return
        # Here the writer thread is idle (nothing in flight), so this is the only commit under way.
        error: BaseException | None = None
        try:
            if self._wdb is None:
                self._wdb = self._connect()
            self._write(self._wdb, [work for _, works in items for work in works])
        except BaseException as exc:  # the whole batch failed; every waiter hears it
            error = exc
        for fut, _ in items:
            _settle(fut, error)

    def _settled(self, futs: list[asyncio.Future[None]], error: BaseException | None) -> None:
        """On the loop's thread: the writer committed (or failed) these appends."""
        self._inflight -= len(futs)
        _settle_all(futs, error)

    def _write_loop(self) -> None:
        db = self._connect()
        while True:
            item = self._queue.get()
            if item is None:
                break
            items = [item]
            stop = False
            while True:  # take everything already waiting: one transaction, one fsync
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    stop = True
                    break
                items.append(nxt)
            error: BaseException | None = None
            try:
                self._write(db, [work for _, _, works in items for work in works])
            except BaseException as exc:  # the whole batch failed; every waiter hears it
                error = exc
            # One wake-up per event loop, not per append: each is a write to the loop's self-pipe.
            by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}
            for loop, fut, _ in items:
                by_loop.setdefault(loop, []).append(fut)
            for loop, futs in by_loop.items():
                loop.call_soon_threadsafe(self._settled, futs, error)
            if stop:
                break
        db.close()

    def close(self) -> None:
        """Finish the pending writes and close; closing twice is harmless."""
        for loop in list(self._pending):
            self._flush(loop, direct=True)
        if self._wdb is not None:
            self._wdb.close()
            self._wdb = None
        if self._writer is not None:
            self._queue.put(None)
            self._writer.join(timeout=10)
            self._writer = None
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._read.execute("PRAGMA wal_checkpoint(PASSIVE)")
            self._read.close()


_ROWS = 200
"""Rows per INSERT: 4 parameters each stays under SQLite's oldest limit of 999 variables."""


def _insert(db: sqlite3.Connection, head: str, flat: list[object]) -> None:
    """Insert rows of 4 values given flat, ``_ROWS`` rows per statement."""
    step = 4 * _ROWS
    for i in range(0, len(flat), step):
        chunk = flat[i : i + step]
        db.execute(head + ",".join(["(?,?,?,?)"] * (len(chunk) // 4)), chunk)


def _settle_all(futs: list[asyncio.Future[None]], error: BaseException | None) -> None:
    for fut in futs:
        _settle(fut, error)


def _settle(fut: asyncio.Future[None], error: BaseException | None) -> None:
    if fut.done():
        return
    if error is None:
        fut.set_result(None)
    else:
        fut.set_exception(error)
