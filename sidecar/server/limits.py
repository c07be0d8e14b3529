"""What protects the sidecar from its peers: token buckets (requests and every other frame alike, charged
before hello too), the seats (connections in all and per address; a few per user; the last few kept for GM
keys; observers and the table-wide player key counted apart; sockets that have not said hello give their
seats up first), the hello and unfinished-message timeouts, and the rate of refusal lines in the log.

The byte-level watch of frames and unfinished messages is :mod:`.transport`'s; the caps' numbers are
:mod:`sidecar.config`'s; docs/architecture/resources.md says, for each resource, who may use how much.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

import structlog
from aiohttp import web

from sidecar import config

from .appkeys import LIMITS, LIVE, METRICS, PEERS, SETTINGS, SOCKETS, THROTTLED, USERS, WAITING
from .settings import Settings

if TYPE_CHECKING:
    from .transport import Socket

log = structlog.get_logger("verdict.server")


class Limiter:
    """Token buckets by name (a requester, a remote address), forgotten once full and idle."""

    def __init__(self, rate: float, burst: float, max_names: int = config.LIMITER_NAMES) -> None:
        self.rate, self.burst, self.max_names = rate, burst, max_names
        self.buckets: dict[object, list[float]] = {}

    def take(self, name: object, cost: float, now: float) -> bool:
        b = self._refilled(name, now)
        if b[0] < 1:
            return False
        b[0] -= cost
        return True

    def charge(self, name: object, cost: float, now: float) -> None:
        """Take ``cost`` whatever is left, down to minus a burst (for frames that are never refused)."""
        b = self._refilled(name, now)
        b[0] = max(-self.burst, b[0] - cost)

    def _refilled(self, name: object, now: float) -> list[float]:
        b = self.buckets.get(name)
        if b is None:
            if len(self.buckets) >= self.max_names:
                self._forget(now)
            b = self.buckets[name] = [self.burst, now]
        b[0] = min(self.burst, b[0] + (now - b[1]) * self.rate)
        b[1] = now
        return b

    def _forget(self, now: float) -> None:
        full = [k for k, (tokens, t) in self.buckets.items() if tokens + (now - t) * self.rate >= self.burst]
        for k in full or list(self.buckets)[: len(self.buckets) // 2]:
            del self.buckets[k]


class Throttled:
    """Log an event at most once per interval, with how many were left out."""

    def __init__(self, interval: float = config.WARN_INTERVAL) -> None:
        self.interval = interval
        self.last: dict[str, tuple[float, int]] = {}

    def warning(self, event: str, **kw: Any) -> None:
        now = time.monotonic()
        last, skipped = self.last.get(event, (-1e9, 0))
        if now - last < self.interval:
            self.last[event] = (last, skipped + 1)
            return
        self.last[event] = (now, 0)
        log.warning(event, left_out=skipped, **kw)


class PerSource:
    """Log a refusal once per source (a remote address) and kind per interval, and at most ``lines`` lines
    per interval over all sources; a line says how many were left out since the last. The sources
    remembered are bounded (the oldest forgotten first)."""

    def __init__(
        self,
        interval: float = config.REFUSAL_LOG_EVERY,
        lines: int = config.REFUSAL_LOG_LINES,
        max_names: int = config.LIMITER_NAMES,
    ) -> None:
        self.interval, self.lines, self.max_names = interval, lines, max_names
        self.last: dict[tuple[str, str], float] = {}  # oldest first
        self.window, self.told, self.left_out = -1e9, 0, 0

    def due(self, event: str, source: str) -> bool:
        """Whether a line for ``event`` from ``source`` is to be written now (then :meth:`warning` writes it);
        ``False`` counts it as left out."""
        now = time.monotonic()
        name = (event, source)
        last = self.last.get(name)
        if now - self.window >= self.interval:
            self.window, self.told = now, 0
        if (last is not None and now - last < self.interval) or self.told >= self.lines:
            self.left_out += 1
            return False
        if last is not None:
            del self.last[name]  # kept in the order of their last line
        elif len(self.last) >= self.max_names:
            for old in list(self.last)[: max(1, len(self.last) // 2)]:
                del self.last[old]
        self.last[name] = now
        self.told += 1
        return True

    def warning(self, event: str, source: str, **kw: Any) -> None:
        """Write a line that :meth:`due` let through, with the count of those left out since the last."""
        log.warning(event, remote=source, left_out=self.left_out, **kw)
        self.left_out = 0


async def watchdog(app: web.Application) -> None:
    """Close sockets that never said hello, and cut those stalled in the middle of a frame or a message."""
    settings = app[SETTINGS]
    tick = max(0.05, min(1.0, settings.hello_timeout / 4, settings.frame_timeout / 4))
    while True:
        await asyncio.sleep(tick)
        now = time.monotonic()
        live = app[LIVE]
        for sock in list(live):
            if sock.ws.closed:
                continue
            if sock.conn is None and now - sock.opened > settings.hello_timeout:
                app[THROTTLED].warning("hello_timeout", remote=sock.remote)
                sock.close(4408, b"no hello in time")
            elif sock.unfinished_for(now) > settings.frame_timeout:
                app[THROTTLED].warning("frame_timeout", remote=sock.remote)
                sock.close(4408, b"frame not finished in time")


def take_token(app: web.Application, sock: Socket, settings: Settings, cost: int = 1) -> bool:
    """Charge the socket, its remote address (not a GM's) and (after hello) its requester; all must have tokens."""
    now = time.monotonic()
    sock.tokens = min(settings.bucket(), sock.tokens + (now - sock.refreshed) * settings.rate)
    sock.refreshed = now
    if sock.tokens < 1:
        return False
    limits = app[LIMITS]
    conn = sock.conn
    # The GM is not charged to its address: players flooding from the GM's address cannot lock the GM out.
    if (conn is None or conn.role != "gm") and not limits["address"].take(sock.remote, cost, now):
        return False
    if (
        conn is not None
        and conn.user is not None
        and not limits["key"].take((sock.held.table.id, conn.role, conn.user), cost, now)
    ):
        return False
    sock.tokens -= cost  # may go below 0: a large frame is paid off before the next is taken
    return True


def charge_frame(app: web.Application, sock: Socket) -> bool:
    """Charge a frame that is not a message's last (a fragment before it, a ping, a pong, a close) as a
    request is charged (the socket, its address unless the GM's, its requester), as it is read and before
    hello too; ``False`` when the socket is flooding. Such a frame is never refused: it may take the
    socket's budget into debt, so that the keepalive ping of a client spending its whole budget on requests
    is still answered. A socket a whole burst in debt sent that many frames beyond its budget."""
    settings = app[SETTINGS]
    now = time.monotonic()
    burst = settings.bucket()
    sock.tokens = min(burst, sock.tokens + (now - sock.refreshed) * settings.rate) - 1
    sock.refreshed = now
    limits = app[LIMITS]
    conn = sock.conn
    if conn is None or conn.role != "gm":
        limits["address"].charge(sock.remote, 1, now)
    if conn is not None and conn.user is not None:
        limits["key"].charge((sock.held.table.id, conn.role, conn.user), 1, now)
    return sock.tokens >= -burst


FRAME_FLOOD = 4429
"""The close code of a socket that sent frames (fragments, pings, pongs) beyond its budget."""


def take_seat(app: web.Application, sock: Socket, table: str, role: str, user: str | None) -> tuple[str, bytes] | None:
    """Seat a socket that said hello as ``role`` (and ``user``) at ``table``, or say which cap its seat
    would exceed: the error's message and the close frame's reason, each naming it (the socket is then
    refused; nothing was counted). A GM key is always seated: the last
    ``gm_reserve()`` seats are no one else's, and a GM's socket that found the sidecar full made room
    before its hello (:func:`evict_waiting`). Players and guests are counted until :func:`free_seat`."""
    if role == "gm":
        return None
    settings, metrics = app[SETTINGS], app[METRICS]
    reserve = settings.gm_reserve()
    if metrics.guests + metrics.players >= settings.max_connections - reserve:
        return (
            f"the sidecar is full: its last {reserve} of {settings.max_connections} connections are kept for the GM "
            "(--gm-seats, --max-connections); try again later",
            b"full: the seats left are the GM's (--gm-seats)",
        )
    if user is None:
        if metrics.guests >= settings.guest_seats():
            return GUESTS_FULL, b"as many observers and table-wide player keys as it takes (--max-guests)"
        if app[PEERS].get(sock.remote, 0) > settings.max_per_address:
            return (
                f"at most {settings.max_per_address} connections from one address (--max-per-address); close some "
                "and try again (the GM and players with their own user key still get in)",
                b"too many connections from this address (--max-per-address)",
            )
        sock.guest = True  # the seat is taken now, before anything is awaited
        metrics.guests += 1
        return None
    users, seat = app[USERS], (table, user)
    if users.get(seat, 0) >= settings.max_per_user:
        return (
            f"user {user!r} already has {settings.max_per_user} connections to this table, as many as one user may "
            "have (--max-per-user); close one (another browser tab or device) and connect again",
            b"too many connections for this user (--max-per-user)",
        )
    users[seat] = users.get(seat, 0) + 1
    sock.seat = seat
    metrics.players += 1
    return None


def free_seat(app: web.Application, sock: Socket) -> None:
    """Give back what :func:`take_seat` counted for the socket (it ends, or its hello failed later)."""
    metrics = app[METRICS]
    if sock.guest:
        sock.guest = False
        metrics.guests -= 1
    seat = sock.seat
    if seat is not None:
        sock.seat = None
        metrics.players -= 1
        users = app[USERS]
        users[seat] -= 1
        if not users[seat]:
            del users[seat]


GUESTS_FULL = (
    "the sidecar has as many observers and table-wide player keys connected as it takes (--max-guests); try "
    "again later (the GM and players with their own user key still get in)"
)


def unseat(app: web.Application, sock: Socket) -> None:
    sock.seated = False
    app[SOCKETS].discard(sock.ws)
    peers = app[PEERS]
    peers[sock.remote] -= 1
    if not peers[sock.remote]:
        del peers[sock.remote]


def evict_waiting(app: web.Application, remote: str | None) -> bool:
    """Make room for a new socket: the oldest socket that has not said hello yet (from ``remote``, when
    that address is what is full) gives its seat up and is closed. A flood of sockets that never say
    hello then only evicts itself, and the GM's socket, which says hello at once, gets in; ``False`` when
    every seat is someone's who said hello."""
    waiting = app[WAITING]
    for sock in waiting:
        if remote is None or sock.remote == remote:
            del waiting[sock]
            unseat(app, sock)
            app[THROTTLED].warning("waiting_socket_evicted", remote=sock.remote)
            sock.close(4408, b"no hello yet, and the sidecar is full", at_once=True)
            return True
    return False
