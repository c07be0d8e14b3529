"""The sidecar's defaults and limits, in one place.

Two kinds of number live here:

- **knobs**, an operator's choices: each is declared once, as a field of :class:`Knobs` (its name, default,
  unit, one line of help, its ``verdict serve`` option and environment variable, the bounds the command line
  holds it to). ``verdict serve``'s options and their ``--help`` (:mod:`sidecar.cli`), the server's
  :class:`~sidecar.server.settings.Settings` (a :class:`Knobs` with methods) and the table of limits in
  docs/operating.md's Security section (``make schema``) are made from these declarations;
- **constants** that are not an operator's choice (what the protocol allows, bounds of the ledger, caches):
  plain names with a docstring, imported from here by the modules that use them.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

# --- where: the plain names ---------------------------------------------------------------------------------
DATA_DIR = "var"
"""The folder an earlier build kept its data in (relative to where it started); the CLI keeps using one it
finds there, and otherwise defaults to the platform's per-user data folder (:mod:`sidecar.datadir`)."""
DATA_ENV = "VERDICT_DATA"
DATA_FILE = "verdict.sqlite3"
"""The ledger's file inside the data directory (SQLite, when no ``--ledger`` URL names another)."""
LEDGER_ENV = "VERDICT_LEDGER"
"""Names the ledger (``postgresql://…``) when ``--ledger`` does not."""
PUBLIC_URL_ENV = "VERDICT_PUBLIC_URL"
"""Names the public URL (where clients reach the sidecar, e.g. ``https://verdict.example.org``) when
``--public-url`` does not; the module's manifest and zip carry absolute URLs on it."""
METRICS_TOKEN_ENV = "VERDICT_METRICS_TOKEN"
"""Gives the metrics token when ``--metrics-token`` does not."""
LOOP_ENV = "VERDICT_LOOP"
"""Names the event loop (``uvloop`` or ``asyncio``) when ``--loop`` does not; the test suite reads it too, so
one variable runs the sidecars it starts and its own clients on the same loop."""
LOOPS = ("uvloop", "asyncio")
"""The event loops ``verdict serve`` runs on: uvloop where it is installed (a dependency everywhere but
Windows), else asyncio's own."""
KEYS_FILE = "default-table.keys"
"""Where the first table's keys are written once, inside the data directory."""
LOCAL_FOUNDRY_ORIGINS = (
    "http://localhost:30000",
    "http://127.0.0.1:30000",
    "https://localhost:30000",
    "https://127.0.0.1:30000",
)
"""Browsers allowed by default when serving on loopback (Foundry's own port)."""


def data_file(data: Path) -> Path:
    """The ledger's file in the data directory ``data``."""
    return data / DATA_FILE


# --- knobs: how one is declared ---------------------------------------------------------------------------------
WHERE, RUNNING, LIMITS, TIMEOUTS, GROWTH = "where", "running", "limits", "timeouts", "growth"
GROUPS = {
    WHERE: "where it listens, who may reach it, where it keeps its data",
    RUNNING: "what it runs on",
    LIMITS: "what protects it from its peers",
    TIMEOUTS: "how long it waits",
    GROWTH: "what a table keeps as the campaign goes on",
}
"""The knobs' groups, in the order ``verdict serve --help`` and docs/operating.md list them."""

KIB, MIB = 1024, 1024 * 1024


@dataclass(frozen=True)
class Knob:
    """One operator's choice: what :func:`knob` declares on a field of :class:`Knobs`, with the field's name,
    type and default filled in (see :data:`KNOBS`)."""

    group: str
    help: str
    """One line: what the knob is, without its default (``--help`` adds it)."""
    unit: str = ""
    """``bytes``, ``seconds`` or what is counted (``requests per second``, ``events``); empty for text."""
    flag: str = ""
    """The ``verdict serve`` option; empty: ``--`` and the name with dashes."""
    env: str | None = None
    """The environment variable read when the option is not given."""
    low: float | None = None
    high: float | None = None
    """Bounds (inclusive) the command line holds a value to; code that builds settings is trusted."""
    choices: tuple[str, ...] = ()
    repeat: bool = False
    """The option may be given several times; the knob is then a tuple of them."""
    unset: str = ""
    """What a default of ``None`` means, as ``--help`` says it (``twice --rate``)."""
    metavar: str = ""
    name: str = ""
    kind: type = str
    """``int``, ``float``, ``str`` or ``Path``: what one value on the command line is read as."""
    default: Any = None

    @property
    def option(self) -> str:
        return self.flag or "--" + self.name.replace("_", "-")

    def said(self, value: Any) -> str:
        """A value as ``--help`` and docs/operating.md say it: with its unit, bytes in KiB or MiB when whole."""
        if value is None:
            return self.unset or "none"
        if isinstance(value, tuple):
            return ", ".join(map(str, value)) or "none"
        if isinstance(value, Path) and not value.is_absolute():
            return f"./{value}"
        if self.unit == "bytes" and isinstance(value, int):
            for size, name in ((MIB, "MiB"), (KIB, "KiB")):
                if value >= size and value % size == 0:
                    return f"{value // size} {name}"
        if self.unit == "seconds":
            for size, name in ((3600, "h"), (60, "min")):
                if value >= size and value % size == 0:
                    return f"{value // size:g} {name}"
            return f"{value:g} s"
        if isinstance(value, float):
            return f"{value:g} {self.unit}".strip()
        return f"{value} {self.unit}".strip()

    def check(self, value: float) -> str | None:
        """Why ``value`` is out of the knob's bounds, or ``None`` when it is within them."""
        if self.low is not None and value < self.low:
            return f"at least {self.said(self.kind(self.low))}"
        if self.high is not None and value > self.high:
            return f"at most {self.said(self.kind(self.high))}"
        return None


_KNOB = "verdict.knob"


def knob(
    default: T,
    group: str,
    help: str,  # noqa: A002 -- argparse's word for it
    unit: str = "",
    *,
    flag: str = "",
    env: str | None = None,
    low: float | None = None,
    high: float | None = None,
    choices: tuple[str, ...] = (),
    repeat: bool = False,
    unset: str = "",
    metavar: str = "",
) -> T:
    """Declare a field of :class:`Knobs` as a knob (typed as its default, as a dataclass field is)."""
    declared = Knob(group, help, unit, flag, env, low, high, choices, repeat, unset, metavar)
    made: T = field(default=default, metadata={_KNOB: declared})
    return made


# --- knobs: every one ---------------------------------------------------------------------------------------------
@dataclass
class Knobs:
    """Every operator's choice, with its default. :class:`~sidecar.server.settings.Settings` is one of these."""

    # where
    host: str = knob("127.0.0.1", WHERE, "address to listen on", metavar="HOST")
    port: int = knob(8765, WHERE, "port to listen on", low=0, high=65535, metavar="PORT")
    public_url: str | None = knob(
        None,
        WHERE,
        "where Foundry and players reach the sidecar, e.g. https://verdict.example.org behind a TLS proxy: "
        "the module's manifest and zip carry absolute URLs on it",
        env=PUBLIC_URL_ENV,
        unset="the address each request came in on, with a trusted proxy's X-Forwarded-Proto and -Host",
        metavar="URL",
    )
    data: Path = knob(
        Path(DATA_DIR), WHERE, "data directory: the SQLite ledger and the first table's keys", env=DATA_ENV
    )
    ledger_url: str | None = knob(
        None,
        WHERE,
        "where tables and events are kept: postgresql://USER:PASSWORD@HOST/DB, shared by several sidecars",
        flag="--ledger",
        env=LEDGER_ENV,
        unset="SQLite in the data directory",
        metavar="URL",
    )
    allow_origins: tuple[str, ...] | None = knob(
        None,
        WHERE,
        "a browser origin allowed to connect, e.g. https://foundry.example.org",
        flag="--allow-origin",
        repeat=True,
        unset="the local Foundry origins on loopback, none on other addresses",
        metavar="ORIGIN",
    )
    trusted_proxies: tuple[str, ...] = knob(
        (),
        WHERE,
        "address or network (CIDR) of a reverse proxy whose X-Forwarded-For names the client (for the per-address "
        "limits and /metrics) and whose X-Forwarded-Proto and -Host give the module's URLs when --public-url is not "
        "set; name the proxy only",
        flag="--trust-proxy",
        repeat=True,
        metavar="ADDR",
    )
    metrics_token: str | None = knob(
        None,
        WHERE,
        "let clients off loopback read /metrics with `Authorization: Bearer TOKEN`",
        env=METRICS_TOKEN_ENV,
        unset="none: /metrics answers loopback only",
        metavar="TOKEN",
    )
    log_format: str | None = knob(
        None, WHERE, "log format", choices=("json", "console"), unset="console on a terminal, json otherwise"
    )

    # running
    loop: str | None = knob(
        None,
        RUNNING,
        "the event loop it runs on: uvloop (faster) or asyncio (the standard one)",
        env=LOOP_ENV,
        choices=LOOPS,
        unset="uvloop, except on Windows (asyncio)",
    )

    # limits
    max_frame: int = knob(
        64 * KIB,
        LIMITS,
        "bytes in one websocket frame at most: a larger one is charged as several and refused (frame_too_large)",
        "bytes",
        low=1 * KIB,
        high=16 * MIB,
    )
    rate: float = knob(20.0, LIMITS, "requests one socket may sustain", "requests per second", low=0.1)
    burst: float | None = knob(
        None, LIMITS, "requests one socket may send at once beyond its rate", "requests", low=1, unset="twice --rate"
    )
    key_rate: float | None = knob(
        None,
        LIMITS,
        "requests one requester (the GM, a player's user) may sustain over all its sockets, so reconnecting does "
        "not refill",
        "requests per second",
        low=0.1,
        unset="twice --rate",
    )
    address_rate: float | None = knob(
        None,
        LIMITS,
        "requests one remote address may sustain over all its sockets",
        "requests per second",
        low=0.1,
        unset="8 times --rate",
    )
    max_connections: int = knob(
        1000,
        LIMITS,
        "open websockets at most (fewer when the open-file limit is lower); a full sidecar first closes a socket "
        "that has not said hello, else refuses (503)",
        "sockets",
        low=8,
    )
    max_per_address: int = knob(
        64,
        LIMITS,
        "open websockets from one remote address at most (the GM and user-keyed players, within --max-per-user, "
        "still get in)",
        "sockets",
        low=1,
    )
    max_guests: int = knob(
        250,
        LIMITS,
        "observers and sockets of the table-wide player key at most, never more than three quarters of "
        "--max-connections (a hello beyond: too_many_connections)",
        "sockets",
        low=0,
    )
    max_per_user: int = knob(
        4,
        LIMITS,
        "open websockets of one user (a player's own user key) on one table at most: a hello beyond is refused "
        "(too_many_connections, 1013) until one of them closes",
        "sockets",
        low=1,
    )
    gm_seats: int = knob(
        4,
        LIMITS,
        "connections kept for GM keys (at most a quarter of --max-connections): a player's or observer's hello "
        "that would take one is refused (too_many_connections, 1013)",
        "sockets",
        low=0,
    )
    max_unfinished_bytes: int = knob(
        32 * MIB,
        LIMITS,
        "bytes held for messages begun and not finished, over all sockets: a peer whose bytes would go beyond is "
        "cut off (1009)",
        "bytes",
        low=64 * KIB,
    )
    send_buffer: int = knob(
        64 * KIB,
        LIMITS,
        "the kernel's send buffer per socket: with the slow-peer check it bounds what an unread peer holds",
        "bytes",
        low=4 * KIB,
        high=16 * MIB,
    )
    odds_queue: int = knob(
        32, LIMITS, "odds requests waiting for the odds worker at most (busy beyond)", "requests", low=0
    )

    # timeouts
    hello_timeout: float = knob(
        10.0,
        TIMEOUTS,
        "a connection that has not finished its websocket upgrade and said hello by then is closed (4408)",
        "seconds",
        low=0.1,
        high=3600,
    )
    frame_timeout: float = knob(
        10.0,
        TIMEOUTS,
        "a frame or message begun and not finished this long, from its first fragment, is a stalled peer: cut (4408)",
        "seconds",
        low=0.1,
        high=3600,
    )
    shutdown_timeout: float = knob(
        5.0, TIMEOUTS, "on SIGINT or SIGTERM, how long open sockets get to close", "seconds", low=0, high=600
    )

    # growth
    request_window: int = knob(
        1000,
        GROWTH,
        "request ids per requester per table answered from their first reply: the last this many",
        "ids",
        low=1,
    )
    request_window_age: float = knob(
        24 * 3600.0,
        GROWTH,
        "a request id older than this is a new request",
        "seconds",
        low=1,
    )
    housekeeping_every: float = knob(
        30.0,
        GROWTH,
        "between two rounds of housekeeping, off the request path: request ids out of the window pruned, "
        "snapshots written, idle tables let go",
        "seconds",
        low=0.1,
    )
    snapshot_every: int = knob(
        1000,
        GROWTH,
        "events between two snapshots of a table (a load reads the newest and the events after it)",
        "events",
        low=1,
    )
    idle_unload_after: float = knob(
        600.0,
        GROWTH,
        "how long a table held in memory may go without connections before it is let go (snapshotted first)",
        "seconds",
        low=1,
    )


def _declared() -> tuple[Knob, ...]:
    hints = typing.get_type_hints(Knobs)
    declared = []
    for f in dataclasses.fields(Knobs):
        tp = hints[f.name]
        args = [a for a in typing.get_args(tp) if a is not type(None)] or [tp]
        kind = args[0]
        if typing.get_origin(kind) is tuple:
            kind = typing.get_args(kind)[0]
        declared.append(dataclasses.replace(f.metadata[_KNOB], name=f.name, kind=kind, default=f.default))
    return tuple(declared)


KNOBS: tuple[Knob, ...] = _declared()
"""Every knob, in the order of :data:`GROUPS` and of their declaration."""
DEFAULTS = Knobs()
"""Every knob at its default."""

# --- constants: what the protocol allows --------------------------------------------------------------------------
MAX_REQUEST_ID = 128
"""Longest request id a state-changing request may carry (it is stored with its reply, per requester)."""
MAX_USER = 128
"""Longest Foundry user id a ``hello``, a ``user_key`` request or ``verdict table user-key`` may name (Foundry's
are 16 characters)."""
HEARTBEAT = 30.0
"""Seconds between two pings the sidecar sends an idle socket (aiohttp's heartbeat)."""
MESSAGE_FRAMES = 16
"""A whole message may be this many times ``--max-frame`` before aiohttp refuses it; larger frames than one
``--max-frame`` are refused politely, with ``frame_too_large``, before that."""

# --- constants: the ledger ----------------------------------------------------------------------------------------
LEDGER_BOUND = 2.0
"""Seconds a serving call of the ledger may take before it is refused with ``ledger_unavailable``."""
LEDGER_PROBE_EVERY = 0.25
"""Seconds between two probes of a store known to be down."""

# --- constants: what the server keeps -----------------------------------------------------------------------------
REPLY_CACHE = 4096
REPLY_CACHE_BYTES = 8 * MIB
"""Replies kept in memory per table, by count and by bytes; older ones are read back from the ledger."""
SLOW_PEER_BYTES = 32 * KIB
"""A peer with this much unread is dropped before a send could wait on it under a table's lock."""
ODDS_CACHE = 4096
ODDS_CACHE_BYTES = 16 * MIB
"""Odds answers cached at most, by count and by the bytes of their keys and answers as encoded: a client's odds
of large checks cannot make the cache grow without bound."""
LIMITER_NAMES = 10_000
"""Token buckets a limiter keeps (requesters, addresses) before it forgets the full and idle ones."""
CLOSE_GRACE = 0.5
"""Seconds a socket the sidecar closes has to answer the close frame before its connection is cut."""
RETRY_AFTER = 5
"""Seconds a full sidecar's 503 tells the client to wait (``Retry-After``)."""
ZIP_CACHE = 16
"""Module zips kept, one per public URL: one URL in a configured deployment, a few when trusted proxies name
several (one past the cache costs a module.json, not the archive)."""
WARN_INTERVAL = 10.0
"""Resource warnings are logged at most once per this interval, with a count of those left out."""
REFUSAL_LOG_EVERY = 60.0
"""Seconds between two log lines of a refused hello or origin from one source (remote address), so that the
GM sees what went wrong and what to do, and a flood cannot fill the disk."""
REFUSAL_LOG_LINES = 60
"""Such lines per :data:`REFUSAL_LOG_EVERY` at most over every source: a flood from many addresses is told
as a count of what was left out, on the next line."""
FILE_LIMIT_WANTED = 65536
"""Open files the sidecar raises its soft limit to when the hard limit is unlimited."""

# --- the runtime ------------------------------------------------------------------------------------------
GC_YOUNG = 10_000
"""Allocations between two collections of the youngest objects (Python's default is 700); see
:func:`sidecar.server.app.tune_gc`."""

# --- growth: what a table keeps as the campaign goes on -----------------------------------------------------
# The growth knobs' defaults by name, for where no Settings are handed (the state layer's request window, a
# Hub built alone); the knobs themselves are declared, with their help, in Knobs.
REQUEST_WINDOW = DEFAULTS.request_window
REQUEST_WINDOW_AGE = DEFAULTS.request_window_age
HOUSEKEEPING_EVERY = DEFAULTS.housekeeping_every
SNAPSHOT_EVERY = DEFAULTS.snapshot_every
IDLE_UNLOAD_AFTER = DEFAULTS.idle_unload_after

# --- what a loaded table holds in memory (the rest is read back from the ledger when named) ----------------
VIEWS_KEPT = 64
"""Projections of what players see kept current (the shared one and those of users with secrets of their own);
one asked for after it was let go is rebuilt from the ledger."""

RECENT_KEPT = 256
"""Events kept in memory for reconnects with a recent ``since``; older ones are read back from the ledger."""

LABELS_KEPT = 256
"""Labels of rolls older than the recent window kept once read back for ``verify`` (a reload draws the same
cards again in every browser): at most this many, of at most ``MAX_TEXT`` characters each."""

RESYNC_LIMIT = 1000
"""A client further behind than this many of its events gets a snapshot instead of the events."""
CHECKS_HELD = 1000
"""Checks still open to follow-ups a table holds in memory at most (the newest). A check its rule set closes
leaves at once; one a rule leaves open (the GM's removal of a complication after an epic success waits for a
complication; an extended check's roll while it is in progress) leaves once this many newer ones are held.
Either way its events stay in the ledger, and a follow-up or ``verify`` naming it reads them back and is
answered as before: this bounds memory, not what a client may do."""
CHECKS_LATEST = 16
"""The last checks rolled a table holds whether or not they are still open (the cards just drawn, which every
browser drawing them verifies); older ones are held only while open (:data:`CHECKS_HELD`)."""
OLD_CHECKS_KEPT = 256
"""Checks no longer held (closed, or out of :data:`CHECKS_HELD`) kept once read back from the ledger, for a
follow-up or ``verify`` that names them again (a reload of the chat log verifies every card it draws)."""

# --- several sidecars over one PostgreSQL ledger ---------------------------------------------------------------
BUS_CHECK_EVERY = 2.0
"""Seconds between two checks of every held table's head, whatever the notifications said."""
BUS_RETRY = (0.1, 0.5, 1.0, 2.0, 5.0)
"""Waits before reconnecting the listening connection, growing, then staying at the last."""
PG_WRITERS = 2
"""Batches of appends in flight at once (each one transaction, one round trip, one commit)."""
PG_TURNS = 4
"""Turns (a table's row locked while its actions are prepared) in flight at once, per sidecar."""
PG_ADMIN_TIMEOUT_MS = 5000
"""Longest a statement may run, and a connection may take to open, for the administration calls (the
serving calls are bounded by :data:`LEDGER_BOUND` on this side, which also holds when the
database is frozen and its own timers with it)."""
PG_CONTENDED_FOR = 5.0
"""Seconds a table whose append was refused, or whose turn found others' events, is written in turns (its row
locked first)."""
