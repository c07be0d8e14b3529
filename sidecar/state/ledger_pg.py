"""The PostgreSQL ledger: several sidecars over one database, any sidecar serving any table.

PostgreSQL keeps each table's order, its request ids and their durability; ``LISTEN``/``NOTIFY``
tells every sidecar that a table has new events (:mod:`sidecar.server.bus` listens).

An append is one call of the ``verdict_append`` function in the committing transaction: it locks
the table's row, refuses the append when the row is locked by another sidecar at that moment, when
the request id is already taken on that table, or when the table's head is no longer the seq just
before the append (another sidecar appended first), else inserts the events, the request's reply
and the new head, and notifies. Appends waiting together share one transaction (group commit). So seqs have no gap and no duplicate
however many sidecars append at once, and a request id rolls once per table. A refused append
raises :class:`~sidecar.state.ledger.Behind`: the sidecar then takes a turn (:meth:`PostgresLedger.turn`):
it locks the table's row, reads what it missed, prepares the action again and appends it in that one
transaction (the events of an action depend on the state they follow, so they cannot simply be
renumbered). Uncontended, an append is one round trip; contended, one refusal and one turn.

The interface above ``state/`` is synchronous for reads and asynchronous for appends; so is this
class. Reads (joining a table, the CLI) go through a small pool of blocking connections with
bounded connect and statement timeouts, as the SQLite reads block on the disk; the hot path (every
append, and the bus's catch-up reads) is asynchronous, on its own pool, and never blocks the loop.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hmac
import re
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

try:
    import psycopg
    from psycopg_pool import AsyncConnectionPool, ConnectionPool, PoolTimeout
except ImportError as exc:  # pragma: no cover - depends on the install
    raise ImportError("the PostgreSQL ledger needs the optional extra: pip install 'verdict[postgres]'") from exc

from .ledger import ROLES, Action, Behind, StoredRequest, TableInfo, TableKeys, hash_key, new_key, new_table

CHANNEL = "verdict"
"""The ``NOTIFY`` channel. The payload is ``<table>:<head>:<first seq>:<events, base64, comma-separated>:<request id>``
(see :func:`parse_note`), or only ``<table>:<head>`` when the events do not fit in a notification."""

WRITERS = 2
"""Batches of appends in flight at once (each one transaction, one round trip, one commit)."""
TURNS = 4
"""Turns (a table's row locked while an action is prepared again) in flight at once, per sidecar."""
TIMEOUT_MS = 5000
"""Longest a statement may run, and a connection may take to open (a stalled database is an error, not a hang)."""

MIGRATIONS: list[tuple[int, str]] = [
    (
        1,
        """
CREATE TABLE tables (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    gm_hash TEXT NOT NULL,
    player_hash TEXT NOT NULL,
    observer_hash TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    head BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE events (
    table_id TEXT NOT NULL REFERENCES tables (id),
    seq BIGINT NOT NULL,
    batch BIGINT NOT NULL,
    data BYTEA NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (table_id, seq)
);
CREATE TABLE requests (
    table_id TEXT NOT NULL REFERENCES tables (id),
    request_id TEXT NOT NULL,
    role TEXT NOT NULL,
    reply BYTEA NOT NULL,
    seq BIGINT NOT NULL,
    PRIMARY KEY (table_id, request_id)
);
CREATE INDEX requests_by_seq ON requests (table_id, seq);
CREATE FUNCTION verdict_append(
    p_table TEXT, p_first BIGINT, p_data BYTEA[], p_request TEXT, p_role TEXT, p_reply BYTEA
) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    cur BIGINT;
    last BIGINT := p_first + cardinality(p_data) - 1;
    msg TEXT;
BEGIN
    -- The row lock orders every append to this table, from every sidecar. An append never waits for
    -- it: a table locked by another sidecar's turn or batch is refused at once (the caller takes a
    -- turn), so a batch of appends to many tables is never held up by one busy table.
    SELECT head INTO cur FROM tables WHERE id = p_table FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        SELECT head INTO cur FROM tables WHERE id = p_table;
        IF NOT FOUND THEN
            RETURN NULL;  -- no such table (an answer, not an error: the other appends of a batch go on)
        END IF;
        RETURN -1 - cur;
    END IF;
    IF p_request IS NOT NULL
       AND EXISTS (SELECT 1 FROM requests WHERE table_id = p_table AND request_id = p_request) THEN
        RETURN -1 - cur;  -- this request id is taken: the caller answers from the stored reply
    END IF;
    IF cur <> p_first - 1 THEN
        RETURN -1 - cur;  -- another sidecar appended first: the caller catches up and prepares again
    END IF;
    INSERT INTO events (table_id, seq, batch, data, created)
        SELECT p_table, p_first + n - 1, p_first, d, extract(epoch FROM clock_timestamp())
        FROM unnest(p_data) WITH ORDINALITY AS u (d, n);
    IF p_request IS NOT NULL THEN
        INSERT INTO requests (table_id, request_id, role, reply, seq)
            VALUES (p_table, p_request, p_role, p_reply, p_first);
    END IF;
    UPDATE tables SET head = last WHERE id = p_table;
    -- Delivered when the transaction commits, in commit order. The events ride along when they fit
    -- (listeners then need no read); else only the head, and listeners read what they miss.
    msg := p_table || ':' || last || ':' || p_first || ':'
        || translate(array_to_string(ARRAY(SELECT encode(d, 'base64') FROM unnest(p_data) AS u (d)), ','), E'\n', '')
        || ':' || coalesce(p_request, '');
    IF octet_length(msg) > 7900 THEN
        msg := p_table || ':' || last;
    END IF;
    PERFORM pg_notify('verdict', msg);
    RETURN last;
END $$;
""",
    ),
    # Per-user player keys are derived from this secret (sidecar/state/keys.py); a table made before
    # it gets one on first use, and rotate-keys replaces it.
    (
        2,
        """
ALTER TABLE tables ADD COLUMN user_secret TEXT;
""",
    ),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]
_MIGRATION_LOCK = 0x76657264  # advisory lock key: one sidecar migrates at a time


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


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    return re.sub(r"(://[^:/@]+):[^@/]*@", r"\1:***@", url)


@dataclass(frozen=True)
class Row:
    """An event as the bus reads it: its seq, the first seq of its append, the data, and the request id."""

    seq: int
    batch: int
    data: bytes
    request_id: str | None


class PostgresLedger:
    """The ledger on PostgreSQL; ``url`` is a libpq URL, ``postgresql://user:pass@host/db``."""

    shared = True
    """Other sidecars may append to the same tables: the server runs a bus (:mod:`sidecar.server.bus`)."""

    def __init__(self, url: str, pool_size: int = TURNS + WRITERS + 2) -> None:
        self.url = url
        self._kwargs: dict[str, Any] = {
            "autocommit": True,
            "connect_timeout": TIMEOUT_MS // 1000,
            "options": f"-c statement_timeout={TIMEOUT_MS}",
            "application_name": "verdict",
        }
        try:
            with psycopg.connect(url, **self._kwargs) as db:
                migrate(db)
        except psycopg.OperationalError as exc:
            raise ConnectionError(f"cannot reach the PostgreSQL ledger at {redact(url)}: {_first_line(exc)}") from None
        # Reads are rare (a join, the CLI): check a connection before lending it. Appends are the hot path:
        # their pool lends without a check (a round trip each), and drops a connection that broke.
        self._sync = ConnectionPool(
            url,
            min_size=1,
            max_size=4,
            kwargs=self._kwargs,
            open=True,
            check=ConnectionPool.check_connection,
            timeout=TIMEOUT_MS / 1000,
            name="verdict-sync",
        )
        self._pool_size = pool_size
        self._async: AsyncConnectionPool | None = None
        self._waiting: list[tuple[tuple[Any, ...], asyncio.Future[int | None]]] = []
        self._writers = 0
        self._turns: asyncio.Semaphore | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._async_lock: asyncio.Lock | None = None
        self._closed = False

    # --- connections ----------------------------------------------------------------

    def _q(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._sync.connection() as db:
            cur = db.execute(sql, params)
            return cur.fetchall() if cur.description else []

    async def _pool(self) -> AsyncConnectionPool:
        if self._async is None:
            if self._async_lock is None:
                self._async_lock = asyncio.Lock()
            async with self._async_lock:
                if self._async is None:
                    pool = AsyncConnectionPool(
                        self.url,
                        min_size=1,
                        max_size=self._pool_size,
                        kwargs=self._kwargs,
                        open=False,
                        timeout=TIMEOUT_MS / 1000,
                        name="verdict-async",
                    )
                    await pool.open()
                    self._async = pool
        return self._async

    async def listener(self) -> psycopg.AsyncConnection:
        """A new connection that listens on :data:`CHANNEL` (the bus owns and closes it)."""
        db = await psycopg.AsyncConnection.connect(self.url, **{**self._kwargs, "application_name": "verdict-bus"})
        await db.execute(f"LISTEN {CHANNEL}")
        return db

    # --- tables -------------------------------------------------------------------

    def create_table(self, name: str) -> TableKeys:
        keys, row = new_table(name)
        self._q(
            "INSERT INTO tables (id, name, gm_hash, player_hash, observer_hash, created, user_secret)"
            " VALUES (%s,%s,%s,%s,%s,%s,%s)",
            row,
        )
        return keys

    def rotate_keys(self, table_id: str) -> TableKeys:
        keys = TableKeys(table_id, new_key(), new_key(), new_key())
        rows = self._q(
            "UPDATE tables SET gm_hash=%s, player_hash=%s, observer_hash=%s, user_secret=%s WHERE id=%s RETURNING id",
            (hash_key(keys.gm), hash_key(keys.player), hash_key(keys.observer), secrets.token_hex(32), table_id),
        )
        if not rows:
            raise KeyError(table_id)
        return keys

    def tables(self) -> list[TableInfo]:
        return [TableInfo(*r) for r in self._q("SELECT id, name, created FROM tables ORDER BY created")]

    def table(self, table_id: str) -> TableInfo | None:
        rows = self._q("SELECT id, name, created FROM tables WHERE id=%s", (table_id,))
        return TableInfo(*rows[0]) if rows else None

    def role_for(self, table_id: str, key: str) -> str | None:
        rows = self._q("SELECT gm_hash, player_hash, observer_hash FROM tables WHERE id=%s", (table_id,))
        if not rows:
            return None
        h = hash_key(key)
        for role, stored in zip(ROLES, rows[0]):
            if hmac.compare_digest(h, stored):
                return role
        return None

    def user_secret(self, table_id: str) -> bytes | None:
        rows = self._q("SELECT user_secret FROM tables WHERE id=%s", (table_id,))
        if not rows:
            return None
        if rows[0][0] is None:
            # Made on first use for a table from before per-user keys; the UPDATE keeps the first one
            # made when several sidecars race, and the SELECT after it reads the one that stands.
            self._q(
                "UPDATE tables SET user_secret=%s WHERE id=%s AND user_secret IS NULL",
                (secrets.token_hex(32), table_id),
            )
            rows = self._q("SELECT user_secret FROM tables WHERE id=%s", (table_id,))
        return bytes.fromhex(rows[0][0])

    # --- events -------------------------------------------------------------------

    def events(self, table_id: str, since: int = 0, upto: int | None = None) -> list[tuple[int, bytes]]:
        return [
            (s, bytes(d))
            for s, d in self._q(
                "SELECT seq, data FROM events WHERE table_id=%s AND seq>%s AND seq<=%s ORDER BY seq",
                (table_id, since, upto if upto is not None else 2**62),
            )
        ]

    def request_ids(self, table_id: str) -> list[str]:
        return [r for (r,) in self._q("SELECT request_id FROM requests WHERE table_id=%s", (table_id,))]

    def request(self, table_id: str, request_id: str) -> StoredRequest | None:
        rows = self._q(_REQUEST, (table_id, request_id))
        return _stored(rows[0]) if rows else None

    def head(self, table_id: str) -> int:
        rows = self._q("SELECT head FROM tables WHERE id=%s", (table_id,))
        if not rows:
            raise KeyError(table_id)
        head: int = rows[0][0]
        return head

    def append_sync(
        self, table_id: str, events: list[tuple[int, bytes]], request: tuple[str, str, bytes] | None
    ) -> None:
        """Append on the caller's thread (CLI, tests)."""
        args = _append_args(table_id, events, request)
        if args is None:
            return
        with self._sync.connection() as db:
            last = _appended(db.execute(_APPEND, args).fetchone())
        _check(table_id, last, events)

    async def append(
        self, table_id: str, events: list[tuple[int, bytes]], request: tuple[str, str, bytes] | None
    ) -> None:
        """Append atomically; returns once committed. Raises :class:`Behind` when the table moved on.

        Appends waiting at the same time share a transaction, sent in one round trip (group commit,
        as the SQLite writer does): one commit, one WAL flush for all of them."""
        args = _append_args(table_id, events, request)
        if args is None:
            return
        fut: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self._waiting.append((args, fut))
        if self._writers < WRITERS:
            self._writers += 1
            task = asyncio.create_task(self._write())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        try:
            last = await fut
        except (psycopg.Error, PoolTimeout) as exc:
            last = await self._recover(table_id, args, request, exc)
        _check(table_id, last, events)

    async def append_actions(self, table_id: str, actions: list[Action]) -> None:
        """Append several actions of a table in order, each atomically; a refusal (:class:`Behind`) stops at
        the action refused, those before it stored. (The server appends one action at a time here: each
        may need preparing again in turn.)"""
        for events, request in actions:
            await self.append(table_id, events, request)

    async def _write(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting, []
                batch.sort(key=lambda item: item[0][0])  # by table: every sidecar locks rows in one order
                try:
                    pool = await self._pool()
                    async with pool.connection() as db:
                        async with db.pipeline():
                            async with db.transaction():
                                curs = [await db.execute(_APPEND, args) for args, _ in batch]
                        results = [_appended(await cur.fetchone()) for cur in curs]
                except Exception as exc:  # every append of the batch hears it, and checks on its own
                    for _, fut in batch:
                        if not fut.done():
                            fut.set_exception(exc)
                    continue
                for (_, fut), last in zip(batch, results):
                    if not fut.done():
                        fut.set_result(last)
        finally:
            self._writers -= 1

    async def _recover(
        self, table_id: str, args: tuple[Any, ...], request: tuple[str, str, bytes] | None, exc: BaseException
    ) -> int | None:
        """The batch of this append failed (a connection broke, the database restarted): did it commit?"""
        if request is None:
            raise ConnectionError(f"the ledger is unreachable: {_first_line(exc)}") from None
        try:
            if self._async is not None:
                await self._async.check()  # drop the other broken connections, and ask on a fresh one
            async with await psycopg.AsyncConnection.connect(self.url, **self._kwargs) as db:
                cur = await db.execute(
                    "SELECT t.head, r.seq FROM tables t LEFT JOIN requests r"
                    " ON r.table_id = t.id AND r.request_id = %s WHERE t.id = %s",
                    (request[0], table_id),
                )
                row = await cur.fetchone()
                if row is not None and row[1] is not None:  # it did: answered from the ledger like any retry
                    raise Behind(table_id, row[0])
                cur = await db.execute(_APPEND, args)  # it did not: append again, once, alone
                return _appended(await cur.fetchone())
        except (psycopg.OperationalError, PoolTimeout) as again:
            raise ConnectionError(f"the ledger is unreachable: {_first_line(again)}") from None

    async def read_since(self, table_id: str, since: int) -> list[Row]:
        """The events after ``since``, in order, each with its batch and (on a batch's first) request id."""
        pool = await self._pool()
        async with pool.connection() as db:
            return await _read_since(db, table_id, since)

    @contextlib.asynccontextmanager
    async def turn(self, table_id: str, since: int, request_id: str) -> AsyncIterator[Turn]:
        """The table's row locked until the block ends: read, prepare and append with nobody in between.

        One round trip locks the row (waiting for it), reads the events after ``since`` and looks up
        ``request_id``; :meth:`Turn.append` appends and commits in another. Without an append the turn
        commits nothing; an exception rolls it back. The fast path is :meth:`append`; a sidecar whose
        append was refused takes a turn, so a busy table costs it one refusal, not a string of them."""
        pool = await self._pool()
        if self._turns is None:
            self._turns = asyncio.Semaphore(TURNS)
        try:
            # A turn may wait for the row while holding a connection: a few at a time, so the batches of
            # appends and the reads always find one (they never wait for a row, so they always finish).
            async with self._turns, pool.connection() as db:
                done = False
                try:
                    async with db.pipeline():
                        await db.execute("BEGIN")
                        head = await db.execute("SELECT head FROM tables WHERE id=%s FOR UPDATE", (table_id,))
                        rows = await db.execute(_READ_SINCE, (table_id, since))
                        stored = await db.execute(_REQUEST, (table_id, request_id))
                    found = await head.fetchone()
                    if found is None:
                        raise KeyError(table_id)
                    turn = Turn(db, table_id, found[0], _rows(await rows.fetchall()), _stored(await stored.fetchone()))
                    yield turn
                    if not turn.committed:
                        await db.execute("ROLLBACK")
                    done = True
                finally:
                    if not done and not db.closed:
                        with contextlib.suppress(psycopg.Error):
                            await db.execute("ROLLBACK")
        except (psycopg.OperationalError, PoolTimeout) as exc:
            raise ConnectionError(f"the ledger is unreachable: {_first_line(exc)}") from None

    async def heads(self, table_ids: list[str]) -> dict[str, int]:
        """The ledger's head of each of these tables."""
        pool = await self._pool()
        async with pool.connection() as db:
            cur = await db.execute("SELECT id, head FROM tables WHERE id = ANY(%s)", (table_ids,))
            return dict(await cur.fetchall())

    async def aclose(self) -> None:
        """Close the asynchronous pool (on the loop that opened it)."""
        if self._async is not None:
            pool, self._async = self._async, None
            await pool.close()

    def close(self) -> None:
        """Close the connections; closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        self._sync.close()


class Turn:
    """A table's row locked in an open transaction (see :meth:`PostgresLedger.turn`): the table's
    ``head``, the ``rows`` after the seq asked for, and the ``stored`` reply of the request id, if any."""

    def __init__(
        self, db: psycopg.AsyncConnection, table_id: str, head: int, rows: list[Row], stored: StoredRequest | None
    ) -> None:
        self.db, self.table_id, self.head, self.rows, self.stored = db, table_id, head, rows, stored
        self.committed = False

    async def append(self, events: list[tuple[int, bytes]], request: tuple[str, str, bytes] | None) -> None:
        """Append and commit, in one round trip."""
        args = _append_args(self.table_id, events, request)
        if args is None:
            return
        async with self.db.pipeline():
            cur = await self.db.execute(_APPEND, args)
            await self.db.execute("COMMIT")
        self.committed = True
        last = _appended(await cur.fetchone())
        _check(self.table_id, last, events)


_READ_SINCE = (
    "SELECT e.seq, e.batch, e.data, r.request_id FROM events e"
    " LEFT JOIN requests r ON r.table_id = e.table_id AND r.seq = e.seq"
    " WHERE e.table_id=%s AND e.seq>%s ORDER BY e.seq"
)
_REQUEST = "SELECT role, reply FROM requests WHERE table_id=%s AND request_id=%s"


def _rows(found: list[tuple[Any, ...]]) -> list[Row]:
    return [Row(s, b, bytes(d), r) for s, b, d, r in found]


def _stored(found: tuple[Any, ...] | None) -> StoredRequest | None:
    return StoredRequest(found[0], bytes(found[1])) if found else None


async def _read_since(db: psycopg.AsyncConnection, table_id: str, since: int) -> list[Row]:
    cur = await db.execute(_READ_SINCE, (table_id, since))
    return _rows(await cur.fetchall())


_APPEND = "SELECT verdict_append(%s, %s, %s, %s, %s, %s)"


def _appended(row: tuple[Any, ...] | None) -> int | None:
    """What :data:`_APPEND` answered: the new head, ``-1 - head`` when refused, None for no such table.

    psycopg types ``fetchone()`` as optional; a ``SELECT`` of a function always yields one row, so a
    missing one means the statement did not run as written, and says so instead of indexing None.
    """
    if row is None:
        raise RuntimeError(
            "the ledger's verdict_append answered no row; it answers one to every append (the new head, a refusal or null)"
        )
    last: int | None = row[0]
    return last


def _append_args(
    table_id: str, events: list[tuple[int, bytes]], request: tuple[str, str, bytes] | None
) -> tuple[Any, ...] | None:
    if not events:
        return None
    first = events[0][0]
    if [s for s, _ in events] != list(range(first, first + len(events))):
        raise ValueError("the seqs of one append follow each other")
    rid, role, reply = request if request is not None else (None, None, None)
    return (table_id, first, [d for _, d in events], rid, role, reply)


def _check(table_id: str, last: int | None, events: list[tuple[int, bytes]]) -> None:
    if last is None:
        raise KeyError(table_id)
    if last < 0:
        raise Behind(table_id, -1 - last)


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def migrate(db: psycopg.Connection) -> int:
    """Bring the schema to :data:`SCHEMA_VERSION`; safe when several sidecars start at once."""
    with db.transaction():
        db.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        db.execute("CREATE TABLE IF NOT EXISTS verdict_schema (version INTEGER NOT NULL)")
        row = db.execute("SELECT max(version) FROM verdict_schema").fetchone()
        version = row[0] if row and row[0] is not None else 0
        if version > SCHEMA_VERSION:
            raise RuntimeError(
                f"the ledger's schema is version {version}, newer than this sidecar's {SCHEMA_VERSION}: upgrade verdict"
            )
        for number, sql in MIGRATIONS:
            if number > version:
                db.execute(sql)
                db.execute("INSERT INTO verdict_schema (version) VALUES (%s)", (number,))
                version = number
    return version
