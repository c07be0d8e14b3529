"""The embedded ledger: one SQLite file of a data folder, in WAL mode with ``synchronous=FULL``.

It commits concurrent appends together (group commit), so an event is on disk before anyone is told of it.
The appends of one turn of the event loop share a commit, on a writer thread of its own: the loop goes on
during the fsync, and a disk that stops answering (frozen, a stalled network disk) holds up that thread,
never the loop (``commit="loop"`` commits on the loop's own thread instead, for measurements only). Its
serving reads, snapshots and prunes run on a reader thread of their own. Before each batch, and every
:data:`FILE_CHECK_EVERY` seconds while serving, it checks that the files at its paths (the ledger, its
write-ahead log and the log's index) are still the files it has open: a ledger deleted or replaced under it
refuses, and what its write-ahead log held is first saved into the ledger file (:meth:`SqliteLedger._lose`).

Nobody else appends to a file of this host's: the ledger has no :class:`~.protocols.Listening`, its
:meth:`~SqliteLedger.read_rows` and :meth:`~SqliteLedger.heads` answer none, and a turn
(:meth:`~SqliteLedger.write`) is one atomic append after the head it was prepared on.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import structlog

from .check_index import check_ids
from .guard import Guard, first_line, within
from .protocols import Access, Action, LedgerUnavailable, Request, Row, StoredRequest, TableInfo, TableKeys, Writer
from .request_window import RequestWindow
from .table_keys import new_keys, new_secret, new_table, role_of

log = structlog.get_logger("verdict.ledger")

FILE_CHECK_EVERY = 1.0
"""Seconds between a serving SQLite ledger's looks at its files when no append looks (three ``stat`` calls,
off the loop): a write-ahead log deleted under an idle sidecar is saved within about this long."""
RESTORE = "if it then fails to open, restore the ledger from a backup (`verdict restore`)"
"""What a refusal about the ledger's files tells the operator to do last."""

T = TypeVar("T")

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
    requester TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL DEFAULT 0,
    seq INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (table_id, request_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
    table_id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    version TEXT NOT NULL,
    data BLOB NOT NULL,
    created REAL NOT NULL
) WITHOUT ROWID;
"""
CHECK_INDEX = """
CREATE TABLE check_events (
    table_id TEXT NOT NULL,
    check_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (table_id, check_id, seq)
) WITHOUT ROWID
"""
"""The check index (:func:`~.check_index.check_ids`): made in the transaction that indexes what the ledger
holds, so that a ledger holds it only once it is whole."""
DROPPED_INDEXES = """
DROP INDEX IF EXISTS requests_by_requester;
DROP INDEX IF EXISTS requests_by_age;
"""
"""Two indexes of the request window that a ledger file may hold: each would cost every append a B-tree
insert of the request's key, where what they would serve needs none. A table's window is read once, when it
is loaded, from the rows its primary key already groups (a bounded window: at most ``count`` a requester,
once pruned); the prune is a scan of the requests every round of housekeeping, off the request path.
Dropped at open; nothing they held is lost."""


class SqliteLedger:
    """The embedded ledger: ``<data>/verdict.sqlite3`` in WAL mode."""

    COMMITS = ("thread", "loop")

    def __init__(self, path: str | Path, synchronous: str = "FULL", commit: str = "thread") -> None:
        """``commit="thread"`` (the default) commits on a writer thread while the loop goes on, and wakes
        the loop through its self-pipe: a disk that stops answering holds up that thread, and the loop
        refuses the append once :data:`BOUND` has passed. ``commit="loop"`` commits on the event loop's
        thread, once per turn of the loop for all the appends of that turn: no hand-off, at the price of
        the loop waiting for the fsync, and for as long as a frozen disk does (for measurements only)."""
        if commit not in self.COMMITS:
            raise ValueError(f"commit must be one of {', '.join(self.COMMITS)}, not {commit!r}")
        self.commit = commit
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._synchronous = synchronous
        self._read = self._connect()
        self._identity = _identity(self.path)
        """The device and inode of the file opened: a file at the path that is not this one is not the ledger."""
        indexed = self._read.execute("SELECT 1 FROM sqlite_master WHERE name='check_events'").fetchone()
        self._read.executescript(SCHEMA)
        if indexed is None:  # a ledger from before the check index (or a new one): index what it holds
            self._index_checks()
        columns = {row[1] for row in self._read.execute("PRAGMA table_info(tables)")}
        if "user_secret" not in columns:  # a ledger from before per-user keys
            self._read.execute("ALTER TABLE tables ADD COLUMN user_secret TEXT")
        columns = {row[1] for row in self._read.execute("PRAGMA table_info(requests)")}
        if "created" not in columns:  # a ledger from before the request window: its ids count from now
            for column in (
                "requester TEXT NOT NULL DEFAULT ''",
                "created REAL NOT NULL DEFAULT 0",
                "seq INTEGER NOT NULL DEFAULT 0",
            ):
                self._read.execute(f"ALTER TABLE requests ADD COLUMN {column}")
            self._read.execute("UPDATE requests SET created=?", (time.time(),))
        self._read.executescript(DROPPED_INDEXES)
        self._logs = {suffix: _identity(Path(f"{self.path}{suffix}")) for suffix in ("-wal", "-shm")}
        """The device and inode of the write-ahead log and its index opened with the ledger (SQLite keeps them
        while a connection is open): one deleted or replaced holds commits nobody else will read."""
        self._lost: str | None = None
        """Why the ledger refuses every write for good (its write-ahead log was lost), once it does."""
        self._losing = threading.Lock()
        self._watching: asyncio.AbstractEventLoop | None = None
        self.window = RequestWindow()
        self._queue: queue.SimpleQueue[tuple[Any, ...] | None] = queue.SimpleQueue()
        self._writer: threading.Thread | None = None
        self._lock = threading.Lock()
        self._closed = False
        self._pending: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[None], list[tuple[Any, ...]]]]] = {}
        self._wdb: sqlite3.Connection | None = None
        self._inflight = 0
        """Appends handed to the writer thread and not yet settled (read and written on the loop's thread)."""
        self._reader: concurrent.futures.ThreadPoolExecutor | None = None
        self.guard = Guard("ledger", (sqlite3.Error, OSError), self._probe)

    def _index_checks(self) -> None:
        """Make the check index and index every event stored, once, in one transaction (a ledger from before
        the index; a new one holds none)."""
        rows = 0
        self._read.execute("BEGIN IMMEDIATE")
        try:
            # made here, not with the schema: an indexing cut short (killed, a full disk) leaves no index, and
            # the next opening indexes again, where a half-filled one would answer `unknown_check` for good
            if self._read.execute("SELECT 1 FROM sqlite_master WHERE name='check_events'").fetchone() is not None:
                self._read.execute("ROLLBACK")  # another opening of the file indexed it meanwhile
                return
            self._read.execute(CHECK_INDEX)
            cur = self._read.execute("SELECT table_id, seq, data FROM events")
            while chunk := cur.fetchmany(1000):
                flat: list[object] = []
                for table_id, seq, data in chunk:
                    for check_id in check_ids(table_id, data):
                        flat += (table_id, check_id, seq)
                rows += len(flat) // 3
                _insert(self._read, "INSERT OR IGNORE INTO check_events (table_id, check_id, seq) VALUES ", flat, 3)
            self._read.execute("COMMIT")
        except BaseException:
            if self._read.in_transaction:
                self._read.execute("ROLLBACK")
            raise
        if rows:
            log.info("ledger_checks_indexed", path=str(self.path), rows=rows)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={self._synchronous}")
        db.execute("PRAGMA busy_timeout=5000")
        return db

    # --- serving: reads on a thread of their own, bounded ----------------------------

    async def _off_loop(self, what: str, fn: Callable[..., T], *args: Any) -> T:
        return await self.guard.run(self._on_reader(fn, *args), what)

    async def _on_reader(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        if self._reader is None:
            self._reader = concurrent.futures.ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="verdict-ledger-read"
            )
        if self._watching is None:  # serving has begun: look at the files between appends too
            self._watching = loop
            loop.call_later(FILE_CHECK_EVERY, self._watch)
        return await loop.run_in_executor(self._reader, fn, *args)

    def _watch(self) -> None:
        """Look at the files on the reader thread (a stat may wait on a stalled disk), then again in a while;
        one look at a time, none once closed. A timer and a thread's future, not a task: a loop that ends
        without closing the ledger has nothing of it pending."""
        reader, loop = self._reader, self._watching
        if reader is None or loop is None or self._closed:
            return

        def again(_: concurrent.futures.Future[None]) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nothing more to watch
                loop.call_soon_threadsafe(loop.call_later, FILE_CHECK_EVERY, self._watch)

        with contextlib.suppress(RuntimeError):  # shut down meanwhile
            reader.submit(self._look).add_done_callback(again)

    def _look(self) -> None:
        with contextlib.suppress(LedgerUnavailable):  # said by the next write; a lost log is saved and logged now
            self._check_file()

    async def _bounded(self, what: str, fn: Callable[..., T], *args: Any) -> T:
        """Housekeeping on the reader thread (a snapshot, a prune): refused after :data:`BOUND`, never
        marking the store down (a long prune is not a store that is down; a stuck one holds up the reads
        behind it, which the guard sees)."""
        try:
            return await within(self._on_reader(fn, *args), self.guard.bound)
        except TimeoutError:
            raise LedgerUnavailable(
                f"{what} took longer than {self.guard.bound:g} s; it is tried again later"
            ) from None
        except (sqlite3.Error, OSError) as exc:
            raise LedgerUnavailable(f"{what} failed: {first_line(exc)}") from None

    async def _probe(self) -> None:
        if self._inflight:  # the writer thread is still stuck in a commit: not back yet
            raise LedgerUnavailable("the ledger's writer is still committing")
        await self._on_reader(self._answers)

    def _answers(self) -> None:
        self._check_file()
        with self._lock:
            self._read.execute("SELECT 1").fetchall()

    async def find_table(self, table_id: str) -> TableInfo | None:
        return await self._off_loop("reading a table", self.table, table_id)

    async def find_role(self, table_id: str, key: str) -> str | None:
        return await self._off_loop("reading a table's keys", self.role, table_id, key)

    async def find_user_secret(self, table_id: str) -> bytes | None:
        return await self._off_loop("reading a table's secret", self.user_secret, table_id)

    async def find_access(self, table_id: str, key: str) -> Access | None:
        return await self._off_loop("reading a table's keys", self.access, table_id, key)

    async def find_keys(self, table_ids: list[str]) -> dict[str, str]:
        return await self._off_loop("reading tables' keys", self._keys, table_ids)

    async def read_events(self, table_id: str, since: int = 0, upto: int | None = None) -> list[tuple[int, bytes]]:
        return await self._off_loop("reading events", self.events, table_id, since, upto)

    async def read_check_events(self, table_id: str, check_id: str) -> list[tuple[int, bytes]]:
        return await self._off_loop("reading a check", self.check_events, table_id, check_id)

    async def find_request(self, table_id: str, request_id: str) -> StoredRequest | None:
        return await self._off_loop("reading a request", self.request, table_id, request_id)

    async def find_request_ids(self, table_id: str) -> list[str]:
        return [key for key, _ in await self.find_window(table_id)]

    async def find_window(self, table_id: str) -> list[tuple[str, float]]:
        return await self._off_loop("reading request ids", self._window_rows, table_id)

    async def prune_requests(self) -> int:
        return await self._bounded("pruning requests", self.prune_requests_sync)

    async def find_snapshot(self, table_id: str) -> tuple[int, str, bytes] | None:
        return await self._off_loop("reading a snapshot", self.snapshot, table_id)

    async def store_snapshot(self, table_id: str, seq: int, version: str, data: bytes) -> None:
        await self._bounded("writing a snapshot", self.store_snapshot_sync, table_id, seq, version, data)

    async def read_rows(self, table_id: str, since: int) -> list[Row]:
        return []  # nobody else appends to a file of this host's

    async def heads(self, table_ids: list[str]) -> dict[str, int]:
        return {}

    async def write(self, table_id: str, head: int, writer: Writer) -> None:
        """One turn, one atomic append: nobody else appends, so the writer's actions follow ``head``."""
        actions = await writer.prepare({})
        if not actions:
            return
        try:
            await self.append_actions(table_id, actions)
        except LedgerUnavailable:
            raise
        except (sqlite3.Error, OSError) as exc:
            # what it is ("database or disk is full", "disk I/O error"), not what a rollback said after it
            log.warning("ledger_write_failed", table=table_id, actions=len(actions), error=first_line(exc))
            raise LedgerUnavailable(
                f"the ledger cannot be written ({first_line(exc)}); retry this request shortly"
            ) from None

    async def aclose(self) -> None:
        self.guard.close()

    def _check_file(self, db: sqlite3.Connection | None = None) -> None:
        """Refuse a ledger that is no longer the file at its path (deleted, or replaced by another), or whose
        write-ahead log (or the log's index) is not: the commits in the log would be lost at the next start.
        ``db``: the connection of the caller's thread, outside a transaction (None: the reader's)."""
        if self._lost is not None:
            raise LedgerUnavailable(self._lost)
        try:
            now = _identity(self.path)
        except FileNotFoundError:
            raise LedgerUnavailable(
                f"the ledger file {self.path} was deleted while in use; restart the sidecar ({RESTORE})"
            ) from None
        if now != self._identity:
            raise LedgerUnavailable(
                f"the ledger file {self.path} was replaced while in use; restart the sidecar ({RESTORE})"
            )
        for suffix, known in self._logs.items():
            try:
                found: tuple[int, int] | None = _identity(Path(f"{self.path}{suffix}"))
            except FileNotFoundError:
                found = None
            if found != known:
                self._lose(suffix, "deleted" if found is None else "replaced", db)

    def _lose(self, suffix: str, how: str, db: sqlite3.Connection | None) -> None:
        """The write-ahead log (``-wal``) or its index (``-shm``) at the path is not the one open: save what the
        open log holds into the ledger file (a checkpoint, through the files this process still has open),
        then refuse every write for good, and say so once. Raises :class:`LedgerUnavailable`."""
        with self._losing:
            if self._lost is None:
                what = "write-ahead log" if suffix == "-wal" else "write-ahead log's index"
                file = f"{self.path}{suffix}"
                try:
                    if db is None:
                        with self._lock:
                            busy, frames, saved = self._read.execute("PRAGMA wal_checkpoint(FULL)").fetchone()
                    else:
                        busy, frames, saved = db.execute("PRAGMA wal_checkpoint(FULL)").fetchone()
                    error = None if not busy and frames == saved else f"{saved} of {frames} pages saved"
                except (sqlite3.Error, OSError) as exc:
                    error = first_line(exc)
                if error is None:
                    self._lost = (
                        f"the ledger's {what} {file} was {how} while in use; everything acknowledged was saved into "
                        f"{self.path}, and no more is written: restart the sidecar ({RESTORE})"
                    )
                    log.error("ledger_log_lost", file=file, how=how, saved=True, to_do="restart the sidecar")
                else:
                    self._lost = (
                        f"the ledger's {what} {file} was {how} while in use, and what it held could not be saved "
                        f"into {self.path} ({error}); no more is written: restore the ledger from a backup "
                        "(`verdict restore`)"
                    )
                    log.error(
                        "ledger_log_lost",
                        file=file,
                        how=how,
                        saved=False,
                        error=error,
                        to_do="restore the ledger from a backup (verdict restore)",
                    )
        raise LedgerUnavailable(self._lost)

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

    def first_table(self, name: str) -> TableKeys | None:
        keys, row = new_table(name)
        with self._lock:
            self._read.execute("BEGIN IMMEDIATE")
            try:
                if self._read.execute("SELECT 1 FROM tables LIMIT 1").fetchone() is not None:
                    return None
                self._read.execute(
                    "INSERT INTO tables (id, name, gm_hash, player_hash, observer_hash, created, user_secret)"
                    " VALUES (?,?,?,?,?,?,?)",
                    row,
                )
            finally:
                self._read.execute("COMMIT")
        return keys

    def rotate_keys(self, table_id: str) -> TableKeys:
        keys, stored = new_keys(table_id)
        with self._lock:
            cur = self._read.execute(
                "UPDATE tables SET gm_hash=?, player_hash=?, observer_hash=?, user_secret=? WHERE id=?",
                (*stored, table_id),
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

    def role(self, table_id: str, key: str) -> str | None:
        with self._lock:
            row = self._read.execute(
                "SELECT gm_hash, player_hash, observer_hash FROM tables WHERE id=?", (table_id,)
            ).fetchone()
        return None if row is None else role_of(row, key)

    def access(self, table_id: str, key: str) -> Access | None:
        with self._lock:
            row = self._read.execute(
                "SELECT gm_hash, player_hash, observer_hash, user_secret FROM tables WHERE id=?", (table_id,)
            ).fetchone()
        if row is not None and row[3] is None:  # a table from before per-user keys: its secret made first
            self.user_secret(table_id)
            return self.access(table_id, key)
        return None if row is None else Access(role_of(row[:3], key), bytes.fromhex(row[3]), row[0])

    def _keys(self, table_ids: list[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        with self._lock:
            for i in range(0, len(table_ids), _ROWS):
                chunk = table_ids[i : i + _ROWS]
                found.update(
                    self._read.execute(
                        f"SELECT id, gm_hash FROM tables WHERE id IN ({','.join('?' * len(chunk))})", chunk
                    ).fetchall()
                )
        return found

    def user_secret(self, table_id: str) -> bytes | None:
        with self._lock:
            row = self._read.execute("SELECT user_secret FROM tables WHERE id=?", (table_id,)).fetchone()
            if row is None:
                return None
            if row[0] is None:  # a table made before per-user keys: give it its secret now
                self._read.execute(
                    "UPDATE tables SET user_secret=? WHERE id=? AND user_secret IS NULL",
                    (new_secret(), table_id),
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

    def check_events(self, table_id: str, check_id: str) -> list[tuple[int, bytes]]:
        with self._lock:  # one index lookup, off the event loop when served (read_check)
            return self._read.execute(
                "SELECT e.seq, e.data FROM check_events c JOIN events e ON e.table_id=c.table_id AND e.seq=c.seq"
                " WHERE c.table_id=? AND c.check_id=? ORDER BY c.seq",
                (table_id, check_id),
            ).fetchall()

    def request_ids(self, table_id: str) -> list[str]:
        with self._lock:
            return [r for (r,) in self._read.execute("SELECT request_id FROM requests WHERE table_id=?", (table_id,))]

    def _window_rows(self, table_id: str) -> list[tuple[str, float]]:
        """The ids inside the request window, with when each was stored, oldest first."""
        with self._lock:
            return self._read.execute(_WINDOW, (table_id, time.time() - self.window.age, self.window.count)).fetchall()

    def prune_requests_sync(self, batch: int = 2000) -> int:
        """Delete up to ``batch`` stored requests outside the window (too old, or beyond a requester's count)."""
        with self._lock:
            cur = self._read.execute(_PRUNE, (time.time() - self.window.age, batch))
            left = batch - max(cur.rowcount, 0)
            if left > 0:
                cur2 = self._read.execute(_PRUNE_COUNT, (self.window.count, left))
                return batch - left + max(cur2.rowcount, 0)
            return batch

    def snapshot(self, table_id: str) -> tuple[int, str, bytes] | None:
        with self._lock:
            row = self._read.execute(
                "SELECT seq, version, data FROM snapshots WHERE table_id=?", (table_id,)
            ).fetchone()
        return (row[0], row[1], bytes(row[2])) if row else None

    def store_snapshot_sync(self, table_id: str, seq: int, version: str, data: bytes) -> None:
        with self._lock:
            self._read.execute(_STORE_SNAPSHOT, (table_id, seq, version, data, time.time()))

    def delete_snapshots(self, table_id: str | None = None) -> int:
        with self._lock:
            if table_id is None:
                return self._read.execute("DELETE FROM snapshots").rowcount
            return self._read.execute("DELETE FROM snapshots WHERE table_id=?", (table_id,)).rowcount

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
        checks: list[object] = []
        for table_id, evs, request in batch:
            for seq, data in evs:
                events += (table_id, seq, data, now)
                for check_id in check_ids(table_id, data):
                    checks += (table_id, check_id, seq)
            if request is not None:
                requests += (table_id, *request, now, evs[0][0] if evs else 0)
        self._check_file(db)
        db.execute("BEGIN IMMEDIATE")
        try:
            # A few multi-row statements, not a statement per row: each statement is a trip out of
            # and back into the GIL, and the loop thread holds the GIL most of the time under load.
            _insert(db, "INSERT INTO events (table_id, seq, data, created) VALUES ", events)
            _insert(db, "INSERT OR IGNORE INTO check_events (table_id, check_id, seq) VALUES ", checks, 3)
            # An id stored again is one the window let go of: a new request, its reply the one kept. SQLite's
            # upsert (even ON CONFLICT DO NOTHING) costs every row more than INSERT OR IGNORE, conflict or not,
            # and an id comes back only once the window let it go: the rows are inserted, and upserted only
            # when one of them was there already (the rows just inserted are left as they are).
            if _insert(db, "INSERT OR IGNORE" + _REQUESTS, requests, 7) < len(requests) // 7:
                _insert(db, "INSERT" + _REQUESTS, requests, 7, _REQUEST_AGAIN)
            db.execute("COMMIT")
        except BaseException:
            # SQLite may have rolled back already (a full disk does): the error is the first one, not the
            # "no transaction is active" of a rollback after it
            if db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            raise

    def append_sync(self, table_id: str, events: list[tuple[int, bytes]], request: Request | None) -> None:
        """Append on the caller's thread (CLI, tests)."""
        with self._lock:
            self._write(self._read, [(table_id, events, request)])

    async def append(self, table_id: str, events: list[tuple[int, bytes]], request: Request | None) -> None:
        """Append atomically; returns once the events are durable. Concurrent appends share a commit."""
        await self.append_actions(table_id, [(events, request)])

    async def append_actions(self, table_id: str, actions: list[Action]) -> None:
        """Append several actions of a table, in order, atomically: all durable when this returns, or none.

        Concurrent appends share a commit. A commit that takes longer than :data:`BOUND` is refused with
        :class:`LedgerUnavailable` (it may still land: the table is read back before its next action)."""
        if self.guard.down is not None:
            # the writer is stuck on a disk that does not answer: this would wait behind it
            raise self.guard.refuse()
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        pending = self._pending.get(loop)
        if pending is None:  # the first append of this turn: commit them all once the turn's work is done
            pending = self._pending[loop] = []
            loop.call_soon(self._flush, loop)
        pending.append((fut, [(table_id, events, request) for events, request in actions]))
        try:
            await fut
        except _Overdue:
            self.guard.trip(f"a commit took longer than {self.guard.bound:g} s")
            raise LedgerUnavailable(
                f"the ledger is unavailable ({self.guard.down}); retry this request shortly"
            ) from None

    def _flush(self, loop: asyncio.AbstractEventLoop, direct: bool = False) -> None:
        """Commit every append of the loop's last turn in one transaction, then settle their futures.

        ``call_soon`` runs this after the callbacks already due, so all the appends that the turn's
        reads led to share the commit (and its fsync)."""
        items = self._pending.pop(loop, [])
        if not items:
            return
        if not direct and self.commit == "thread":
            if self._writer is None:
                self._writer = threading.Thread(target=self._write_loop, name="verdict-ledger", daemon=True)
                self._writer.start()
            self._inflight += len(items)
            # one clock for the turn's appends, not one each: they all began in this turn of the loop
            bound = _Bound([fut for fut, _ in items])
            bound.timer = loop.call_later(self.guard.bound, bound.overdue)
            for fut, works in items:
                self._queue.put((loop, fut, works, bound))
            return
        # commit="loop" (or closing): the writer thread is never started, so this is the only commit under way
        error: BaseException | None = None
        try:
            if self._wdb is None:
                self._wdb = self._connect()
            self._write(self._wdb, [work for _, works in items for work in works])
        except BaseException as exc:  # the whole batch failed; every waiter hears it
            error = exc
        for fut, _ in items:
            _settle(fut, error)

    def _settled(self, futs: list[tuple[asyncio.Future[None], _Bound]], error: BaseException | None) -> None:
        """On the loop's thread: the writer committed (or failed) these appends."""
        self._inflight -= len(futs)
        for fut, bound in futs:
            _settle(fut, error)
            bound.settled()

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
                self._write(db, [work for _, _, works, _ in items for work in works])
            except BaseException as exc:  # the whole batch failed; every waiter hears it
                error = exc
            # One wake-up per event loop, not per append: each is a write to the loop's self-pipe.
            by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[None], _Bound]]] = {}
            for loop, fut, _, bound in items:
                by_loop.setdefault(loop, []).append((fut, bound))
            for loop, futs in by_loop.items():
                loop.call_soon_threadsafe(self._settled, futs, error)
            if stop:
                break
        db.close()

    def close(self) -> None:
        """Finish the pending writes and close; closing twice is harmless."""
        if self._reader is not None:
            self._reader.shutdown(wait=True)
            self._reader = None
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


def _insert(db: sqlite3.Connection, head: str, flat: list[object], width: int = 4, tail: str = "") -> int:
    """Insert rows of ``width`` values given flat, ``_ROWS`` rows per statement (fewer for wider rows); the
    rows the statements changed."""
    step = width * (_ROWS * 4 // width)
    row = "(" + ",".join("?" * width) + ")"
    changed = 0
    for i in range(0, len(flat), step):
        chunk = flat[i : i + step]
        changed += db.execute(head + ",".join([row] * (len(chunk) // width)) + tail, chunk).rowcount
    return changed


_REQUESTS = " INTO requests (table_id, request_id, role, reply, requester, created, seq) VALUES "
_REQUEST_AGAIN = (
    " ON CONFLICT (table_id, request_id) DO UPDATE SET role=excluded.role, reply=excluded.reply,"
    " requester=excluded.requester, created=excluded.created, seq=excluded.seq"
    " WHERE excluded.seq > requests.seq"
)
"""A request id stored again replaces the row it left (the window let it go), never a newer one."""


_WINDOW = """
SELECT request_id, created FROM (
    SELECT request_id, created, seq,
           row_number() OVER (PARTITION BY requester ORDER BY seq DESC, created DESC) AS k
    FROM requests WHERE table_id=? AND created>?
) WHERE k<=? ORDER BY seq, created
"""
_STORE_SNAPSHOT = """
INSERT INTO snapshots (table_id, seq, version, data, created) VALUES (?,?,?,?,?)
ON CONFLICT (table_id) DO UPDATE SET seq=excluded.seq, version=excluded.version, data=excluded.data,
    created=excluded.created
WHERE excluded.seq > snapshots.seq OR excluded.version <> snapshots.version
"""
_PRUNE = """
DELETE FROM requests WHERE (table_id, request_id) IN (
    SELECT table_id, request_id FROM requests WHERE created<? LIMIT ?
)
"""
_PRUNE_COUNT = """
DELETE FROM requests WHERE (table_id, request_id) IN (
    SELECT table_id, request_id FROM (
        SELECT table_id, request_id,
               row_number() OVER (PARTITION BY table_id, requester ORDER BY seq DESC, created DESC) AS k
        FROM requests
    ) WHERE k>? LIMIT ?
)
"""


class _Overdue(Exception):
    """An append's commit did not settle within the bound (it may still land)."""


class _Bound:
    """The clock of a turn's appends handed to the writer thread: once the bound has passed, those not yet
    settled are refused (the commit goes on). Stopped when the last is settled, so that it holds none of
    them for the bound's length: futures kept that long outlive the young collections and make the
    collector's full passes come sooner."""

    __slots__ = ("futs", "left", "timer")

    def __init__(self, futs: list[asyncio.Future[None]]) -> None:
        self.futs: list[asyncio.Future[None]] | None = futs
        self.left = len(futs)
        self.timer: asyncio.TimerHandle | None = None

    def settled(self) -> None:
        self.left -= 1
        if not self.left:
            self.futs = None
            if self.timer is not None:
                self.timer.cancel()  # a cancelled timer lets go of its callback at once

    def overdue(self) -> None:
        for fut in self.futs or ():
            if not fut.done():
                fut.set_exception(_Overdue())


def _settle(fut: asyncio.Future[None], error: BaseException | None) -> None:
    if fut.done():
        return
    if error is None:
        fut.set_result(None)
    else:
        fut.set_exception(error)


def _identity(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino
