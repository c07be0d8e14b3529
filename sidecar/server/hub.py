"""Tables held in memory, their connections, and the path of a request through them.

A state-changing request joins its table's queue. The table's drainer takes what waits there in turns:
each request is prepared into events by :class:`~sidecar.state.table.Table`, committed to it, the turn's
events are appended to the ledger (durable before anyone hears of them), and then everyone is sent what
:mod:`sidecar.state.hearing` says they hear: the requester its reply, everyone else on the table what they
may see of it, each connection in one write. The hub renders nothing itself.
"""

from __future__ import annotations

import asyncio
import json
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from json.encoder import encode_basestring_ascii
from typing import Any

import structlog

from protocol.v1 import codec
from protocol.v1 import messages as m
from protocol.v1.errors import ErrorCode
from sidecar import config
from sidecar.config import MAX_REQUEST_ID, REPLY_CACHE, REPLY_CACHE_BYTES, SLOW_PEER_BYTES
from sidecar.state import hearing
from sidecar.state.hearing import verified
from sidecar.state.ledger import (
    Action,
    Answered,
    Ledger,
    LedgerUnavailable,
    RequestWindow,
    Row,
    StoredRequest,
    requester,
)
from sidecar.state.table import SNAPSHOT_VERSION, ActionError, Pending, Table
from sidecar.state.visibility import Viewer

from .metrics import Metrics

__all__ = ["Connection", "HeldTable", "Hub", "client_request_id", "verified", "ws_frame"]

log = structlog.get_logger("verdict.hub")


@dataclass(eq=False)
class Connection:
    """One websocket: who is there and how to talk to them."""

    send: Any  # async (bytes) -> None
    role: m.Role
    user: str | None
    msgpack: bool = False
    backlog: Any = None
    """() -> bytes waiting in the socket's write buffer (the peer has not read them yet)."""
    drop: Any = None
    """async () -> None: close a peer that reads too slowly (it reconnects and resyncs from its seq)."""
    write: Any = None
    """(bytes, limit=None) -> bool | None: write an already framed websocket message in one call, without
    awaiting (False when the socket is closing, None and nothing written when more than ``limit`` bytes
    wait unread); the fan-out frames a message once for all who see the same."""
    keys: str | None = None
    """The mark of the table's keys its hello was let in with (:attr:`sidecar.state.keys.Identity.keys`); None:
    the mark the table was last seen with when it joined. The session ends once the table's keys are another."""
    close: Any = None
    """(code, reason) -> None: close the socket saying why (None: the socket behind :attr:`drop`)."""
    _key_head: str | None = field(default=None, init=False, repr=False)
    _requester: str | None = field(default=None, init=False, repr=False)
    viewer: Viewer = field(init=False, repr=False)
    """Who is there, as visibility sees them (the role and the user are fixed at hello)."""

    def __post_init__(self) -> None:
        self.viewer = Viewer(self.role, self.user)

    def request_key(self, rid: str) -> str:
        """A request id is an idempotency key per requester: the same id from someone else is another request.

        ``json.dumps([role, user, rid])`` without spaces, the role and user part written once per connection."""
        head = self._key_head
        if head is None:
            head = self._key_head = self.requester[:-1] + ","
        return head + encode_basestring_ascii(rid) + "]"  # what json.dumps(rid) writes, without its Python layers

    def end(self, code: int, reason: bytes) -> None:
        """Close the socket with this code and reason (it leaves its table's connections as it does)."""
        close = self.close
        if close is None:  # a socket's own bound methods lead to it
            close = getattr(getattr(self.drop, "__self__", None), "close", None)
        if close is not None:
            close(code, reason)

    @property
    def requester(self) -> str:
        """Who this connection's requests belong to (:func:`~sidecar.state.ledger.requester`), carried with
        each request to the request window and the ledger, so that nothing parses it back from a key."""
        who = self._requester
        if who is None:
            who = self._requester = requester(self.role, self.user)
        return who


def client_request_id(key: str) -> str:
    """The id the client chose, from a stored request key (:meth:`Connection.request_key`)."""
    if key.startswith("["):
        try:
            role_user_id = json.loads(key)
        except ValueError:
            return key
        if isinstance(role_user_id, list) and len(role_user_id) == 3 and isinstance(role_user_id[2], str):
            return role_user_id[2]
    return key  # a key of the id alone (a ledger of the first releases): the id itself


KEYS_ROTATED = 4403
"""The close code of a session whose keys were rotated (`verdict table rotate-keys`): its key opens the table no
more; a client asks for the new one instead of reconnecting with it."""
KEYS_ROTATED_REASON = b"the table's keys were rotated: connect with the new key"

INLINE = object()
"""A table's first turn after it was idle is taken by the requester that found it so."""

Told = tuple[list[bytes], bytes]
"""What a connection hears of an action: the messages, and the same as websocket frames for one write."""


@dataclass(eq=False)
class Job:
    """A state-changing request waiting in its table's queue, and then its outcome."""

    conn: Connection
    msg: Any
    rid: str
    done: asyncio.Future[None]
    """Set once the request is handled, told and its outcome below is known."""
    error: BaseException | None = None
    stored: tuple[str, bytes] | None = None
    """The reply another sidecar stored for this id first (a ledger others share): the answer instead."""
    staged: Any = None
    """(pending, reply) while the request's action waits in a batch for its append."""
    _waiters: asyncio.Future[None] | None = None

    def waited(self) -> asyncio.Future[None]:
        """A future set with :attr:`done`, for another request with the same id (who must not cancel ours)."""
        if self._waiters is None:
            self._waiters = asyncio.get_running_loop().create_future()
        return self._waiters

    def settle(self, held: HeldTable) -> None:
        if held.inflight.get(self.rid) is self:
            del held.inflight[self.rid]
        for fut in (self.done, self._waiters):
            if fut is not None and not fut.done():
                fut.set_result(None)


@dataclass(eq=False)
class HeldTable:
    """One table this sidecar holds: its state, its connections, and the requests under way on it."""

    table: Table
    connections: set[Connection] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    replies: OrderedDict[str, tuple[str, bytes]] = field(default_factory=OrderedDict)
    reply_bytes: int = 0
    known: Answered = field(default_factory=lambda: Answered(RequestWindow()))
    """The request ids this table answered inside its request window: any other id is a new request, and
    needs no look-up in the ledger."""
    inflight: dict[str, Job] = field(default_factory=dict)
    """Requests being handled, by key: the same id again waits for the first."""
    queue: list[Job] = field(default_factory=list)
    """State-changing requests waiting for the table's drainer, in arrival order."""
    drainer: asyncio.Task[None] | object | None = None
    """Who takes the table's turns: a task, :data:`INLINE` (a requester, for one turn) or nobody (idle)."""
    broken: bool = False
    """An append failed and reading the table back from the ledger did too: read it before the next action."""
    snapshotting: asyncio.Task[None] | None = None
    """The task writing a snapshot of the table, while it does."""
    idle_since: float | None = None
    """When the housekeeping first found the table without connections (None: it has some)."""
    gone: bool = False
    """Let go of (idle): no longer among the hub's tables; a join that still holds it takes it back."""
    keys: str | None = None
    """The mark of the table's keys when last looked at (:meth:`Hub.check_keys`)."""


class Hub:
    def __init__(self, ledger: Ledger, metrics: Metrics | None = None) -> None:
        self.ledger = ledger
        self.metrics = metrics or Metrics()
        self.tables: dict[str, HeldTable] = {}
        self._reading: dict[str, asyncio.Future[HeldTable | None]] = {}
        self.housekeeping_every = config.HOUSEKEEPING_EVERY
        self.snapshot_every = config.SNAPSHOT_EVERY
        self.snapshots = 0
        """Snapshots written (counted for tests and metrics)."""
        self.idle_after = config.IDLE_UNLOAD_AFTER
        self.unloaded = 0
        """Tables let go of for being idle (counted for tests and metrics)."""
        self._gone: weakref.WeakValueDictionary[str, HeldTable] = weakref.WeakValueDictionary()
        """Tables let go of that something still holds (a join under way): taken back, never read twice."""
        self._housekeeper: asyncio.Task[None] | None = None
        self.bus: Any = None
        """The bus (:mod:`.bus`): it applies and tells what others appended to a table in the ledger."""

    async def refresh(self, held: HeldTable) -> None:
        """Apply and tell what others appended to this table; the caller holds ``held.lock``. The bus listens
        to the table first (a join's refresh), so nothing committed after this read goes unheard."""
        if self.bus is not None:
            await self.bus.follow(held)
            await self.bus.catch_up(held)

    async def open_table(self, table_id: str) -> HeldTable | None:
        """The table held for a join, read from the ledger if this sidecar does not hold it yet: the loop
        serves everyone else meanwhile, and joins that come together read the table once. Raises
        :class:`LedgerUnavailable`."""
        held = self.tables.get(table_id)
        if held is not None:
            return held
        held = self._gone.get(table_id)
        if held is not None:  # let go of, and still held by a join under way: the same one, taken back
            held.gone = False
            return self.tables.setdefault(table_id, held)
        if self._housekeeper is None:
            self._housekeeper = asyncio.get_running_loop().create_task(self._housekeep())
        reading = self._reading.get(table_id)
        if reading is None:
            reading = self._reading[table_id] = asyncio.ensure_future(self._read(table_id))
            reading.add_done_callback(_forget(self._reading, table_id))
        read = await asyncio.shield(reading)
        return None if read is None else self.tables.setdefault(table_id, read)

    async def _read(self, table_id: str) -> HeldTable | None:
        if await self.ledger.find_table(table_id) is None:
            return None
        keys = (await self.ledger.find_keys([table_id])).get(table_id)  # before the joiner's welcome adopts them
        table = Table(table_id, self.ledger)
        await table.read()
        return HeldTable(table, known=Answered(self.ledger.window, await self.ledger.find_window(table_id)), keys=keys)

    # --- housekeeping (off the request path) ----------------------------------------

    async def _housekeep(self) -> None:
        while True:
            await asyncio.sleep(self.housekeeping_every)
            try:
                await self.housekeeping()
            except Exception:  # the next round tries again; serving goes on meanwhile
                log.exception("housekeeping_failed")

    async def housekeeping(self) -> None:
        """One round: a snapshot of each table that went on for :attr:`snapshot_every` events since its last,
        the tables idle for :attr:`idle_after` let go of, and the request ids that left the window forgotten,
        in memory and in the ledger."""
        now = time.monotonic()
        for held in list(self.tables.values()):
            held.known.prune()
            self.snapshot_soon(held)
            if held.snapshotting is not None:
                await asyncio.shield(held.snapshotting)
            if held.connections:
                held.idle_since = None
            elif held.idle_since is None:
                held.idle_since = now
            elif now - held.idle_since >= self.idle_after:
                await self.unload(held)
        try:
            for _ in range(100):  # bounded batches, each its own statement: reads go on between them
                if not await self.ledger.prune_requests():
                    break
        except LedgerUnavailable as exc:  # a store that does not answer: the next round tries again
            log.warning("prune_failed", error=exc.message)

    async def unload(self, held: HeldTable) -> bool:
        """Let go of a table nobody is connected to, its state snapshotted first (the next join loads it from
        there); False if it is in use after all."""
        table = held.table
        if table.durable > table.snapshot_seq and not held.broken:
            await self._snapshot(held, due=False)
        async with held.lock:
            if held.connections or held.queue or held.drainer is not None or held.inflight or held.broken:
                held.idle_since = None
                return False
            if self.tables.get(table.id) is held:
                del self.tables[table.id]
            held.gone = True
            self._gone[table.id] = held
        self.unloaded += 1
        log.info("table_unloaded", table=table.id, head=table.head)
        return True

    def snapshot_soon(self, held: HeldTable) -> None:
        """Write a snapshot of the table in a task of its own if it is due (off the request path)."""
        table = held.table
        if held.snapshotting is None and table.durable - table.snapshot_seq >= self.snapshot_every:
            held.snapshotting = asyncio.get_running_loop().create_task(self._snapshot(held))

    async def _snapshot(self, held: HeldTable, due: bool = True) -> None:
        table = held.table
        try:
            async with held.lock:  # the state at a head the ledger holds, nothing of a batch under way
                if held.broken or table.head != table.durable or table.head <= table.snapshot_seq:
                    return
                seq, data = table.head, table.saved()
            await self.ledger.store_snapshot(table.id, seq, SNAPSHOT_VERSION, data)
            table.snapshot_seq = max(table.snapshot_seq, seq)
            self.snapshots += 1
            log.info("snapshot_written", table=table.id, seq=seq, bytes=len(data))
        except Exception as exc:  # derived data: the next one is tried later, the events are the truth
            log.warning("snapshot_failed", table=table.id, error=str(exc) or repr(exc))
        finally:
            if due:
                held.snapshotting = None

    def close(self) -> None:
        """Stop the housekeeping (the server is stopping)."""
        if self._housekeeper is not None:
            self._housekeeper.cancel()
        for held in self.tables.values():
            if held.snapshotting is not None:
                held.snapshotting.cancel()

    # --- joining ------------------------------------------------------------------

    async def welcome(self, held: HeldTable, conn: Connection, since: int | None, server: str) -> m.Welcome:
        """The connection's ``welcome`` (:func:`.hearing.welcome`), what the table does not hold in memory
        read from the ledger without blocking the loop."""
        table = held.table
        if conn.keys is None:
            conn.keys = held.keys
        async with table.reading(table.welcome_reads(conn.viewer, since)):
            return hearing.welcome(table, conn.viewer, conn.role, since, server)

    async def check_keys(self, table_ids: list[str]) -> int:
        """End the sessions at these tables that were let in with keys the table no longer has (rotated by any
        process on the ledger), each closed with :data:`KEYS_ROTATED`; how many. One read for all of them.
        Raises :class:`LedgerUnavailable`."""
        marks = await self.ledger.find_keys(table_ids)
        ended = 0
        for table_id in table_ids:
            held, mark = self.tables.get(table_id), marks.get(table_id)
            if held is None or mark is None:
                continue
            held.keys = mark
            old = [conn for conn in held.connections if conn.keys is not None and conn.keys != mark]
            for conn in held.connections:
                if conn.keys is None:
                    conn.keys = mark
            for conn in old:
                held.connections.discard(conn)
                conn.end(KEYS_ROTATED, KEYS_ROTATED_REASON)
            if old:
                ended += len(old)
                log.info("sessions_ended", table=table_id, why="keys rotated", sessions=len(old))
        return ended

    # --- requests -----------------------------------------------------------------

    async def request(self, held: HeldTable, conn: Connection, msg: Any) -> None:
        """Handle a state-changing request (roll, follow, gm) idempotently, per requester.

        The request joins its table's queue; the table's drainer handles what waits there in turns (see
        :meth:`_drain`). Raises what refused it (an :class:`ActionError`), after nothing of it was applied."""
        if len(msg.id) > MAX_REQUEST_ID:
            raise ActionError(
                ErrorCode.INVALID_MESSAGE,
                f"`id` has {len(msg.id)} characters; a request id that is stored has at most {MAX_REQUEST_ID}",
            )
        rid = conn.request_key(msg.id)
        while (same := held.inflight.get(rid)) is not None:  # the same id is being handled: wait, then answer from it
            await asyncio.shield(same.waited())
        answered = rid in held.known  # inside the request window: answered from its first reply
        stored = held.replies.get(rid) if answered else None
        if stored is None and answered:
            row = await self.ledger.find_request(held.table.id, rid)
            stored = (row.role, row.reply) if row else None
        if stored is not None:
            return await self._answer(conn, rid, *stored)
        loop = asyncio.get_running_loop()
        job = Job(conn, msg, rid, loop.create_future())
        held.inflight[rid] = job
        held.queue.append(job)
        if held.drainer is None:
            # An idle table: the requester takes the first turn itself (no task to start: a lone client's
            # round trip), and hands the turns after it to a drainer of their own.
            held.drainer = INLINE
            try:
                await self._turn(held)
            finally:
                held.drainer = loop.create_task(self._drain(held)) if held.queue else None
        # Should the requester's task be cancelled, the job stays queued: it is handled and stored all the same.
        await job.done
        if job.error is not None:
            raise job.error
        if job.stored is not None:
            await self._answer(conn, rid, *job.stored)

    async def _drain(self, held: HeldTable) -> None:
        """Handle a table's queued requests, a turn at a time, until none waits.

        A turn takes every request waiting when it starts, as one batch (:meth:`_batch`): one hand-over of
        the table, one durable append, one write per peer."""
        try:
            while held.queue:
                await self._turn(held)
        finally:
            held.drainer = None
            for job in held.queue:  # only when the drainer itself was stopped (the server shutting down)
                job.error = ActionError(ErrorCode.LEDGER_UNAVAILABLE, "the sidecar is stopping; retry this request")
                job.settle(held)
            held.queue = []

    async def _turn(self, held: HeldTable) -> None:
        """Handle every request waiting at the table now (see :meth:`_drain`)."""
        async with held.lock:
            jobs, held.queue = held.queue, []
            try:
                if not await self.readable(held):
                    for job in jobs:
                        job.error = _unavailable()
                else:
                    await self._batch(held, jobs)
            except Exception as exc:  # a fault: whoever has no answer yet hears it, logged by the server
                held.broken = True  # the table may hold part of an action: read it back before the next
                for job in jobs:
                    if job.error is None and job.stored is None and job.rid not in held.known:
                        job.error = exc
            finally:
                for job in jobs:  # the requester hears its outcome once everything of the turn is sent
                    job.settle(held)
        self.snapshot_soon(held)

    async def _batch(self, held: HeldTable, jobs: list[Job]) -> None:
        """Handle a turn's requests at a table as one batch, through the ledger's :meth:`~Ledger.write`.

        Each request is prepared against the state the one before it left, and applied to the table in
        memory at once (so the next sees its effects), before any of it is durable (:class:`_Turn`). Nobody
        hears of it yet: what each connection is to hear is worked out as the action leaves the table and
        held back. Once the batch's one append is durable, each connection gets what it is to hear in one
        write, in seq order, and each requester its outcome. Should the append fail, the table goes back to
        what the ledger holds and every request of the batch is refused (``ledger_unavailable``): nothing was
        told, so nothing told is lost. Nobody reads the table in between: joins, ``state`` and ``verify`` wait
        for the table's lock, which the batch holds until it is told. What a ledger others share adds (their
        events first, a turn prepared again) is the ledger's to ask of the :class:`_Turn`."""
        turn = _Turn(self, held, jobs)
        try:
            await self.ledger.write(held.table.id, held.table.head, turn)
        except (LedgerUnavailable, asyncio.CancelledError) as exc:
            # One append: none of it is stored. The table drops what it applied in memory.
            held.broken = True
            log.warning("append_failed", table=held.table.id, actions=len(turn.staged), error=str(exc) or repr(exc))
            refusal = exc if isinstance(exc, LedgerUnavailable) else _unavailable()
            for job in (*turn.staged, *turn.judged):
                job.error = refusal
            for job in jobs:
                if job.error is None and job.stored is None:
                    job.error = refusal
            if isinstance(exc, asyncio.CancelledError):
                raise
            await self.readable(held)
            return
        if turn.staged:
            held.table.stored_up_to(turn.staged[-1].staged[0].events[-1][0])
            for job in turn.staged:
                self._remember(held, job, job.staged[1])
            await self._send(turn.out)
        if turn.broke:  # a commit failed in memory: read the table back, then handle the rest
            held.broken = True
            if await self.readable(held):
                await self._batch(held, turn.rest)
            else:
                for rest in turn.rest:
                    rest.error = _unavailable()

    async def readable(self, held: HeldTable) -> bool:
        """Read a table back from the ledger if an action may have been applied in part; False if that fails.
        Whoever reads the table (a join, ``state``, ``verify``) asks first, holding ``held.lock``. A table let
        go of while a join waited for it is taken back, and told what others appended meanwhile."""
        if held.gone:
            held.gone = False
            self.tables.setdefault(held.table.id, held)
            try:
                await self.refresh(held)
            except LedgerUnavailable:
                held.broken = True
        if held.broken:
            try:
                # What was stored before the failure, then what others (or an append that timed out and landed
                # after all) added since, told as any other sidecar's events are; anything else left, read.
                table = held.table
                await table.read(upto=table.durable)
                await self.refresh(held)
                if await self.ledger.read_events(table.id, table.head):
                    await table.read()
                # an append that landed after all: its ids are answered from their first reply
                held.known = Answered(self.ledger.window, await self.ledger.find_window(table.id))
                held.broken = False
            except LedgerUnavailable as exc:
                log.warning("table_reload_failed", table=held.table.id, error=str(exc))
            except Exception:
                log.exception("table_reload_failed", table=held.table.id)
        return not held.broken

    def _remember(self, held: HeldTable, job: Job, reply: bytes) -> None:
        held.replies[job.rid] = (job.conn.role, reply)
        held.reply_bytes += len(reply)
        held.known.add(job.rid, who=job.conn.requester)
        while len(held.replies) > REPLY_CACHE or held.reply_bytes > REPLY_CACHE_BYTES:
            held.reply_bytes -= len(held.replies.popitem(last=False)[1][1])

    async def _answer(self, conn: Connection, rid: str, role: str, reply: bytes) -> None:
        """Answer a request id already answered on this table with its first reply."""
        if role != conn.role:
            raise ActionError(
                ErrorCode.DUPLICATE_ID, f"request id {rid!r} was already used on this table; use a fresh id"
            )
        await conn.send(reply if not conn.msgpack else _to_msgpack(reply))

    def _prepare(self, held: HeldTable, conn: Connection, msg: Any) -> tuple[Pending, Any, hearing.Action]:
        """The request's action, prepared against the table (not yet applied), its reply, and how it is told."""
        table = held.table
        if isinstance(msg, (m.Roll, m.Follow)):
            _may_act(conn, msg)
        if isinstance(msg, m.Roll):
            pending = table.prepare_roll(msg, conn.viewer, msg.user if msg.user is not None else conn.user)
            tag = type(msg.check).__struct_config__.tag
            self.metrics.rolls[str(tag)] += 1
        elif isinstance(msg, m.Follow):
            pending = table.prepare_follow(msg, conn.viewer, msg.user if msg.user is not None else conn.user)
        elif isinstance(msg, m.Gm):
            if conn.role != "gm":
                raise ActionError(ErrorCode.FORBIDDEN, "only the GM can do that")
            pending = table.prepare_op(msg.op)
        else:
            raise ActionError(ErrorCode.UNKNOWN_TYPE, "not a request")
        action = hearing.Action(pending, msg.id)
        return pending, hearing.reply(table, action, conn.viewer), action

    async def tell(self, held: HeldTable, action: hearing.Action) -> None:
        """Tell everyone on the table what they may see of an action another sidecar committed."""
        out: dict[Connection, list[Told]] = {}
        self._told(held, None, action, out)
        await self._send(out)

    def _told(
        self,
        held: HeldTable,
        origin: Connection | None,
        action: hearing.Action,
        out: dict[Connection, list[Told]],
        reply: Told | None = None,
        reply_msg: Any = None,
    ) -> None:
        """Add to ``out`` what each connection on the table hears of an action: ``reply`` for ``origin``
        (the requester), for everyone else what :func:`.hearing.audiences` says, encoded and framed once for
        all who are told the same in the same encoding: the reply's own bytes when that is ``reply_msg``."""
        if origin is not None and reply is not None:
            out.setdefault(origin, []).append(reply)
        others = [(conn, conn.viewer) for conn in held.connections if conn is not origin]
        for messages, conns in hearing.audiences(held.table, action, others):
            framed: dict[bool, Told] = {}
            if reply is not None and origin is not None and len(messages) == 1 and messages[0] == reply_msg:
                # told what the requester is told (a public roll, most often): the reply's bytes, encoded once
                framed[origin.msgpack] = reply
            for conn in conns:
                entry = framed.get(conn.msgpack)
                if entry is None:
                    frames = [codec.encode(msg, conn.msgpack) for msg in messages]
                    # The same bytes on the wire for everyone of this kind: websocket frames from a server are
                    # not masked, so they are framed once and each socket gets them in one write.
                    entry = framed[conn.msgpack] = (frames, b"".join([ws_frame(f, conn.msgpack) for f in frames]))
                told = out.get(conn)
                if told is None:
                    out[conn] = [entry]
                else:
                    told.append(entry)

    async def _send(self, out: dict[Connection, list[Told]]) -> None:
        """Write what each connection is to hear, in one write per socket; drop a peer over its backlog."""
        slow: list[Connection] = []
        for conn, told in out.items():
            if conn.write is None:
                for frames, _ in told:
                    for data in frames:
                        await _safe_send(conn, data)
            elif conn.write(told[0][1] if len(told) == 1 else b"".join([w for _, w in told]), SLOW_PEER_BYTES) is None:
                slow.append(conn)  # over its backlog: nothing written
        for conn in slow:  # after everyone else has been told: dropping one awaits nothing of the others
            if conn.drop is not None:
                await conn.drop()


class _Turn:
    """A turn's requests at a table, as the ledger's writer (:class:`~sidecar.state.ledger.Writer`)."""

    def __init__(self, hub: Hub, held: HeldTable, jobs: list[Job]) -> None:
        self.hub, self.held, self.jobs = hub, held, jobs
        self.request_ids = [job.rid for job in jobs]
        self.staged: list[Job] = []
        self.judged: list[Job] = []
        """Requests refused on a state that held staged actions: a refusal that may have come of them."""
        self.out: dict[Connection, list[Told]] = {}
        self.broke = False
        """A commit failed in memory: the table may hold part of an action (the jobs after it are ``rest``)."""
        self.rest: list[Job] = []

    async def caught_up(self, rows: list[Row]) -> None:
        if rows:
            await self.hub.bus.catch_up(self.held, rows)

    async def prepare(self, answered: Mapping[str, StoredRequest]) -> list[Action]:
        table = self.held.table
        for at, job in enumerate(self.jobs):
            found = answered.get(job.rid)
            if found is not None:  # another sidecar answered this id first: its reply is the answer
                self.held.known.add(job.rid, who=job.conn.requester)
                job.stored = (found.role, found.reply)
                continue
            history = table.reading_for(job.msg)  # an undo's history, an old check a follow-up names
            try:
                if history is None:  # a roll reads nothing
                    staged = self._stage(job)
                else:
                    async with history:
                        staged = self._stage(job)
                if not staged:
                    self.broke, self.rest = True, self.jobs[at + 1 :]
                    break
            except LedgerUnavailable as exc:  # the history it needs cannot be read: refused, nothing applied
                job.error = exc
                if self.staged:
                    self.judged.append(job)
        return [
            (job.staged[0].encoded(), (job.rid, job.conn.role, job.staged[1], job.conn.requester))
            for job in self.staged
        ]

    def _stage(self, job: Job) -> bool:
        """Prepare a request and apply it in memory; False when applying it failed part-way."""
        hub, held = self.hub, self.held
        try:
            pending, reply_msg, action = hub._prepare(held, job.conn, job.msg)
            reply = codec.encode(reply_msg)
        except Exception as exc:  # refused (or a fault): nothing of it was applied
            job.error = exc
            if self.staged:
                self.judged.append(job)
            return True
        try:
            held.table.commit(pending, durable=False)
        except Exception as exc:  # the table may hold part of it: keep what is staged, read the rest back
            log.exception("commit_failed", table=held.table.id)
            job.error = exc
            return False
        job.staged = (pending, reply)
        self.staged.append(job)
        # what each hears, worked out now: the state (open follow-ups, undone seqs) as this action left it
        hub._told(held, job.conn, action, self.out, _reply(job.conn, reply_msg, reply), reply_msg)
        return True

    async def reset(self) -> int:
        """The ledger refused the turn (others moved the table on): back to what the table held stored."""
        table = self.held.table
        await table.read(upto=table.durable)
        for job in self.jobs:
            job.error, job.stored, job.staged = None, None, None
        self.staged, self.judged, self.out, self.broke, self.rest = [], [], {}, False, []
        return table.head


def _forget(reading: dict[str, Any], table_id: str) -> Callable[[Any], None]:
    def forget(_: Any) -> None:
        reading.pop(table_id, None)

    return forget


def _reply(conn: Connection, reply_msg: Any, reply: bytes) -> Told:
    """The requester's reply; a MessagePack client's encoded from the message in hand, not from the stored JSON."""
    data = reply if not conn.msgpack else codec.encode(reply_msg, msgpack=True)
    return ([data], ws_frame(data, conn.msgpack))


def _unavailable() -> ActionError:
    return ActionError(ErrorCode.LEDGER_UNAVAILABLE, "the ledger cannot be reached; retry this request shortly")


def _may_act(conn: Connection, msg: Any) -> None:
    """Only a GM connection acts on behalf of a user; a player acts as the user its key is bound to."""
    what = "roll" if isinstance(msg, m.Roll) else "follow up checks"
    if conn.role == "observer":
        raise ActionError(ErrorCode.FORBIDDEN, f"observers watch; they cannot {what}")
    if conn.role == "gm":
        return
    if msg.user is not None:
        raise ActionError(ErrorCode.FORBIDDEN, "only the GM's connection may act on behalf of a user; leave `user` out")
    if conn.user is None:
        raise ActionError(
            ErrorCode.FORBIDDEN,
            f"this connection uses the table-wide player key, which binds to no user and cannot {what}; "
            "ask the GM for your user key",
        )


async def _safe_send(conn: Connection, data: bytes) -> None:
    # Sends happen under the table's lock; a send only waits when the socket's buffer passes its high-water
    # mark (64 KiB). Keeping every peer far below it means one stalled browser never holds up the table.
    if conn.backlog is not None and conn.backlog() > SLOW_PEER_BYTES:
        if conn.drop is not None:
            await conn.drop()
        return
    try:
        await conn.send(data)
    except (ConnectionError, RuntimeError):  # the peer went away; its handler cleans up
        pass


def ws_frame(payload: bytes, binary: bool) -> bytes:
    """One unmasked, unfragmented websocket frame (RFC 6455 5.2) as a server sends it: FIN, the
    text or binary opcode, the length, the payload."""
    first = 0x82 if binary else 0x81
    n = len(payload)
    if n < 126:
        head = bytes((first, n))
    elif n < 65536:
        head = bytes((first, 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((first, 127)) + n.to_bytes(8, "big")
    return head + payload


def _to_msgpack(reply: bytes) -> bytes:
    return codec.encode(codec.decode_server(reply), msgpack=True)
