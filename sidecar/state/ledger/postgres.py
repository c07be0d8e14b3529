"""The PostgreSQL ledger: several sidecars over one database, any sidecar serving any table.

PostgreSQL keeps each table's order, its request ids and their durability; ``LISTEN``/``NOTIFY``
tells the sidecars that a table has new events: the ledger is :class:`~.protocols.Listening`
(:meth:`PostgresLedger.notes`, which :mod:`sidecar.server.bus` listens to; the channels and the listening
connection are :mod:`.pg_listener`'s). Its schema is :mod:`.pg_migrations`'s.

A turn's append (:meth:`PostgresLedger.write`) is one call of ``verdict_append_many`` in the committing
transaction: it locks the table's row, refuses the whole turn when the row is locked by another sidecar
at that moment, when one of its request ids is already taken on that table, or when the table's head is
no longer the seq just before it (another sidecar appended first); else it inserts the events, the
requests' replies and the new head, and notifies once per action. Turns of several tables waiting together
share one transaction (group commit). So seqs have no gap and no duplicate however many sidecars append at
once, and a request id rolls once per table. A refused turn is the ledger's to retry: the table's owner
drops what it prepared, and the ledger takes the table's row lock, hands it the events it missed and the
replies others stored for its ids, and has it prepare again (the events of an action depend on the state
they follow, so they cannot simply be renumbered). A table refused once is written in turns for a while
(:data:`CONTENDED_FOR`): under contention a turn costs two round trips and never a refusal.

Every serving call runs on the asynchronous pool through the ledger's :class:`~.guard.Guard`:
bounded in time, refused at once while the database is known to be down (frozen, unreachable), and
probed until it answers again. The administration calls (the CLI) use a small pool of blocking
connections with bounded connect and statement timeouts.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import Counter
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from typing import Any

try:
    import psycopg
    from psycopg.pq import TransactionStatus
    from psycopg_pool import AsyncConnectionPool, ConnectionPool, PoolTimeout
except ImportError as exc:  # pragma: no cover - depends on the install
    raise ImportError("the PostgreSQL ledger needs the optional extra: pip install 'verdict[postgres]'") from exc

from sidecar import config

from .check_index import check_ids
from .guard import BOUND, Guard, first_line, within
from .pg_listener import CHANNEL, KEYS_NOTE, PgListener, channel_sql, parse_note
from .pg_migrations import migrate
from .protocols import (
    Access,
    Action,
    LedgerUnavailable,
    Note,
    Request,
    Row,
    StoredRequest,
    TableInfo,
    TableKeys,
    Writer,
)
from .request_window import RequestWindow
from .table_keys import new_keys, new_secret, new_table, role_of

WRITERS = config.PG_WRITERS
TURNS = config.PG_TURNS
TIMEOUT_MS = config.PG_ADMIN_TIMEOUT_MS
CONTENDED_FOR = config.PG_CONTENDED_FOR


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    return re.sub(r"(://[^:/@]+):[^@/]*@", r"\1:***@", url)


class PostgresLedger:
    """The ledger on PostgreSQL; ``url`` is a libpq URL, ``postgresql://user:pass@host/db``."""

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
            raise LedgerUnavailable(f"cannot reach the PostgreSQL ledger at {redact(url)}: {first_line(exc)}") from None
        # The administration calls (the CLI) are rare: check a connection before lending it.
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
        self._turn_slots: asyncio.Semaphore | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._async_lock: asyncio.Lock | None = None
        self._contended: dict[str, float] = {}
        """Tables refused lately, and when: written in turns until :data:`CONTENDED_FOR` has passed."""
        self._closed = False
        self._listening: PgListener | None = None
        self._listened: dict[str, asyncio.Future[None] | None] = {}
        """The tables listened to, each with its ``LISTEN`` while that is under way (None once answered)."""
        self.received: Counter[str] = Counter()
        """Notifications that reached this sidecar, per table (read or passed on)."""
        # Unreachable (no connection to be had, one that broke): down until a probe connects again.
        self.guard = Guard(
            "PostgreSQL ledger",
            (psycopg.Error, PoolTimeout, OSError),
            self._probe,
            down_on=(psycopg.OperationalError, PoolTimeout, OSError),
        )
        self.refusals = 0
        """Turns the database refused because the table had moved on (or an id was taken)."""
        self.turns = 0
        """Turns written with the table's row locked first."""
        self.window = RequestWindow()

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
                        kwargs={**self._kwargs, "connect_timeout": max(2, int(BOUND))},
                        open=False,
                        timeout=BOUND,
                        name="verdict-async",
                    )
                    await pool.open()
                    self._async = pool
        return self._async

    async def _aq(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        pool = await self._pool()
        for attempt in (1, 2):
            try:
                async with pool.connection() as db:
                    cur = await db.execute(sql, params)
                    return await cur.fetchall() if cur.description else []
            except psycopg.OperationalError:
                # a pooled connection that broke meanwhile (the database restarted, a proxy cut it): once more,
                # on a connection checked first; a second failure is the database's
                if attempt == 2:
                    raise
                await pool.check()
        raise AssertionError("unreachable")

    async def _probe(self) -> None:
        async with await psycopg.AsyncConnection.connect(
            self.url, **{**self._kwargs, "connect_timeout": max(2, int(BOUND))}
        ) as db:
            await db.execute("SELECT 1")
        if self._async is not None:
            await self._async.check()  # drop the connections that broke meanwhile

    # --- serving ------------------------------------------------------------------

    async def find_table(self, table_id: str) -> TableInfo | None:
        rows = await self.guard.run(
            self._aq("SELECT id, name, created FROM tables WHERE id=%s", (table_id,)), "reading a table"
        )
        return TableInfo(*rows[0]) if rows else None

    async def find_role(self, table_id: str, key: str) -> str | None:
        rows = await self.guard.run(
            self._aq("SELECT gm_hash, player_hash, observer_hash FROM tables WHERE id=%s", (table_id,)),
            "reading a table's keys",
        )
        return _role(rows, key)

    async def find_user_secret(self, table_id: str) -> bytes | None:
        return await self.guard.run(self._user_secret(table_id), "reading a table's secret")

    async def _user_secret(self, table_id: str) -> bytes | None:
        rows = await self._aq("SELECT user_secret FROM tables WHERE id=%s", (table_id,))
        if rows and rows[0][0] is None:
            # made on first use for a table from before per-user keys; the first one made stands
            await self._aq(_GIVE_SECRET, (new_secret(), table_id))
            rows = await self._aq("SELECT user_secret FROM tables WHERE id=%s", (table_id,))
        return bytes.fromhex(rows[0][0]) if rows else None

    async def find_access(self, table_id: str, key: str) -> Access | None:
        return await self.guard.run(self._access(table_id, key), "reading a table's keys")

    async def _access(self, table_id: str, key: str) -> Access | None:
        for _ in (1, 2):
            rows = await self._aq(
                "SELECT gm_hash, player_hash, observer_hash, user_secret FROM tables WHERE id=%s", (table_id,)
            )
            if not rows:
                return None
            gm, player, observer, secret = rows[0]
            if secret is not None:
                return Access(role_of((gm, player, observer), key), bytes.fromhex(secret), gm)
            # made on first use for a table from before per-user keys; the first one made stands
            await self._aq(_GIVE_SECRET, (new_secret(), table_id))
        raise psycopg.DataError(f"table {table_id!r} keeps no user secret")

    async def find_keys(self, table_ids: list[str]) -> dict[str, str]:
        rows = await self.guard.run(
            self._aq("SELECT id, gm_hash FROM tables WHERE id = ANY(%s)", (table_ids,)), "reading tables' keys"
        )
        return {table_id: mark for table_id, mark in rows}

    async def read_events(self, table_id: str, since: int = 0, upto: int | None = None) -> list[tuple[int, bytes]]:
        rows = await self.guard.run(
            self._aq(_EVENTS, (table_id, since, upto if upto is not None else 2**62)), "reading events"
        )
        return [(s, bytes(d)) for s, d in rows]

    async def read_check_events(self, table_id: str, check_id: str) -> list[tuple[int, bytes]]:
        rows = await self.guard.run(self._aq(_CHECK, (table_id, check_id)), "reading a check")
        return [(s, bytes(d)) for s, d in rows]

    async def read_rows(self, table_id: str, since: int) -> list[Row]:
        return _rows(await self.guard.run(self._aq(_READ_SINCE, (table_id, since)), "reading events"))

    async def heads(self, table_ids: list[str]) -> dict[str, int]:
        rows = await self.guard.run(
            self._aq("SELECT id, head FROM tables WHERE id = ANY(%s)", (table_ids,)), "reading heads"
        )
        return {table_id: head for table_id, head in rows}

    async def find_request(self, table_id: str, request_id: str) -> StoredRequest | None:
        rows = await self.guard.run(self._aq(_REQUEST, (table_id, request_id)), "reading a request")
        return _stored(rows[0]) if rows else None

    async def find_request_ids(self, table_id: str) -> list[str]:
        return [key for key, _ in await self.find_window(table_id)]

    async def find_window(self, table_id: str) -> list[tuple[str, float]]:
        rows = await self.guard.run(
            self._aq(_WINDOW, (table_id, self.window.age, self.window.count)), "reading request ids"
        )
        return [(key, created) for key, created in rows]

    async def prune_requests(self, batch: int = 2000) -> int:
        """Delete up to ``batch`` stored requests outside the window; several sidecars may at once."""
        old = await within(self._aq(_PRUNE, (self.window.age, batch)), 10 * BOUND)
        if len(old) >= batch:
            return len(old)
        beyond = await within(self._aq(_PRUNE_COUNT, (self.window.count, batch - len(old))), 10 * BOUND)
        return len(old) + len(beyond)

    async def find_snapshot(self, table_id: str) -> tuple[int, str, bytes] | None:
        rows = await self.guard.run(self._aq(_SNAPSHOT, (table_id,)), "reading a snapshot")
        return (rows[0][0], rows[0][1], bytes(rows[0][2])) if rows else None

    async def store_snapshot(self, table_id: str, seq: int, version: str, data: bytes) -> None:
        await within(self._aq(_STORE_SNAPSHOT, (table_id, seq, version, data)), 10 * BOUND)

    async def notes(
        self, listening: Callable[[], Awaitable[None]], wanted: Callable[[str], bool] | None = None
    ) -> AsyncGenerator[Note, None]:
        """The tables this sidecar listens to (:meth:`listen`) as they are appended to, by another sidecar or
        this one, from ``NOTIFY``, on a connection of its own; a notification of a table ``wanted`` refuses
        is passed on undecoded (only its table id is read)."""
        try:  # bounded, but not through the guard: a bus that cannot listen yet holds no request up
            db = await within(self._listener(), BOUND)
        except (TimeoutError, psycopg.Error, OSError) as exc:
            raise LedgerUnavailable(f"the PostgreSQL ledger cannot be listened to: {first_line(exc)}") from None
        listener = self._listening = PgListener(db)
        try:
            # every table listened to before (a connection that dropped and came back): then the caller
            # catches up on what was committed while nobody listened
            if self._listened:
                await listener.command(" ".join(f"LISTEN {channel_sql(t)};" for t in self._listened))
            await listening()
            while True:
                for payload in await listener.payloads():
                    table_id = payload.partition(":")[0]
                    self.received[table_id] += 1
                    if wanted is not None and not wanted(table_id):
                        continue
                    yield parse_note(payload)
        except psycopg.Error as exc:
            raise LedgerUnavailable(f"the PostgreSQL ledger stopped notifying: {first_line(exc)}") from None
        finally:
            if self._listening is listener:
                self._listening = None
            listener.close()
            try:
                await within(db.close(), BOUND)
            except (Exception, asyncio.CancelledError):
                pass

    async def _listener(self) -> psycopg.AsyncConnection:
        return await psycopg.AsyncConnection.connect(
            self.url, **{**self._kwargs, "connect_timeout": max(2, int(BOUND)), "application_name": "verdict-bus"}
        )

    @property
    def listened(self) -> frozenset[str]:
        """The tables this sidecar listens to (or will, once its listening connection is back)."""
        return frozenset(self._listened)

    async def listen(self, table_id: str) -> None:
        """Hear the table's notifications from now on: when this returns, every commit at the table after
        the ledger's answer to ``LISTEN`` will be notified (a caller reads what came before). A table
        listened to already costs nothing; while the listening connection is down, the table is listened to
        when it comes back (the bus then catches up by head). Never raises: a listening connection that
        fails is the bus's to reconnect."""
        if table_id in self._listened:
            pending = self._listened[table_id]
            if pending is None:
                return
        else:
            listener = self._listening
            if listener is None:
                self._listened[table_id] = None
                return
            pending = self._listened[table_id] = listener.command(f"LISTEN {channel_sql(table_id)}")
        try:
            await asyncio.shield(pending)
        except Exception:  # the connection broke: it is listened to again on the next one
            pass
        finally:
            if self._listened.get(table_id) is pending:
                self._listened[table_id] = None

    def unlisten(self, table_id: str) -> None:
        """Stop hearing the table (this sidecar has no connection at it any more); sent after any ``LISTEN``
        asked before, so a join that comes meanwhile listens again after it."""
        if table_id not in self._listened:
            return
        del self._listened[table_id]
        if self._listening is not None:
            self._listening.command(f"UNLISTEN {channel_sql(table_id)}")

    async def write(self, table_id: str, head: int, writer: Writer) -> None:
        if self._contended.get(table_id, -CONTENDED_FOR) < time.monotonic() - CONTENDED_FOR:
            self._contended.pop(table_id, None)
            actions = await writer.prepare({})
            if not actions:
                return
            last = await self.guard.run(
                self._append_surely(_many_args(table_id, head + 1, actions, self.window)), "appending"
            )
            if last is None:
                raise LedgerUnavailable(f"no table {table_id!r} in the ledger")
            if last >= 0:
                return
            # Another sidecar appended first, holds the row, or took one of the ids: nothing was stored.
            self.refusals += 1
            self._contended[table_id] = time.monotonic()
            head = await writer.reset()
        await self._turn(table_id, head, writer)

    async def _append_surely(self, args: tuple[Any, ...]) -> int | None:
        """:meth:`_append`, and when its connection broke under it (the database restarted, a proxy cut it),
        the ledger's word on whether it committed, asked on a fresh connection: if not, it is appended again,
        once (a turn is all or nothing, and its first request id tells which)."""
        try:
            return await self._append(args)
        except (psycopg.OperationalError, PoolTimeout):
            rid = next((r for r in args[4] if r is not None), None)
            if rid is None:
                raise
        if self._async is not None:
            await self._async.check()  # drop the other broken connections
        async with await psycopg.AsyncConnection.connect(
            self.url, **{**self._kwargs, "connect_timeout": max(2, int(BOUND))}
        ) as db:
            cur = await db.execute("SELECT seq FROM requests WHERE table_id=%s AND request_id=%s", (args[0], rid))
            row = await cur.fetchone()
            if row is not None:  # stored: by this turn (its head), or first by another sidecar (refused)
                return args[1] + len(args[2]) - 1 if row[0] == args[1] else -1
            cur = await db.execute(_APPEND_MANY, args)
            return _appended(await cur.fetchone())

    async def _append(self, args: tuple[Any, ...]) -> int | None:
        """Append one table's turn in the next group commit; its new head, ``-1 - head`` if refused."""
        fut: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self._waiting.append((args, fut))
        if self._writers < WRITERS:
            self._writers += 1
            task = asyncio.create_task(self._write())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return await fut  # cancelled (out of time) before it is sent, it is not sent

    async def _write(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting, []
                # a turn whose caller stopped waiting (out of time) is not sent: it was refused
                batch = [(args, fut) for args, fut in batch if not fut.done()]
                if not batch:
                    continue
                batch.sort(key=lambda item: item[0][0])  # by table: every sidecar locks rows in one order
                try:
                    pool = await self._pool()
                    async with pool.connection() as db:
                        async with db.pipeline():
                            async with db.transaction():
                                curs = [await db.execute(_APPEND_MANY, args) for args, _ in batch]
                        results = [_appended(await cur.fetchone()) for cur in curs]
                except Exception as exc:  # every turn of the batch hears it
                    for _, fut in batch:
                        if not fut.done():
                            fut.set_exception(exc)
                    continue
                for (_, fut), last in zip(batch, results):
                    if not fut.done():
                        fut.set_result(last)
        finally:
            self._writers -= 1

    async def _turn(self, table_id: str, head: int, writer: Writer) -> None:
        """The table's row locked, the events after ``head`` and the stored replies of the writer's ids read,
        in one round trip; the writer catches up and prepares; its actions appended and committed in another."""
        self.turns += 1
        pool = await self._pool()
        if self._turn_slots is None:
            self._turn_slots = asyncio.Semaphore(TURNS)
        # A turn may wait for the row while holding a connection: a few at a time, so the group commits and
        # the reads always find one (they never wait for a row, so they always finish).
        async with self._turn_slots:
            db = await self.guard.run(pool.getconn(), "taking a connection")
            try:
                rows, answered = await self.guard.run(
                    _lock_and_read(db, table_id, head, writer.request_ids, self.window), "locking a table"
                )
                if rows or answered:  # others still write to this table: stay in turns
                    self._contended[table_id] = time.monotonic()
                await writer.caught_up(rows)
                actions = await writer.prepare(answered)
                if actions:
                    args = _many_args(table_id, (rows[-1].seq if rows else head) + 1, actions, self.window)
                    last = await self.guard.run(_append_and_commit(db, args), "appending")
                    if last is None or last < 0:  # cannot be, with the row locked: a bug, said as such
                        raise RuntimeError(f"the ledger refused a turn at table {table_id!r} with its row locked")
                else:
                    await self.guard.run(db.execute("ROLLBACK"), "ending a turn")
            finally:
                if db.info.transaction_status != TransactionStatus.IDLE:
                    # out of time, or failed in the middle: the database rolls it back when the connection goes
                    await db.close()
                await pool.putconn(db)

    async def aclose(self) -> None:
        """Close the asynchronous pool (on the loop that opened it)."""
        self.guard.close()
        for task in list(self._tasks):
            task.cancel()
        if self._async is not None:
            pool, self._async = self._async, None
            await pool.close(timeout=BOUND)

    # --- administration -------------------------------------------------------------

    def create_table(self, name: str) -> TableKeys:
        keys, row = new_table(name)
        self._q(
            "INSERT INTO tables (id, name, gm_hash, player_hash, observer_hash, created, user_secret)"
            " VALUES (%s,%s,%s,%s,%s,%s,%s)",
            row,
        )
        return keys

    def first_table(self, name: str) -> TableKeys | None:
        return None  # several sidecars start at once: the host creates each group's table (verdict table create)

    def rotate_keys(self, table_id: str) -> TableKeys:
        keys, stored = new_keys(table_id)
        # Said on the table's channel as it commits: every sidecar with sessions at the table ends those of the
        # old keys at once (a payload without a head, which a sidecar reads as "look at the table again").
        rows = self._q(_ROTATE, (*stored, table_id))
        if not rows:
            raise KeyError(table_id)
        return keys

    def tables(self) -> list[TableInfo]:
        return [TableInfo(*r) for r in self._q("SELECT id, name, created FROM tables ORDER BY created")]

    def table(self, table_id: str) -> TableInfo | None:
        rows = self._q("SELECT id, name, created FROM tables WHERE id=%s", (table_id,))
        return TableInfo(*rows[0]) if rows else None

    def role(self, table_id: str, key: str) -> str | None:
        return _role(self._q("SELECT gm_hash, player_hash, observer_hash FROM tables WHERE id=%s", (table_id,)), key)

    def user_secret(self, table_id: str) -> bytes | None:
        rows = self._q("SELECT user_secret FROM tables WHERE id=%s", (table_id,))
        if not rows:
            return None
        if rows[0][0] is None:
            self._q(_GIVE_SECRET, (new_secret(), table_id))
            rows = self._q("SELECT user_secret FROM tables WHERE id=%s", (table_id,))
        return bytes.fromhex(rows[0][0])

    def events(self, table_id: str, since: int = 0, upto: int | None = None) -> list[tuple[int, bytes]]:
        return [(s, bytes(d)) for s, d in self._q(_EVENTS, (table_id, since, upto if upto is not None else 2**62))]

    def check_events(self, table_id: str, check_id: str) -> list[tuple[int, bytes]]:
        return [(s, bytes(d)) for s, d in self._q(_CHECK, (table_id, check_id))]

    def request_ids(self, table_id: str) -> list[str]:
        return [r for (r,) in self._q("SELECT request_id FROM requests WHERE table_id=%s", (table_id,))]

    def snapshot(self, table_id: str) -> tuple[int, str, bytes] | None:
        rows = self._q(_SNAPSHOT, (table_id,))
        return (rows[0][0], rows[0][1], bytes(rows[0][2])) if rows else None

    def delete_snapshots(self, table_id: str | None = None) -> int:
        if table_id is None:
            return len(self._q("DELETE FROM snapshots RETURNING 1"))
        return len(self._q("DELETE FROM snapshots WHERE table_id=%s RETURNING 1", (table_id,)))

    def request(self, table_id: str, request_id: str) -> StoredRequest | None:
        rows = self._q(_REQUEST, (table_id, request_id))
        return _stored(rows[0]) if rows else None

    def append_sync(self, table_id: str, events: list[tuple[int, bytes]], request: Request | None) -> None:
        """Append on the caller's thread (CLI, tests); refused (ValueError) when the table moved on."""
        if not events:
            return
        args = _many_args(table_id, events[0][0], [(events, request)], self.window)
        with self._sync.connection() as db:
            last = _appended(db.execute(_APPEND_MANY, args).fetchone())
        if last is None:
            raise KeyError(table_id)
        if last < 0:
            raise ValueError(f"table {table_id} is at seq {-1 - last} in the ledger, not {events[0][0] - 1}")

    def close(self) -> None:
        """Close the connections; closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        self._sync.close()


_READ_SINCE = (
    "SELECT e.seq, e.batch, e.data, r.request_id FROM events e"
    " LEFT JOIN requests r ON r.table_id = e.table_id AND r.seq = e.seq"
    " WHERE e.table_id=%s AND e.seq>%s ORDER BY e.seq"
)
_EVENTS = "SELECT seq, data FROM events WHERE table_id=%s AND seq>%s AND seq<=%s ORDER BY seq"
_CHECK = (
    "SELECT e.seq, e.data FROM check_events c JOIN events e ON e.table_id = c.table_id AND e.seq = c.seq"
    " WHERE c.table_id = %s AND c.check_id = %s ORDER BY c.seq"
)
_REQUEST = "SELECT role, reply FROM requests WHERE table_id=%s AND request_id=%s"
_ANSWERED = (
    "SELECT request_id, role, reply FROM requests r WHERE table_id=%s AND request_id = ANY(%s)"
    " AND verdict_in_window(r.table_id, r.requester, r.seq, r.created, %s, %s)"
)
_WINDOW = """
SELECT request_id, created FROM (
    SELECT request_id, created, seq,
           row_number() OVER (PARTITION BY requester ORDER BY seq DESC, created DESC) AS k
    FROM requests WHERE table_id=%s AND created > extract(epoch FROM clock_timestamp()) - %s
) AS w WHERE k <= %s ORDER BY seq, created
"""
_PRUNE = """
DELETE FROM requests WHERE (table_id, request_id) IN (
    SELECT table_id, request_id FROM requests WHERE created < extract(epoch FROM clock_timestamp()) - %s LIMIT %s
) RETURNING 1
"""
_PRUNE_COUNT = """
DELETE FROM requests WHERE (table_id, request_id) IN (
    SELECT table_id, request_id FROM (
        SELECT table_id, request_id,
               row_number() OVER (PARTITION BY table_id, requester ORDER BY seq DESC, created DESC) AS k
        FROM requests
    ) AS w WHERE k > %s LIMIT %s
) RETURNING 1
"""
_SNAPSHOT = "SELECT seq, version, data FROM snapshots WHERE table_id=%s"
_STORE_SNAPSHOT = """
INSERT INTO snapshots (table_id, seq, version, data, created)
VALUES (%s, %s, %s, %s, extract(epoch FROM clock_timestamp()))
ON CONFLICT (table_id) DO UPDATE SET seq = excluded.seq, version = excluded.version, data = excluded.data,
    created = excluded.created
WHERE excluded.seq > snapshots.seq OR excluded.version <> snapshots.version
"""
_GIVE_SECRET = "UPDATE tables SET user_secret=%s WHERE id=%s AND user_secret IS NULL"
_ROTATE = f"""
WITH rotated AS (
    UPDATE tables SET gm_hash=%s, player_hash=%s, observer_hash=%s, user_secret=%s WHERE id=%s RETURNING id
)
SELECT id, pg_notify('{CHANNEL}_' || md5(convert_to(id, 'UTF8')), id || ':{KEYS_NOTE}') FROM rotated
"""
_APPEND_MANY = "SELECT verdict_append_many(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"


def _role(rows: list[tuple[Any, ...]], key: str) -> str | None:
    return role_of(rows[0], key) if rows else None


def _rows(found: list[tuple[Any, ...]]) -> list[Row]:
    return [Row(s, b, bytes(d), r) for s, b, d, r in found]


def _stored(found: tuple[Any, ...] | None) -> StoredRequest | None:
    return StoredRequest(found[0], bytes(found[1])) if found else None


async def _lock_and_read(
    db: psycopg.AsyncConnection, table_id: str, since: int, request_ids: list[str], window: RequestWindow
) -> tuple[list[Row], Mapping[str, StoredRequest]]:
    """In one round trip: the table's row locked (waiting for it), the events after ``since``, and the
    replies stored for these ids."""
    async with db.pipeline():
        await db.execute("BEGIN")
        head = await db.execute("SELECT head FROM tables WHERE id=%s FOR UPDATE", (table_id,))
        rows = await db.execute(_READ_SINCE, (table_id, since))
        answered = await db.execute(_ANSWERED, (table_id, request_ids, window.age, window.count))
    if await head.fetchone() is None:
        raise LedgerUnavailable(f"no table {table_id!r} in the ledger")
    stored = {rid: StoredRequest(role, bytes(reply)) for rid, role, reply in await answered.fetchall()}
    return _rows(await rows.fetchall()), stored


async def _append_and_commit(db: psycopg.AsyncConnection, args: tuple[Any, ...]) -> int | None:
    async with db.pipeline():
        cur = await db.execute(_APPEND_MANY, args)
        await db.execute("COMMIT")
    return _appended(await cur.fetchone())


def _appended(row: tuple[Any, ...] | None) -> int | None:
    """What :data:`_APPEND_MANY` answered: the new head, ``-1 - head`` when refused, None for no such table.

    psycopg types ``fetchone()`` as optional; a ``SELECT`` of a function always yields one row, so a
    missing one means the statement did not run as written, and says so instead of indexing None.
    """
    if row is None:
        raise RuntimeError(
            "the ledger's verdict_append_many answered no row; it answers one to every append"
            " (the new head, a refusal or null)"
        )
    last: int | None = row[0]
    return last


def _many_args(table_id: str, first: int, actions: list[Action], window: RequestWindow) -> tuple[Any, ...]:
    """The arguments of :data:`_APPEND_MANY` for a turn's actions, whose events follow ``first - 1``."""
    data: list[bytes] = []
    sizes: list[int] = []
    rids: list[str | None] = []
    roles: list[str | None] = []
    replies: list[bytes | None] = []
    requesters: list[str | None] = []
    checks: list[str] = []
    check_seqs: list[int] = []
    seq = first
    for events, request in actions:
        if [s for s, _ in events] != list(range(seq, seq + len(events))) or not events:
            raise ValueError("the seqs of a turn's actions follow each other and the table's head")
        for at, d in enumerate(events, seq):
            for check_id in check_ids(table_id, d[1]):
                checks.append(check_id)
                check_seqs.append(at)
        seq += len(events)
        data += [d for _, d in events]
        sizes.append(len(events))
        if request is None:
            rids.append(None)
            roles.append(None)
            replies.append(None)
            requesters.append(None)
        else:
            rids.append(request[0])
            roles.append(request[1])
            replies.append(request[2])
            requesters.append(request[3])
    return (
        table_id,
        first,
        data,
        sizes,
        rids,
        roles,
        replies,
        requesters,
        window.age,
        window.count,
        checks,
        check_seqs,
    )
