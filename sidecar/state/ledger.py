"""The ledger: where tables and their events are stored.

:class:`Ledger` is the interface everything above ``state/`` relies on, in two parts:

- **Serving** (the server, on the event loop): every call is a coroutine that never blocks the loop
  and answers within :data:`BOUND` seconds or raises :class:`LedgerUnavailable`, the one error the
  ledger raises (a refusal with the code ``ledger_unavailable``). While the store is known to be down,
  calls are refused at once and a probe in the background brings service back by itself
  (:class:`Guard`). A state-changing turn is :meth:`Ledger.write`: the ledger asks the table's owner (a
  :class:`Writer`) for the turn's actions and appends them durably, all or none; a ledger that other
  sidecars share may first hand it the events they appended, or ask it to start the turn again, and
  that is the whole of what sharing changes (see docs/architecture/ledger.md).
- **Administration** (the CLI, start-up, tests): plain blocking methods.

:class:`SqliteLedger` is the embedded default: one SQLite file in WAL mode with ``synchronous=FULL`` that
commits concurrent appends together (group commit), so an event is on disk before anyone is told of it.
The appends of one turn of the event loop share a commit, on a writer thread of its own: the loop goes on
during the fsync, and a disk that stops answering (frozen, a stalled network disk) holds up that thread,
never the loop (``commit="loop"`` commits on the loop's own thread instead, for measurements only). Its
serving reads, snapshots and prunes run on a reader thread of their own. Before each batch, and every
:data:`FILE_CHECK_EVERY` seconds while serving, it checks that the files at its paths (the ledger, its
write-ahead log and the log's index) are still the files it has open: a ledger deleted or replaced under it
refuses, and what its write-ahead log held is first saved into the ledger file (:meth:`SqliteLedger._lose`).
:class:`~sidecar.state.ledger_pg.PostgresLedger` (``--ledger postgresql://...``) is the same interface
over a database that several sidecars share.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import hmac
import json
import os
import queue
import re
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, Awaitable, Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

import msgspec
import structlog

from protocol.v1.errors import ErrorCode, VerdictError
from sidecar import config

log = structlog.get_logger("verdict.ledger")

BOUND = config.LEDGER_BOUND
PROBE_EVERY = config.LEDGER_PROBE_EVERY
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
"""The check index (:func:`check_ids`): made in the transaction that indexes what the ledger holds, so that a
ledger holds it only once it is whole."""
DROPPED_INDEXES = """
DROP INDEX IF EXISTS requests_by_requester;
DROP INDEX IF EXISTS requests_by_age;
"""
"""The request window's two indexes, which ledgers before 2026-12-01 kept: each cost every append a B-tree
insert of the request's key, where what they served needs none. A table's window is read once, when it is
loaded, from the rows its primary key already groups (a bounded window: at most ``count`` a requester, once
pruned); the prune is a scan of the requests every round of housekeeping, off the request path. Dropped at
open; nothing they held is lost."""

ROLES = ("gm", "player", "observer")


_HEX = re.compile(rb"[0-9a-f]+")
_CHECK_KEY = msgspec.msgpack.encode("check_id")
"""The key of an event's ``check_id`` field as MessagePack encodes it (a short string: its header, its bytes)."""


def check_ids(table_id: str, data: bytes) -> set[str]:
    """The check ids of the table an event's bytes hold in their ``check_id`` fields: what the ledger indexes
    so that :meth:`Ledger.read_check` is one lookup, not a search through the table's history.

    An event is MessagePack (:class:`sidecar.state.table.Stored`), its fields a map: a roll's, a follow-up's,
    a gathered part's (any event about a check) names it under the key ``check_id``, and the id
    (``<table>-<16 hex>``, or ``<table>-<seq>`` in tables from before random ids) is the short string right
    after it. Only those are indexed. A text (a label, an actor, a target) that holds strings shaped like ids
    is no ``check_id`` field: the bytes of a key and a string header after it cannot occur inside valid UTF-8
    text (a header is a continuation byte, which never follows the key's last letter), so no request can make
    an event index ids it does not name, nor make one event index many."""
    found: set[str] = set()
    prefix = table_id.encode() + b"-"
    at = data.find(_CHECK_KEY)
    while at >= 0:
        head = at + len(_CHECK_KEY)
        if head < len(data):
            length = data[head] - 0xA0  # a fixstr's header: the string's length
            start, end = head + 1, head + 1 + length
            if (
                len(prefix) < length < 32
                and end <= len(data)
                and data.startswith(prefix, start)
                and _HEX.fullmatch(data, start + len(prefix), end)
            ):
                found.add(data[start:end].decode())
        at = data.find(_CHECK_KEY, head)
    return found


Request = tuple[str, str, bytes, str]
"""A request as a ledger stores it: its key, the role that sent it, its reply and its requester
(:func:`requester`; the caller has it at hand, so no ledger parses it back from the key)."""

Action = tuple[list[tuple[int, bytes]], "Request | None"]
"""An action as a ledger appends it: its events (seq, encoded) and its request, if any."""


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
class Access:
    """What a key is checked against, read together in one look at the table's row."""

    role: str | None
    """The role the key opens as one of the three table-wide keys (None: none of them)."""
    user_secret: bytes
    """The secret the user keys derive from (:func:`sidecar.state.keys.derive_user_key`)."""
    keys: str
    """The mark of the keys this was read with: the stored hash of the GM key, which every rotation replaces.
    A session let in with one mark ends once the table's is another (:meth:`Ledger.find_keys`)."""


def role_of(hashes: Iterable[str], key: str) -> str | None:
    """The role whose stored hash (gm, player, observer) is the key's, or None."""
    h = hash_key(key)
    for role, stored in zip(ROLES, hashes):
        if hmac.compare_digest(h, stored):
            return role
    return None


@dataclass(frozen=True)
class StoredRequest:
    role: str
    reply: bytes


@dataclass(frozen=True)
class RequestWindow:
    """Which request ids a table answers from their first reply: per requester (role and user) the last
    ``count``, none older than ``age`` seconds. An id outside it is a new request; the ledger prunes the rows
    outside it (:meth:`Ledger.prune_requests`) and a table holds only the ids inside it (:class:`Answered`)."""

    count: int = config.REQUEST_WINDOW
    age: float = config.REQUEST_WINDOW_AGE


def requester_of(key: str) -> str:
    """Who a stored request key (``[role, user, id]`` in JSON) belongs to: ``[role, user]`` in JSON ('' for a
    key stored before ids were kept per requester)."""
    if key.startswith("["):
        with contextlib.suppress(ValueError):
            parts = json.loads(key)
            if isinstance(parts, list) and len(parts) == 3:
                return requester(parts[0], parts[1])
    return ""


def requester(role: str, user: str | None) -> str:
    return json.dumps([role, user], separators=(",", ":"))


class Answered:
    """The request ids a table answered that are inside its :class:`RequestWindow`: at most ``count`` per
    requester, each dropped once older than ``age``. What memory holds of the idempotency store.

    Each id is held under its requester, as the caller says it (a connection knows who it is) or as its key
    says it (:func:`requester_of`, for ids read back); a look-up finds an id's requester by the id itself, so
    no key is parsed on a request's path."""

    def __init__(self, window: RequestWindow, ids: Iterable[tuple[str, float]] = ()) -> None:
        self.window = window
        self.by: dict[str, OrderedDict[str, float]] = {}
        self.whose: dict[str, str] = {}
        """The requester each id held is under."""
        for key, created in ids:
            self.add(key, created)

    def add(self, key: str, created: float | None = None, who: str | None = None) -> None:
        """Hold ``key`` (answered now, or at ``created``) under its requester ``who``, or the one its key names."""
        if who is None:
            who = self.whose.get(key)
            if who is None:
                who = requester_of(key)
        ids = self.by.get(who)
        if ids is None:
            ids = self.by[who] = OrderedDict()
        ids[key] = time.time() if created is None else created
        ids.move_to_end(key)
        self.whose[key] = who
        while len(ids) > self.window.count:
            del self.whose[ids.popitem(last=False)[0]]

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        who = self.whose.get(key)
        if who is None:
            return False
        ids = self.by[who]
        if ids[key] < time.time() - self.window.age:
            del ids[key], self.whose[key]
            return False
        return True

    def prune(self, now: float | None = None) -> None:
        """Drop the ids older than the window (each requester's oldest come first)."""
        oldest = (time.time() if now is None else now) - self.window.age
        for who in list(self.by):
            ids = self.by[who]
            while ids and next(iter(ids.values())) < oldest:
                del self.whose[ids.popitem(last=False)[0]]
            if not ids:
                del self.by[who]

    def __len__(self) -> int:
        return len(self.whose)


class LedgerUnavailable(VerdictError):
    """The ledger cannot be read or written now (unreachable, frozen, full, deleted): nothing was stored.

    The one error a ledger's serving calls raise, inside the refusal tree: the requester hears
    ``ledger_unavailable`` and may send the same request again (its id makes the retry safe)."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCode.LEDGER_UNAVAILABLE, message)


@dataclass(frozen=True)
class Row:
    """An event as a catch-up reads it: its seq, the first seq of its action, the data, and the request id
    (on an action's first event, if a request caused it)."""

    seq: int
    batch: int
    data: bytes
    request_id: str | None


Note = tuple[str, "int | None", list[Row]]
"""What a ledger says of a table others appended to: its id, its head (None: unknown), the rows it carried."""


class Writer(Protocol):
    """The table's owner in a turn of :meth:`Ledger.write`: what the ledger asks of it."""

    request_ids: list[str]
    """The ids of the turn's requests (a shared ledger looks up which of them another sidecar answered)."""

    async def caught_up(self, rows: list[Row]) -> None:
        """Apply, and tell, the events others appended after the head the turn started from."""
        ...

    async def prepare(self, answered: Mapping[str, StoredRequest]) -> list[Action]:
        """The turn's actions, prepared on the table as it now stands and applied to it in memory;
        requests in ``answered`` were answered by another sidecar first and get no action."""
        ...

    async def reset(self) -> int:
        """Drop what :meth:`prepare` applied (nothing of it was stored); return the table's head."""
        ...


class Guard:
    """Every serving call of a ledger goes through here: bounded in time, refused at once while the store
    is known to be down, and the store probed in the background until it answers again.

    A call that runs out of time marks the store down (a frozen database, a disk that no longer answers),
    and so does an error of ``down_on`` (the store cannot be reached at all): the calls after it would wait
    or fail as well, so they are refused at once instead, and one probe at a time asks the store whether it
    is back. Other errors (a full disk, a constraint) refuse only their own call."""

    def __init__(
        self,
        name: str,
        errors: tuple[type[BaseException], ...],
        probe: Callable[[], Coroutine[Any, Any, object]],
        down_on: tuple[type[BaseException], ...] = (),
    ) -> None:
        self.name = name
        self.errors = errors
        self.down_on = down_on
        self.probe = probe
        self.bound = BOUND
        self.down: str | None = None
        """Why the store is held to be down, while it is."""
        self.refused = 0
        """Calls refused (counted for tests and metrics)."""
        self.trips = 0
        """Times the store was found down (a call ran out of time)."""
        self._prober: asyncio.Task[None] | None = None

    async def run(self, call: Coroutine[Any, Any, T], what: str) -> T:
        if self.down is not None:
            call.close()
            self.refused += 1
            raise LedgerUnavailable(f"the {self.name} is unavailable ({self.down}); retry this request shortly")
        try:
            return await within(call, self.bound)
        except TimeoutError:
            self._trip(f"{what} took longer than {self.bound:g} s")
        except LedgerUnavailable:
            self.refused += 1
            raise
        except self.errors as exc:
            self.refused += 1
            log.warning("ledger_failed", ledger=self.name, what=what, error=first_line(exc))
            if isinstance(exc, self.down_on):
                self._trip(f"{what} failed: {first_line(exc)}")
            raise LedgerUnavailable(f"the {self.name} failed ({first_line(exc)}); retry this request shortly") from None
        self.refused += 1
        raise LedgerUnavailable(f"the {self.name} is unavailable ({self.down}); retry this request shortly")

    def _trip(self, why: str) -> None:
        if self.down is None:
            self.trips += 1
            log.warning("ledger_down", ledger=self.name, reason=why)
        self.down = why
        if self._prober is None or self._prober.done():
            self._prober = asyncio.get_running_loop().create_task(self._probe())

    async def _probe(self) -> None:
        while self.down is not None:
            await asyncio.sleep(PROBE_EVERY)
            with contextlib.suppress(Exception):
                await within(self.probe(), self.bound)
                log.info("ledger_back", ledger=self.name, was=self.down)
                self.down = None

    def close(self) -> None:
        if self._prober is not None:
            self._prober.cancel()


class Ledger(Protocol):
    """What the sidecar needs from storage: serving calls are coroutines that never block the event loop
    and fail within :data:`BOUND` with :class:`LedgerUnavailable`; administration calls block."""

    window: RequestWindow
    """Which stored request ids are answered from their first reply; the rest are pruned."""

    # --- serving (the server) -----------------------------------------------------

    async def find_table(self, table_id: str) -> TableInfo | None: ...
    async def find_role(self, table_id: str, key: str) -> str | None:
        """The role ``key`` opens on the table (a table-wide key), or None."""
        ...

    async def find_user_secret(self, table_id: str) -> bytes | None:
        """The table's secret that per-user keys are derived from (made on first use; replaced by rotate_keys)."""
        ...

    async def find_access(self, table_id: str, key: str) -> Access | None:
        """What ``key`` is checked against on the table, in one read (None: no such table)."""
        ...

    async def find_keys(self, table_ids: list[str]) -> dict[str, str]:
        """The mark of each table's keys now (:attr:`Access.keys`; a table the ledger does not hold is left
        out): a rotation made by any process on the ledger shows here at once."""
        ...

    async def read_events(self, table_id: str, since: int = 0, upto: int | None = None) -> list[tuple[int, bytes]]:
        """The events after ``since`` (up to ``upto``, if given), in seq order."""
        ...

    async def read_rows(self, table_id: str, since: int) -> list[Row]:
        """The events others appended after ``since``, grouped by action (an embedded ledger has no others)."""
        ...

    async def read_check(self, table_id: str, check_id: str) -> list[tuple[int, bytes]]:
        """The events that hold ``check_id`` as a string (its roll, its follow-ups, and perhaps an event that
        names it otherwise: the caller decodes them), in seq order: a check the table no longer holds, read
        back. One index lookup (:func:`check_ids` says what is indexed); nothing of the history is read."""
        ...

    async def heads(self, table_ids: list[str]) -> dict[str, int]:
        """The heads of these tables as others may have moved them (an embedded ledger: none)."""
        ...

    def notes(
        self, listening: Callable[[], Awaitable[None]], wanted: Callable[[str], bool] | None = None
    ) -> AsyncGenerator[Note, None]:
        """Tables others appended to, as they say so, after awaiting ``listening()`` once they are heard
        (the caller then catches up on what it missed); ends at once when nobody else appends. A note of a
        table ``wanted`` refuses is skipped undecoded. An interruption raises :class:`LedgerUnavailable`
        (the caller listens again)."""
        ...

    async def find_request(self, table_id: str, request_id: str) -> StoredRequest | None: ...
    async def find_request_ids(self, table_id: str) -> list[str]:
        """The ids inside the table's request window (:attr:`window`)."""
        ...

    async def find_window(self, table_id: str) -> list[tuple[str, float]]:
        """The ids inside the table's request window with when each was stored, oldest first."""
        ...

    async def prune_requests(self) -> int:
        """Delete some stored requests outside the window (a bounded batch); how many. Housekeeping: not
        bounded by :data:`BOUND` nor refused by the guard, and never called on a request's path."""
        ...

    async def find_snapshot(self, table_id: str) -> tuple[int, str, bytes] | None:
        """The table's newest snapshot: its head, its version and its data (derived from the events)."""
        ...

    async def store_snapshot(self, table_id: str, seq: int, version: str, data: bytes) -> None:
        """Keep this snapshot of the table, unless a newer one of the same version is kept. Housekeeping, as
        :meth:`prune_requests`."""
        ...

    async def write(self, table_id: str, head: int, writer: Writer) -> None:
        """A turn at the table: the writer's actions appended after ``head``, all durable when this returns,
        or none stored (:class:`LedgerUnavailable`). A shared ledger hands the writer what others appended
        first, or, refused because the table moved on, has it reset and prepare again with the table's row
        locked; every retry turn is the ledger's."""
        ...

    async def aclose(self) -> None:
        """Close what serving opened (on the loop that served)."""
        ...

    # --- administration (the CLI, start-up, tests: blocking) ------------------------

    def create_table(self, name: str) -> TableKeys: ...
    def first_table(self, name: str) -> TableKeys | None:
        """A first table, made at a sidecar's first start when the ledger holds none and is its own (an
        embedded one); None when it makes none (a ledger several sidecars start against at once)."""
        ...

    def rotate_keys(self, table_id: str) -> TableKeys: ...
    def tables(self) -> list[TableInfo]: ...
    def table(self, table_id: str) -> TableInfo | None: ...
    def user_secret(self, table_id: str) -> bytes | None: ...
    def events(self, table_id: str, since: int = 0, upto: int | None = None) -> list[tuple[int, bytes]]: ...
    def check_events(self, table_id: str, check_id: str) -> list[tuple[int, bytes]]:
        """:meth:`read_check`, blocking."""
        ...

    def request(self, table_id: str, request_id: str) -> StoredRequest | None: ...
    def request_ids(self, table_id: str) -> list[str]: ...
    def snapshot(self, table_id: str) -> tuple[int, str, bytes] | None: ...
    def delete_snapshots(self, table_id: str | None = None) -> int:
        """Delete the table's snapshot (every table's: None); how many. The next load folds the events."""
        ...

    def append_sync(self, table_id: str, events: list[tuple[int, bytes]], request: Request | None) -> None: ...
    def close(self) -> None: ...


def first_line(exc: BaseException) -> str:
    """An error's first line, for messages and logs."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


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
        return await self._off_loop("reading a table's keys", self.role_for, table_id, key)

    async def find_user_secret(self, table_id: str) -> bytes | None:
        return await self._off_loop("reading a table's secret", self.user_secret, table_id)

    async def find_access(self, table_id: str, key: str) -> Access | None:
        return await self._off_loop("reading a table's keys", self.access, table_id, key)

    async def find_keys(self, table_ids: list[str]) -> dict[str, str]:
        return await self._off_loop("reading tables' keys", self.keys_of, table_ids)

    async def read_events(self, table_id: str, since: int = 0, upto: int | None = None) -> list[tuple[int, bytes]]:
        return await self._off_loop("reading events", self.events, table_id, since, upto)

    async def read_check(self, table_id: str, check_id: str) -> list[tuple[int, bytes]]:
        return await self._off_loop("reading a check", self.check_events, table_id, check_id)

    async def find_request(self, table_id: str, request_id: str) -> StoredRequest | None:
        return await self._off_loop("reading a request", self.request, table_id, request_id)

    async def find_request_ids(self, table_id: str) -> list[str]:
        return [key for key, _ in await self.find_window(table_id)]

    async def find_window(self, table_id: str) -> list[tuple[str, float]]:
        return await self._off_loop("reading request ids", self.request_window, table_id)

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

    async def notes(
        self, listening: Callable[[], Awaitable[None]], wanted: Callable[[str], bool] | None = None
    ) -> AsyncGenerator[Note, None]:
        return
        yield  # an async generator that ends at once: nobody else appends

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

    def keys_of(self, table_ids: list[str]) -> dict[str, str]:
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

    def request_window(self, table_id: str) -> list[tuple[str, float]]:
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
            # upsert (even ON CONFLICT DO NOTHING) costs every row about 10 µs more than INSERT OR IGNORE,
            # conflict or not, and an id comes back only once the window let it go: the rows are inserted, and
            # upserted only when one of them was there already (the rows just inserted are left as they are).
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
            self.guard.refused += 1
            raise LedgerUnavailable(f"the ledger is unavailable ({self.guard.down}); retry this request shortly")
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
            self.guard._trip(f"a commit took longer than {self.guard.bound:g} s")
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


async def within(call: Coroutine[Any, Any, T], bound: float) -> T:
    """The call's result if it comes within ``bound`` seconds, else TimeoutError at once.

    Unlike ``asyncio.wait_for`` this does not wait for the call to finish cancelling: a database driver
    may spend many seconds trying to cancel a query on a server that does not answer. The call is
    cancelled and left to end on its own."""
    task = asyncio.ensure_future(call)
    try:
        done, _ = await asyncio.wait((task,), timeout=bound)
    except asyncio.CancelledError:
        task.cancel()
        task.add_done_callback(_retrieved)
        raise
    if not done:
        task.cancel()
        task.add_done_callback(_retrieved)
        raise TimeoutError
    return task.result()


def _retrieved(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()  # an abandoned call's error is its own: nobody waits for it any more
