"""The aiohttp application: ``/ws``, ``/healthz``, ``/metrics`` and ``/module/``.

One websocket per client, subprotocol ``verdict.v1`` (JSON) or ``verdict.v1+msgpack``.
The first frame is ``hello``; a wrong key is answered ``unauthorized`` and the socket
closed with 4401. Every later bad frame gets an ``error`` and the socket stays up.
Hostile clients meet limits here: connection caps (total, per address, and apart for observers, the
table-wide player key and sockets that have not said hello, so that these never lock out the GM or a
user-keyed player), hello and unfinished-message timeouts (4408), a bound on the bytes held for
unfinished messages (1009), token buckets per socket, requester and address that charge control frames
too (4429), a bounded send buffer (a peer that stops reading is cut), and odds computed off the event loop.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import hmac
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from ipaddress import ip_address, ip_network
from pathlib import Path
from typing import Any

import structlog
from aiohttp import WSCloseCode, WSMsgType, web

from protocol.v1 import codec
from protocol.v1 import messages as m
from protocol.v1.base import SUBPROTOCOL, SUBPROTOCOL_MSGPACK
from protocol.v1.codec import ProtocolError
from protocol.v1.errors import ErrorCode, VerdictError
from sidecar import __version__, config
from sidecar.state.keys import MAX_USER, Refused, authenticate, derive_user_key
from sidecar.state.ledger import Ledger, SqliteLedger
from sidecar.state.table import ActionError

from . import module as vtt_module
from .hub import Connection, Hub, verified, ws_frame
from .metrics import Metrics
from .transport import Unfinished, WatchedResponse

log = structlog.get_logger("verdict.server")

LOCAL_FOUNDRY_ORIGINS = config.LOCAL_FOUNDRY_ORIGINS


@dataclass
class Settings:
    host: str = config.HOST
    port: int = config.PORT
    data: Path = Path(config.DATA_DIR)
    allow_origins: tuple[str, ...] | None = None
    """``None``: the local Foundry origins when serving on loopback, none else otherwise."""
    max_frame: int = config.MAX_FRAME
    rate: float = config.RATE
    """Requests per second a connection may sustain."""
    burst: float = config.BURST
    hello_timeout: float = config.HELLO_TIMEOUT
    """A socket that has not said hello this long after opening is closed (4408)."""
    frame_timeout: float = config.FRAME_TIMEOUT
    """A frame or message begun and not finished this long (from its first fragment, whatever control
    frames come between) is a stalled peer: the socket is cut (4408)."""
    key_rate: float | None = None
    """Requests per second one requester (a GM or a player bound to a user) may sustain over all its
    sockets, so reconnecting does not refill; ``None``: twice ``rate``."""
    address_rate: float | None = None
    """Requests per second one remote address may sustain over all its sockets; ``None``: 8 x ``rate``."""
    max_connections: int = config.MAX_CONNECTIONS
    """Open websockets at most: beyond, the oldest socket that has not said hello gives its seat up; when
    every seat is someone's who said hello, more are refused (503, ``too_many_connections``)."""
    max_per_address: int = config.MAX_PER_ADDRESS
    """Open websockets from one remote address at most: beyond, the address's oldest socket that has not said
    hello gives its seat up, and the hello of an observer or the table-wide player key is refused
    (``too_many_connections``); the GM and user-keyed players still get in."""
    max_guests: int = config.MAX_GUESTS
    """Observers and sockets of the table-wide player key at most; a hello beyond is refused."""
    max_unfinished_bytes: int = config.MAX_UNFINISHED_BYTES
    """Bytes held for messages begun and not finished, over all sockets; a peer beyond is cut (1009)."""
    send_buffer: int = config.SEND_BUFFER
    """The kernel's send buffer per socket: with the slow-peer check it bounds what an unread peer holds."""
    odds_queue: int = config.ODDS_QUEUE
    """Odds requests waiting for the odds worker at most; more are refused (``busy``)."""
    trusted_proxies: tuple[str, ...] = ()
    """Addresses or networks (CIDR) of reverse proxies whose ``X-Forwarded-For`` names the client: per-address
    limits and the /metrics check then apply to the client, not to the proxy."""
    metrics_token: str | None = None
    """``/metrics`` answers loopback clients, and others that send ``Authorization: Bearer <token>``."""

    def guest_seats(self) -> int:
        """``max_guests``, but never so many that the GM and user-keyed players would be left fewer than a
        quarter of ``max_connections`` (at least 8): the cap on connections falls with a low file limit."""
        return max(0, min(self.max_guests, self.max_connections - max(8, self.max_connections // 4)))

    def origins(self) -> frozenset[str]:
        if self.allow_origins is not None:
            return frozenset(o.rstrip("/") for o in self.allow_origins)
        return frozenset(LOCAL_FOUNDRY_ORIGINS) if _is_loopback(self.host) else frozenset()


def client_address(request: web.Request) -> str:
    """The remote address, or the client a trusted reverse proxy names (the last ``X-Forwarded-For`` entry)."""
    peer = request.remote or ""
    trusted = request.app[SETTINGS].trusted_proxies
    forwarded = request.headers.get("X-Forwarded-For")
    if not trusted or not forwarded:
        return peer
    try:
        addr = ip_address(peer)
        if not any(addr in ip_network(net, strict=False) for net in trusted):
            return peer
        return str(ip_address(forwarded.split(",")[-1].strip()))
    except ValueError:
        return peer


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


class Limiter:
    """Token buckets by name (a requester, a remote address), forgotten once full and idle."""

    def __init__(self, rate: float, burst: float, max_names: int = 10_000) -> None:
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


HUB = web.AppKey("hub", Hub)
SETTINGS = web.AppKey("settings", Settings)
METRICS = web.AppKey("metrics", Metrics)
SOCKETS = web.AppKey("sockets", set)
MODULE_ZIP = web.AppKey("module_zip", dict)
LIMITS = web.AppKey("limits", dict)
PEERS = web.AppKey("peers", dict)
WAITING = web.AppKey("waiting", dict)
"""Sockets that have not said hello yet, oldest first."""
UNFINISHED = web.AppKey("unfinished", Unfinished)
THROTTLED = web.AppKey("throttled", Throttled)


def create_app(settings: Settings, ledger: Ledger | None = None) -> web.Application:
    app = web.Application()
    ledger = ledger or SqliteLedger(config.data_file(settings.data))
    metrics = Metrics()
    app[SETTINGS] = settings
    app[METRICS] = metrics
    app[HUB] = Hub(ledger, metrics)
    if getattr(ledger, "shared", False):  # other sidecars append to the same tables
        from .bus import Bus

        Bus(app[HUB], ledger).attach(app)
    app[SOCKETS] = set()
    app[MODULE_ZIP] = {}
    app[LIMITS] = {
        "key": Limiter(settings.key_rate or 2 * settings.rate, 2 * settings.burst),
        "address": Limiter(settings.address_rate or 8 * settings.rate, 8 * settings.burst),
    }
    app[PEERS] = {}
    app[WAITING] = {}
    app[UNFINISHED] = unfinished = Unfinished(settings.max_unfinished_bytes)
    metrics.unfinished_bytes = lambda: unfinished.held
    app[THROTTLED] = Throttled()
    app[ODDS] = {"pool": ThreadPoolExecutor(max_workers=1, thread_name_prefix="verdict-odds"), "waiting": 0}
    app.on_startup.append(_start_watchdog)
    app.on_startup.append(_tune_gc)
    app.router.add_get("/ws", websocket)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics_view)
    app.router.add_get("/module/module.json", module_manifest)
    app.router.add_get("/module/verdict.zip", module_zip)
    app.on_shutdown.append(_close_sockets)
    app.on_cleanup.append(_close_ledger)
    return app


async def _tune_gc(app: web.Application) -> None:
    tune_gc()


def tune_gc() -> None:
    """Collect the youngest objects every ``config.GC_YOUNG`` allocations instead of Python's 700.

    A roll allocates a few hundred short-lived containers (frames, lists, dicts: the protocol's Structs are
    not tracked at all); with the default, the collector ran several times a roll and took 17% of the
    server's CPU under load (``perf``); at 10,000, 2%. Only garbage in reference cycles waits a little longer."""
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(config.GC_YOUNG, older, oldest)


WATCHDOG = web.AppKey("watchdog", asyncio.Task)
LIVE = web.AppKey("live", set)


async def _start_watchdog(app: web.Application) -> None:
    app[LIVE] = set()
    app[WATCHDOG] = asyncio.get_running_loop().create_task(_watchdog(app))


async def _watchdog(app: web.Application) -> None:
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


async def _close_sockets(app: web.Application) -> None:
    if WATCHDOG in app:
        app[WATCHDOG].cancel()
    sockets = app[SOCKETS]
    for ws in list(sockets):
        await ws.close(code=WSCloseCode.GOING_AWAY, message=b"server shutting down")


async def _close_ledger(app: web.Application) -> None:
    app[ODDS]["pool"].shutdown(wait=False, cancel_futures=True)
    app[HUB].ledger.close()


async def healthz(request: web.Request) -> web.Response:
    return web.json_response(
        {
            "status": "ok",
            "protocol": [SUBPROTOCOL],
            "encodings": {SUBPROTOCOL: "json", SUBPROTOCOL_MSGPACK: "msgpack"},
            "version": __version__,
        }
    )


def _metrics_allowed(request: web.Request) -> bool:
    remote = client_address(request)
    if _is_loopback(remote):
        return True
    token = request.app[SETTINGS].metrics_token
    given = request.headers.get("Authorization", "")
    return bool(token) and hmac.compare_digest(given.encode(), f"Bearer {token}".encode())


async def metrics_view(request: web.Request) -> web.Response:
    if not _metrics_allowed(request):
        return web.json_response(
            {
                "type": "error",
                "code": ErrorCode.METRICS_FORBIDDEN,
                "message": "/metrics answers loopback clients; from elsewhere send `Authorization: Bearer <token>` "
                "with the token given to `verdict serve --metrics-token`",
            },
            status=403,
        )
    return web.Response(text=request.app[METRICS].render(), content_type="text/plain", charset="utf-8")


def _base_url(request: web.Request) -> str:
    return f"{request.scheme}://{request.host}"


async def module_manifest(request: web.Request) -> web.Response:
    try:
        data = vtt_module.manifest(_base_url(request))
    except FileNotFoundError:
        raise web.HTTPNotFound(text="the Foundry module is not bundled with this sidecar") from None
    return web.json_response(data, headers={"Access-Control-Allow-Origin": "*"})


async def module_zip(request: web.Request) -> web.Response:
    # Built once per host name it is served under (its module.json carries absolute URLs on that host);
    # the module's files do not change while serving.
    cache = request.app[MODULE_ZIP]
    base = _base_url(request)
    if base not in cache:
        if len(cache) >= 16:  # the Host header is the client's: never let it grow the cache without end
            cache.clear()
        building = f"building:{base}"
        if building not in cache:
            cache[building] = asyncio.get_running_loop().run_in_executor(
                None, lambda: vtt_module.build_zip(base_url=base)
            )
        try:
            cache[base] = await cache[building]
        except FileNotFoundError:
            cache.pop(building, None)
            raise web.HTTPNotFound(text="the Foundry module is not bundled with this sidecar") from None
    data = cache[base]
    return web.Response(
        body=data,
        content_type="application/zip",
        headers={"Content-Disposition": 'attachment; filename="verdict.zip"', "Access-Control-Allow-Origin": "*"},
    )


@dataclass(eq=False)
class Socket:
    """Per-socket state while it lives."""

    ws: web.WebSocketResponse
    msgpack: bool
    transport: Any = None
    conn: Connection | None = None
    hub: Any = None
    tokens: float = 0.0
    refreshed: float = field(default_factory=time.monotonic)
    remote: str = ""
    opened: float = field(default_factory=time.monotonic)
    throttled: Any = None
    guest: bool = False
    """An observer's or the table-wide player key's: counted against ``max_guests``."""
    seated: bool = True
    """Counted in the open sockets (and its address's); a socket evicted before its hello no longer is."""
    closing: bool = False
    """Being closed by the sidecar: what the peer still sends is read and ignored until the socket ends."""

    def backlog(self) -> int:
        transport = self.transport
        return transport.get_write_buffer_size() if transport is not None and not transport.is_closing() else 0

    def unfinished_for(self, now: float) -> float:
        """How long a frame or message of the peer has been unfinished (0: none is). Not while the sidecar
        itself stopped reading (its queue of whole messages is full): the peer then cannot finish."""
        watch = self.ws.watch if isinstance(self.ws, WatchedResponse) else None
        if watch is None or watch.since is None:
            return 0.0
        transport = self.transport
        if transport is not None and hasattr(transport, "is_reading") and not transport.is_reading():
            return 0.0
        return now - watch.since

    def close(self, code: int, reason: bytes, at_once: bool = False) -> None:
        """Say why, then cut the transport: a peer that does not read never holds the socket open.
        ``at_once``: close as soon as the close frame is written, not waiting for the peer's (a socket
        evicted to make room frees its file descriptor now)."""
        self.closing = True
        if self.hub is not None and self.conn is not None:
            self.hub.connections.discard(self.conn)
        loop = asyncio.get_running_loop()
        loop.create_task(self.ws.close(code=code, message=reason))
        transport = self.transport
        if transport is not None:
            if at_once:
                loop.call_soon(transport.close)  # after the close frame is written (the task runs first)
            loop.call_later(0.5, transport.abort)

    async def drop(self) -> None:
        if self.throttled is not None:
            self.throttled.warning("slow_peer_dropped", backlog=self.backlog(), remote=self.remote)
        # 1013 "try again later": the client reconnects and gets what it missed from its last seq.
        self.close(WSCloseCode.TRY_AGAIN_LATER, b"reading too slowly")

    def write(self, frame: bytes, limit: int | None = None) -> bool | None:
        """Write an already framed message (see :func:`~.hub.ws_frame`) in one call; False if closing,
        ``None`` (nothing written) when more than ``limit`` bytes already wait for the peer to read."""
        transport = self.transport
        if transport is None or transport.is_closing() or self.ws.closed:
            return False
        if limit is not None and transport.get_write_buffer_size() > limit:
            return None
        transport.write(frame)
        return True

    async def send(self, data: bytes) -> None:
        # msgspec already produced UTF-8 bytes: send them as the frame, without a decode and re-encode.
        await self.ws.send_frame(data, WSMsgType.BINARY if self.msgpack else WSMsgType.TEXT)


async def websocket(request: web.Request) -> web.StreamResponse:
    settings = request.app[SETTINGS]
    origin = request.headers.get("Origin")
    if origin is not None and origin.rstrip("/") not in settings.origins():
        log.warning("origin_refused", origin=origin)
        return web.json_response(
            {
                "type": "error",
                "code": ErrorCode.ORIGIN_NOT_ALLOWED,
                "message": f"origin {origin} is not allowed; start the sidecar with --allow-origin {origin}",
            },
            status=403,
        )
    offered = [p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",") if p.strip()]
    if offered and not {SUBPROTOCOL, SUBPROTOCOL_MSGPACK} & set(offered):
        return web.json_response(
            {
                "type": "error",
                "code": ErrorCode.UNSUPPORTED_SUBPROTOCOL,
                "message": f"this sidecar speaks {SUBPROTOCOL} (JSON) or {SUBPROTOCOL_MSGPACK}, not {', '.join(offered)}",
            },
            status=400,
        )
    app = request.app
    remote = client_address(request)
    peers = app[PEERS]
    # Who a socket is is known only at its hello. A full address or sidecar makes room by closing its oldest
    # socket that has not said hello yet; a full address that has none still lets a socket in, on probation:
    # its hello is refused unless it is the GM or a user-keyed player (see _hello).
    if peers.get(remote, 0) >= settings.max_per_address:
        _evict_waiting(app, remote)
    if len(app[SOCKETS]) >= settings.max_connections and not _evict_waiting(app, None):
        app[THROTTLED].warning("connection_refused", remote=remote, open=len(app[SOCKETS]))
        app[METRICS].errors["too_many_connections"] += 1
        return web.json_response(
            {
                "type": "error",
                "code": ErrorCode.TOO_MANY_CONNECTIONS,
                "message": "the sidecar has as many connections as it takes; try again later",
            },
            status=503,
            headers={"Retry-After": "5"},
        )
    sock: Socket

    def too_much_unfinished() -> None:
        app[THROTTLED].warning("unfinished_bytes_over", remote=remote, held=app[UNFINISHED].held)
        sock.close(WSCloseCode.MESSAGE_TOO_BIG, b"too many bytes held for unfinished messages")

    ws = WatchedResponse(
        unfinished=app[UNFINISHED],
        on_over=too_much_unfinished,
        protocols=(SUBPROTOCOL, SUBPROTOCOL_MSGPACK),
        compress=False,  # permessage-deflate costs tens of KiB per connection and time on small frames
        heartbeat=30.0,
        autoping=False,  # pings and pongs come to _serve, to be charged as every frame is
        decode_text=False,  # text frames as their bytes: msgspec reads UTF-8, and text that is not gets `bad_frame`
        max_msg_size=settings.max_frame * 16,  # larger frames are refused by us, politely, below
    )
    peers[remote] = peers.get(remote, 0) + 1
    app[SOCKETS].add(ws)
    sock = Socket(
        ws=ws,
        msgpack=False,
        transport=request.transport,
        tokens=settings.burst,
        remote=remote,
        throttled=app[THROTTLED],
    )
    try:
        await ws.prepare(request)
        sock.msgpack = ws.ws_protocol == SUBPROTOCOL_MSGPACK
        _watch(sock, settings)
        app[LIVE].add(sock)
        if sock.conn is None and sock.seated:
            app[WAITING][sock] = None
        app[METRICS].connections += 1
        try:
            await _serve(app, sock)
        finally:
            app[METRICS].connections -= 1
    finally:
        app[LIVE].discard(sock)
        app[WAITING].pop(sock, None)
        if ws.watch is not None:
            ws.watch.release()
        if sock.seated:
            _unseat(app, sock)
        if sock.guest:
            app[METRICS].guests -= 1
        if sock.conn is not None and sock.hub is not None:
            sock.hub.connections.discard(sock.conn)
    return ws


def _unseat(app: web.Application, sock: Socket) -> None:
    sock.seated = False
    app[SOCKETS].discard(sock.ws)
    peers = app[PEERS]
    peers[sock.remote] -= 1
    if not peers[sock.remote]:
        del peers[sock.remote]


def _evict_waiting(app: web.Application, remote: str | None) -> bool:
    """Make room for a new socket: the oldest socket that has not said hello yet (from ``remote``, when
    that address is what is full) gives its seat up and is closed. A flood of sockets that never say
    hello then only evicts itself, and the GM's socket, which says hello at once, gets in; ``False`` when
    every seat is someone's who said hello."""
    waiting = app[WAITING]
    for sock in waiting:
        if remote is None or sock.remote == remote:
            del waiting[sock]
            _unseat(app, sock)
            app[THROTTLED].warning("waiting_socket_evicted", remote=sock.remote)
            sock.close(4408, b"no hello yet, and the sidecar is full", at_once=True)
            return True
    return False


def _watch(sock: Socket, settings: Settings) -> None:
    """Bound the kernel's send buffer: with the slow-peer check it bounds what an unread peer holds."""
    raw = sock.transport.get_extra_info("socket") if sock.transport is not None else None
    if raw is not None:
        try:
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, settings.send_buffer)
        except OSError:
            pass


CONTROL_FLOOD = 4429
"""The close code of a socket that sent control frames (pings, pongs) beyond its budget."""


async def _serve(app: web.Application, sock: Socket) -> None:
    ws = sock.ws
    settings = app[SETTINGS]
    async for frame in ws:
        kind = frame.type
        if sock.closing:
            continue
        if kind == WSMsgType.TEXT or kind == WSMsgType.BINARY:
            if not await _frame(app, sock, frame.data, kind == WSMsgType.TEXT) and not sock.closing:
                break  # closed already (a refused hello); one being closed reads on until it ends, unheard
        elif kind == WSMsgType.PING or kind == WSMsgType.PONG:
            if not _charge_control(app, sock, settings):
                app[THROTTLED].warning("control_frame_flood", remote=sock.remote)
                app[METRICS].errors["control_frame_flood"] += 1
                sock.close(CONTROL_FLOOD, b"too many control frames")
            elif kind == WSMsgType.PING:
                await ws.pong(frame.data)
        elif kind == WSMsgType.ERROR:
            log.info("socket_error", error=str(ws.exception()))
            break


async def _frame(app: web.Application, sock: Socket, data: bytes, text: bool) -> bool:
    """Handle one data frame (a text frame's bytes, or a binary frame's); ``False`` when the socket is to
    close (a refused hello)."""
    settings = app[SETTINGS]
    start = time.perf_counter()
    # Every frame is charged, refused ones too, and a large one as several.
    if not _take_token(app, sock, settings, 1 + len(data) // settings.max_frame):
        rid = codec.request_id(data, sock.msgpack) if len(data) <= settings.max_frame else None
        await _error(
            app,
            sock,
            rid,
            ErrorCode.RATE_LIMITED,
            f"slow down: at most {settings.rate:g} requests per second; retry this request shortly",
        )
        return True
    if len(data) > settings.max_frame:
        await _error(app, sock, None, ErrorCode.FRAME_TOO_LARGE, f"frames are limited to {settings.max_frame} bytes")
        return True
    if text == sock.msgpack:
        await _error(
            app,
            sock,
            None,
            ErrorCode.BAD_FRAME,
            "this socket speaks MessagePack (verdict.v1+msgpack): send binary frames"
            if sock.msgpack
            else "this socket speaks JSON (verdict.v1): send text frames",
        )
        return True
    try:
        msg = codec.decode_client(data, sock.msgpack)
    except ProtocolError as exc:
        await _error(app, sock, exc.id, exc.code, exc.message)
        return True
    kind = type(msg).__struct_config__.tag
    app[METRICS].requests[kind] += 1
    try:
        if sock.conn is None:
            if not isinstance(msg, m.Hello):
                await _error(app, sock, getattr(msg, "id", None), ErrorCode.HELLO_REQUIRED, "send `hello` first")
                return True
            return await _hello(app, sock, msg)
        await _dispatch(app, sock, msg)
    except VerdictError as exc:  # every refusal of the tree: its code and message, the socket stays up
        await _error(app, sock, getattr(msg, "id", None), exc.code, exc.message)
    except Exception:
        log.exception("request_failed", type=kind)
        await _error(
            app,
            sock,
            getattr(msg, "id", None),
            ErrorCode.INTERNAL_ERROR,
            "the sidecar failed on this request; it is logged",
        )
    app[METRICS].observe(time.perf_counter() - start)
    return True


def _take_token(app: web.Application, sock: Socket, settings: Settings, cost: int = 1) -> bool:
    """Charge the socket, its remote address (not a GM's) and (after hello) its requester; all must have tokens."""
    now = time.monotonic()
    sock.tokens = min(settings.burst, sock.tokens + (now - sock.refreshed) * settings.rate)
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
        and not limits["key"].take((sock.hub.table.id, conn.role, conn.user), cost, now)
    ):
        return False
    sock.tokens -= cost  # may go below 0: a large frame is paid off before the next is taken
    return True


def _charge_control(app: web.Application, sock: Socket, settings: Settings) -> bool:
    """Charge a ping or pong as a request is charged (the socket, its address unless the GM's, its
    requester); ``False`` when the socket is flooding. A control frame is never refused: it may take the
    socket's budget into debt, so that the keepalive ping of a client spending its whole budget on requests
    is still answered. A socket a whole burst in debt sent that many control frames beyond its budget."""
    now = time.monotonic()
    sock.tokens = min(settings.burst, sock.tokens + (now - sock.refreshed) * settings.rate) - 1
    sock.refreshed = now
    limits = app[LIMITS]
    conn = sock.conn
    if conn is None or conn.role != "gm":
        limits["address"].charge(sock.remote, 1, now)
    if conn is not None and conn.user is not None:
        limits["key"].charge((sock.hub.table.id, conn.role, conn.user), 1, now)
    return sock.tokens >= -settings.burst


async def _error(app: web.Application, sock: Socket, rid: Any, code: ErrorCode, message: str) -> None:
    app[METRICS].errors[code] += 1
    if sock.ws.closed:
        return
    await sock.send(
        codec.encode(m.Error(code=code, message=message, id=rid if isinstance(rid, str) else None), sock.msgpack)
    )


async def _hello(app: web.Application, sock: Socket, hello: m.Hello) -> bool:
    hub_all = app[HUB]
    app[WAITING].pop(sock, None)  # it said hello: no longer a seat to evict
    if hello.protocol != 1:
        await _error(
            app, sock, None, ErrorCode.UNSUPPORTED_PROTOCOL, f"this sidecar speaks protocol 1, not {hello.protocol}"
        )
        await sock.ws.close(code=4400, message=b"unsupported protocol")
        return False
    try:
        # The key first: a peer without one never makes the sidecar read a table.
        if getattr(hub_all.ledger, "shared", False):  # a round trip to the database: not on the loop
            who = await asyncio.to_thread(authenticate, hub_all.ledger, hello.table, hello.key, hello.user)
        else:
            who = authenticate(hub_all.ledger, hello.table, hello.key, hello.user)
        guest = who.role != "gm" and who.user is None  # an observer, or the table-wide player key
        settings = app[SETTINGS]
        if guest and (
            app[METRICS].guests >= settings.guest_seats() or app[PEERS].get(sock.remote, 0) > settings.max_per_address
        ):
            full = app[METRICS].guests >= settings.guest_seats()
            await _error(
                app,
                sock,
                None,
                ErrorCode.TOO_MANY_CONNECTIONS,
                GUESTS_FULL
                if full
                else f"at most {settings.max_per_address} connections from one address; close some and try again "
                "(the GM and players with their own user key still get in)",
            )
            sock.close(WSCloseCode.TRY_AGAIN_LATER, b"as many connections as the sidecar takes")
            return False
        if guest:  # the seat is taken now, before anything is awaited; given back when the socket ends
            sock.guest = True
            app[METRICS].guests += 1
        hub = await hub_all.open_table(hello.table)
        if hub is None:
            raise Refused(ErrorCode.UNAUTHORIZED, "unknown table or wrong key for it")
    except Refused as exc:
        await _error(app, sock, None, exc.code, exc.message)
        await sock.ws.close(code=4401, message=b"unauthorized")
        return False
    role = who.role
    user = who.user if who.user is not None or role != "gm" else gm_requester(hello.key)
    conn = Connection(
        send=sock.send,
        role=role,
        user=user,
        msgpack=sock.msgpack,
        backlog=sock.backlog,
        drop=sock.drop,
        write=sock.write,
    )
    async with hub.lock:  # no action lands between the welcome's seq and the first broadcast
        await hub_all.refresh(hub)
        if not hub_all.readable(hub):  # an append failed and the table could not be read back
            await _error(app, sock, None, ErrorCode.LEDGER_UNAVAILABLE, UNREADABLE)
            sock.close(WSCloseCode.TRY_AGAIN_LATER, b"the ledger cannot be read")
            return False
        welcome = hub_all.welcome(hub, conn, hello.since, f"verdict/{__version__}")
        # Written, not awaited: a joiner that does not read holds up nobody (its backlog then drops it).
        sock.write(ws_frame(codec.encode(welcome, sock.msgpack), sock.msgpack))
        sock.conn, sock.hub = conn, hub
        hub.connections.add(conn)
    log.info("joined", table=hello.table, role=role, client=hello.client)
    return True


UNREADABLE = "the ledger cannot be read right now; retry shortly"
GUESTS_FULL = (
    "the sidecar has as many observers and table-wide player keys connected as it takes; try again later "
    "(the GM and players with their own user key still get in)"
)


def gm_requester(gm_key: str) -> str:
    """The requester a GM connection whose hello names no user acts as: one per GM key, the same on every
    socket and after a restart, so its request ids keep their meaning (a retry is answered, never rolled
    again) and its `self` rolls come back to it. Derived from the key, which only the GM holds, so nobody can
    guess it and have a user key made for it; it changes when the keys are rotated."""
    mac = hmac.new(gm_key.encode(), b"verdict-gm-requester", hashlib.sha256).hexdigest()
    return f"gm-{mac[:16]}"


async def _dispatch(app: web.Application, sock: Socket, msg: Any) -> None:
    hub_all, conn, hub = app[HUB], sock.conn, sock.hub
    assert conn is not None
    if isinstance(msg, (m.Roll, m.Follow, m.Gm)):
        await hub_all.request(hub, conn, msg)
    elif isinstance(msg, m.Odds):
        await sock.send(codec.encode(await _odds_off_loop(app, msg), sock.msgpack))
    elif isinstance(msg, (m.State, m.Verify)):
        # Between two batches (the table then holds only what is stored; see Hub._batch), and never a
        # table an append left unread.
        async with hub.lock:
            if not hub_all.readable(hub):
                raise ActionError(ErrorCode.LEDGER_UNAVAILABLE, UNREADABLE)
            if isinstance(msg, m.State):
                reply: Any = m.StateReply(id=msg.id, snapshot=hub.table.snapshot(conn.viewer))
            else:
                reply = verified(hub.table, msg, conn.viewer)
        await sock.send(codec.encode(reply, sock.msgpack))
    elif isinstance(msg, m.Ping):
        await sock.send(codec.encode(m.Pong(id=msg.id), sock.msgpack))
    elif isinstance(msg, m.UserKey):
        if conn.role != "gm":
            raise ActionError(ErrorCode.FORBIDDEN, "only the GM can get a user's key")
        if not msg.user or len(msg.user) > MAX_USER:
            raise ActionError(ErrorCode.INVALID_MESSAGE, f"`user` is a Foundry user id of 1 to {MAX_USER} characters")
        secret = hub_all.ledger.user_secret(hub.table.id)
        if secret is None:
            raise RuntimeError(f"table {hub.table.id!r} has no user secret")
        key = derive_user_key(secret, msg.user)
        await sock.send(codec.encode(m.UserKeyReply(id=msg.id, user=msg.user, key=key), sock.msgpack))
    elif isinstance(msg, m.Hello):
        await _error(
            app,
            sock,
            None,
            ErrorCode.ALREADY_JOINED,
            "this socket already said hello; open a new one for another table",
        )


ODDS = web.AppKey("odds", dict)


async def _odds_off_loop(app: web.Application, msg: m.Odds) -> m.OddsReply:
    """Odds are computed on one worker thread, a bounded number waiting: a flood of large checks slows
    the odds, never the table (the loop only waits for the answer)."""
    state = app[ODDS]
    if state["waiting"] >= app[SETTINGS].odds_queue:
        raise ActionError(ErrorCode.BUSY, "the sidecar is computing many odds right now; retry this request shortly")
    state["waiting"] += 1
    try:
        return await asyncio.get_running_loop().run_in_executor(state["pool"], _odds, msg)
    finally:
        state["waiting"] -= 1


def _odds(msg: m.Odds) -> m.OddsReply:
    try:
        from sidecar.engine.odds import odds
    except ImportError:
        raise ActionError(ErrorCode.UNSUPPORTED, "odds are not available in this build") from None
    return m.OddsReply(id=msg.id, check=msg.check, odds=odds(msg.check))
