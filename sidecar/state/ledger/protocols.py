"""What the rest of the sidecar asks of a ledger, split by who asks, and the records it answers with.

- :class:`ServingLedger`: the server's calls, on the event loop. Every one is a coroutine that never blocks
  the loop and answers within :data:`~.guard.BOUND` seconds or raises :class:`LedgerUnavailable`, the one
  error the ledger raises (a refusal with the code ``ledger_unavailable``). A state-changing turn is
  :meth:`ServingLedger.write`: the ledger asks the table's owner (a :class:`Writer`) for the turn's actions
  and appends them durably, all or none.
- :class:`Listening`: what a ledger that several sidecars share adds, telling which tables others appended
  to. A capability, not a duty: the bus (:mod:`sidecar.server.bus`) asks once whether its ledger has it; an
  embedded ledger has nobody else to hear.
- :class:`AdminLedger`: the blocking calls of the CLI's ``table`` commands, a sidecar's start-up and the
  tools (an export, a copy).
- :class:`Ledger`: both; what a store is (:func:`~.opening.open_ledger`).

Calls a test alone makes (a raw append, a stored request read back, a snapshot deleted) are on the concrete
classes, not here.

**Names.** A serving look-up is ``find_<what>`` (one thing, or None) or ``read_<what>`` (events, in seq
order); the blocking call that answers the same is ``<what>`` alone: ``find_table``/``table``,
``find_user_secret``/``user_secret``, ``read_events``/``events``, ``read_check_events``/``check_events``,
``find_role``/``role``. A serving change is a verb (``write``, ``store_snapshot``, ``prune_requests``,
``append``) and has no prefix to drop: its blocking twin is the verb and ``_sync``
(``store_snapshot_sync``, ``append_sync``).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from protocol.v1.errors import ErrorCode, VerdictError

from .request_window import RequestWindow


class LedgerUnavailable(VerdictError):
    """The ledger cannot be read or written now (unreachable, frozen, full, deleted): nothing was stored.

    The one error a ledger's serving calls raise, inside the refusal tree: the requester hears
    ``ledger_unavailable`` and may send the same request again (its id makes the retry safe)."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCode.LEDGER_UNAVAILABLE, message)


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
    A session let in with one mark ends once the table's is another (:meth:`ServingLedger.find_keys`)."""


@dataclass(frozen=True)
class StoredRequest:
    role: str
    reply: bytes


@dataclass(frozen=True)
class Row:
    """An event as a catch-up reads it: its seq, the first seq of its action, the data, and the request id
    (on an action's first event, if a request caused it)."""

    seq: int
    batch: int
    data: bytes
    request_id: str | None


Request = tuple[str, str, bytes, str]
"""A request as a ledger stores it: its key, the role that sent it, its reply and its requester
(:func:`~.request_window.requester`; the caller has it at hand, so no ledger parses it back from the key)."""

Action = tuple[list[tuple[int, bytes]], "Request | None"]
"""An action as a ledger appends it: its events (seq, encoded) and its request, if any."""

Note = tuple[str, "int | None", list[Row]]
"""What a ledger says of a table others appended to: its id, its head (None: unknown), the rows it carried."""


class Writer(Protocol):
    """The table's owner in a turn of :meth:`ServingLedger.write`: what the ledger asks of it."""

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


class ServingLedger(Protocol):
    """What the server needs from storage while it serves: coroutines that never block the event loop and
    fail within :data:`~.guard.BOUND` with :class:`LedgerUnavailable`."""

    window: RequestWindow
    """Which stored request ids are answered from their first reply; the rest are pruned."""

    async def find_table(self, table_id: str) -> TableInfo | None: ...

    async def find_access(self, table_id: str, key: str) -> Access | None:
        """What ``key`` is checked against on the table, in one read (None: no such table)."""
        ...

    async def find_user_secret(self, table_id: str) -> bytes | None:
        """The table's secret that per-user keys are derived from (made on first use; replaced by a rotation)."""
        ...

    async def find_keys(self, table_ids: list[str]) -> dict[str, str]:
        """The mark of each table's keys now (:attr:`Access.keys`; a table the ledger does not hold is left
        out): a rotation made by any process on the ledger shows here at once."""
        ...

    async def read_events(self, table_id: str, since: int = 0, upto: int | None = None) -> list[tuple[int, bytes]]:
        """The events after ``since`` (up to ``upto``, if given), in seq order."""
        ...

    async def read_check_events(self, table_id: str, check_id: str) -> list[tuple[int, bytes]]:
        """The events that hold ``check_id`` as a string (its roll, its follow-ups, and perhaps an event that
        names it otherwise: the caller decodes them), in seq order: a check the table no longer holds, read
        back. One index lookup (:func:`~.check_index.check_ids` says what is indexed); nothing of the
        history is read."""
        ...

    async def read_rows(self, table_id: str, since: int) -> list[Row]:
        """The events others appended after ``since``, grouped by action (an embedded ledger has no others)."""
        ...

    async def heads(self, table_ids: list[str]) -> dict[str, int]:
        """The heads of these tables as others may have moved them (an embedded ledger: none)."""
        ...

    async def find_request(self, table_id: str, request_id: str) -> StoredRequest | None: ...

    async def find_window(self, table_id: str) -> list[tuple[str, float]]:
        """The ids inside the table's request window (:attr:`window`) with when each was stored, oldest first."""
        ...

    async def find_snapshot(self, table_id: str) -> tuple[int, str, bytes] | None:
        """The table's newest snapshot: its head, its version and its data (derived from the events)."""
        ...

    async def write(self, table_id: str, head: int, writer: Writer) -> None:
        """A turn at the table: the writer's actions appended after ``head``, all durable when this returns,
        or none stored (:class:`LedgerUnavailable`). A shared ledger hands the writer what others appended
        first, or, refused because the table moved on, has it reset and prepare again with the table's row
        locked; every retry turn is the ledger's."""
        ...

    async def store_snapshot(self, table_id: str, seq: int, version: str, data: bytes) -> None:
        """Keep this snapshot of the table, unless a newer one of the same version is kept. Housekeeping, as
        :meth:`prune_requests`."""
        ...

    async def prune_requests(self) -> int:
        """Delete some stored requests outside the window (a bounded batch); how many. Housekeeping: not
        refused by the guard, and never called on a request's path."""
        ...

    async def aclose(self) -> None:
        """Close what serving opened (on the loop that served)."""
        ...

    def close(self) -> None:
        """Close the store; closing twice is harmless."""
        ...


@runtime_checkable
class Listening(Protocol):
    """A ledger others append to as well, saying which tables they appended to (``LISTEN``/``NOTIFY``).

    A sidecar listens only to the tables it has connections at: :meth:`listen` at a join, before reading
    what the joiner missed; :meth:`unlisten` once nobody is connected there any more."""

    @property
    def listened(self) -> frozenset[str]:
        """The tables listened to (or to be, once the listening connection is back)."""
        ...

    def notes(
        self, listening: Callable[[], Awaitable[None]], wanted: Callable[[str], bool] | None = None
    ) -> AsyncGenerator[Note, None]:
        """The tables listened to as others (or this sidecar) append to them, after awaiting ``listening()``
        once they are heard (the caller then catches up on what it missed). A note of a table ``wanted``
        refuses is skipped undecoded. An interruption raises :class:`LedgerUnavailable` (the caller listens
        again)."""
        ...

    async def listen(self, table_id: str) -> None:
        """Hear the table from now on: every commit after this returns is noted. Never raises."""
        ...

    def unlisten(self, table_id: str) -> None:
        """Stop hearing the table."""
        ...


class AdminLedger(Protocol):
    """The blocking calls: the CLI's ``table`` commands, a sidecar's start-up, the tools."""

    def tables(self) -> list[TableInfo]: ...

    def table(self, table_id: str) -> TableInfo | None: ...

    def create_table(self, name: str) -> TableKeys: ...

    def first_table(self, name: str) -> TableKeys | None:
        """A first table, made at a sidecar's first start when the ledger holds none and is its own (an
        embedded one); None when it makes none (a ledger several sidecars start against at once)."""
        ...

    def rotate_keys(self, table_id: str) -> TableKeys:
        """New keys and a new user secret for the table (KeyError: no such table); the old ones open nothing."""
        ...

    def user_secret(self, table_id: str) -> bytes | None: ...

    def events(self, table_id: str, since: int = 0, upto: int | None = None) -> list[tuple[int, bytes]]: ...

    def check_events(self, table_id: str, check_id: str) -> list[tuple[int, bytes]]:
        """:meth:`ServingLedger.read_check_events`, blocking."""
        ...

    def close(self) -> None: ...


class Ledger(ServingLedger, AdminLedger, Protocol):
    """A store: served from, and administered."""
