"""The aiohttp application: ``/ws``, ``/healthz``, ``/metrics`` and ``/module/``.

One websocket per client, subprotocol ``verdict.v1`` (JSON) or ``verdict.v1+msgpack``.
The first frame is ``hello``; a wrong key is answered ``unauthorized`` and the socket
closed with 4401. Every later bad frame gets an ``error`` and the socket stays up.
Hostile clients meet limits here: connection caps (total and per address), hello and
partial-frame timeouts (4408), token buckets per socket, requester and address, a bounded
send buffer (a peer that stops reading is cut), and odds computed off the event loop.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import hmac
import socket
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from ipaddress import IPv4Network, IPv6Network, ip_address, ip_network
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
from sidecar.state.ledger import Ledger, LedgerUnavailable, SqliteLedger
from sidecar.state.table import ActionError

from . import module as vtt_module
from .bus import Bus
from .hub import Connection, Hub, ws_frame
from .metrics import Metrics

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
    """A frame begun and not finished this long is a stalled peer: the socket is cut."""
    key_rate: float | None = None
    """Requests per second one requester (a GM or a player bound to a user) may sustain over all its
    sockets, so reconnecting does not refill; ``None``: twice ``rate``."""
    address_rate: float | None = None
    """Requests per second one remote address may sustain over all its sockets; ``None``: 8 x ``rate``."""
    max_connections: int = config.MAX_CONNECTIONS
    """Open websockets at most; more are refused (503, ``too_many_connections``)."""
    max_per_address: int = config.MAX_PER_ADDRESS
    """Open websockets from one remote address at most (429, ``too_many_connections``)."""
    send_buffer: int = config.SEND_BUFFER
    """The kernel's send buffer per socket: with the slow-peer check it bounds what an unread peer holds."""
    odds_queue: int = config.ODDS_QUEUE
    """Odds requests waiting for the odds worker at most; more are refused (``busy``)."""
    trusted_proxies: tuple[str, ...] = ()
    """Addresses or networks (CIDR) of reverse proxies whose ``X-Forwarded-For`` names the client: per-address
    limits and the /metrics check then apply to the client, not to the proxy. Their ``X-Forwarded-Proto``
    and ``-Host`` also give the module's URLs when no ``public_url`` is set; everyone else's are ignored."""
    public_url: str | None = None
    """Where clients reach the sidecar (``https://verdict.example.org``): the module's manifest and zip carry
    absolute URLs on it. ``None``: the address a request came in on (its socket's, never its ``Host``)."""
    metrics_token: str | None = None
    """``/metrics`` answers loopback clients, and others that send ``Authorization: Bearer <token>``."""

    def origins(self) -> frozenset[str]:
        if self.allow_origins is not None:
            return frozenset(o.rstrip("/") for o in self.allow_origins)
        return frozenset(LOCAL_FOUNDRY_ORIGINS) if _is_loopback(self.host) else frozenset()


def client_address(request: web.Request) -> str:
    """The remote address, or the client a trusted reverse proxy names (the last ``X-Forwarded-For`` entry)."""
    peer = request.remote or ""
    forwarded = request.headers.get("X-Forwarded-For")
    if not forwarded or not from_trusted_proxy(request):
        return peer
    try:
        return str(ip_address(forwarded.split(",")[-1].strip()))
    except ValueError:
        return peer


def from_trusted_proxy(request: web.Request) -> bool:
    """Whether the peer is one of ``--trust-proxy``'s addresses or networks, whose forwarded headers count."""
    trusted = _networks(request.app[SETTINGS].trusted_proxies)
    if not trusted:
        return False
    try:
        addr = ip_address(request.remote or "")
    except ValueError:
        return False
    return any(addr in net for net in trusted)


@functools.cache
def _networks(trusted: tuple[str, ...]) -> tuple[IPv4Network | IPv6Network, ...]:
    return tuple(ip_network(net, strict=False) for net in trusted)


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
        b = self.buckets.get(name)
        if b is None:
            if len(self.buckets) >= self.max_names:
                self._forget(now)
            b = self.buckets[name] = [self.burst, now]
        b[0] = min(self.burst, b[0] + (now - b[1]) * self.rate)
        b[1] = now
        if b[0] < 1:
            return False
        b[0] -= cost
        return True

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
LIMITS = web.AppKey("limits", dict)
PEERS = web.AppKey("peers", dict)
THROTTLED = web.AppKey("throttled", Throttled)


def create_app(settings: Settings, ledger: Ledger | None = None) -> web.Application:
    _networks(settings.trusted_proxies)  # a proxy that is no address fails here, not on every request
    app = web.Application()
    ledger = ledger or SqliteLedger(config.data_file(settings.data))
    metrics = Metrics()
    app[SETTINGS] = settings
    app[METRICS] = metrics
    app[HUB] = Hub(ledger, metrics)
    Bus(app[HUB], ledger).attach(app)  # what others append to the same tables, if anybody does
    app[SOCKETS] = set()
    app[LIMITS] = {
        "key": Limiter(settings.key_rate or 2 * settings.rate, 2 * settings.burst),
        "address": Limiter(settings.address_rate or 8 * settings.rate, 8 * settings.burst),
    }
    app[PEERS] = {}
    app[THROTTLED] = Throttled()
    app[ODDS] = {"pool": ThreadPoolExecutor(max_workers=1, thread_name_prefix="verdict-odds"), "waiting": 0}
    app.on_startup.append(_start_watchdog)
    app.on_startup.append(_tune_gc)
    app.router.add_get("/ws", websocket)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics_view)
    vtt_module.ModuleRoutes(settings.public_url, from_trusted_proxy).attach(app)
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
    """Close sockets that never said hello, and cut those stalled in the middle of a frame."""
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
            elif sock.partial_since is not None and not sock.busy and now - sock.partial_since > settings.frame_timeout:
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
    app[HUB].close()
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
    partial_since: float | None = None
    """When bytes of a frame not yet complete first arrived."""
    busy: bool = False
    throttled: Any = None

    def backlog(self) -> int:
        transport = self.transport
        return transport.get_write_buffer_size() if transport is not None and not transport.is_closing() else 0

    def close(self, code: int, reason: bytes) -> None:
        """Say why, then cut the transport: a peer that does not read never holds the socket open."""
        if self.hub is not None and self.conn is not None:
            self.hub.connections.discard(self.conn)
        loop = asyncio.get_running_loop()
        loop.create_task(self.ws.close(code=code, message=reason))
        transport = self.transport
        if transport is not None:
            loop.call_later(0.5, transport.abort)

    async def drop(self) -> None:
        if self.throttled is not None:
            self.throttled.warning("slow_peer_dropped", backlog=self.backlog(), remote=self.remote)
        # 1013 "try again later": the client reconnects and gets what it missed from its last seq.
        self.close(WSCloseCode.TRY_AGAIN_LATER, b"reading too slowly")

    def on_data(self) -> None:
        if self.partial_since is None:
            self.partial_since = time.monotonic()

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
    if len(app[SOCKETS]) >= settings.max_connections or peers.get(remote, 0) >= settings.max_per_address:
        total = len(app[SOCKETS]) >= settings.max_connections
        app[THROTTLED].warning("connection_refused", remote=remote, open=len(app[SOCKETS]))
        app[METRICS].errors["too_many_connections"] += 1
        return web.json_response(
            {
                "type": "error",
                "code": ErrorCode.TOO_MANY_CONNECTIONS,
                "message": "the sidecar has as many connections as it takes; try again later"
                if total
                else f"at most {settings.max_per_address} connections from one address; close some and try again",
            },
            status=503 if total else 429,
            headers={"Retry-After": "5"},
        )
    ws = web.WebSocketResponse(
        protocols=(SUBPROTOCOL, SUBPROTOCOL_MSGPACK),
        compress=False,  # permessage-deflate costs tens of KiB per connection and time on small frames
        heartbeat=30.0,
        autoping=False,  # pings and pongs come to _serve: any complete frame ends a partial one
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
        _watch(request, sock, settings)
        app[LIVE].add(sock)
        app[METRICS].connections += 1
        try:
            await _serve(app, sock)
        finally:
            app[METRICS].connections -= 1
    finally:
        app[LIVE].discard(sock)
        app[SOCKETS].discard(ws)
        peers[remote] -= 1
        if not peers[remote]:
            del peers[remote]
        if sock.conn is not None and sock.hub is not None:
            sock.hub.connections.discard(sock.conn)
    return ws


def _watch(request: web.Request, sock: Socket, settings: Settings) -> None:
    """Bound the kernel's send buffer, and note when bytes of a frame arrive (for the frame timeout)."""
    raw = sock.transport.get_extra_info("socket") if sock.transport is not None else None
    if raw is not None:
        try:
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, settings.send_buffer)
        except OSError:
            pass
    protocol = request.protocol
    heartbeat = getattr(protocol, "_data_received_cb", None)

    def on_data() -> None:
        sock.on_data()
        if heartbeat is not None:
            heartbeat()

    protocol._data_received_cb = on_data


async def _serve(app: web.Application, sock: Socket) -> None:
    ws = sock.ws
    async for frame in ws:
        sock.partial_since = None
        if frame.type == WSMsgType.TEXT:
            data: bytes | str = frame.data
        elif frame.type == WSMsgType.BINARY:
            data = frame.data
        elif frame.type == WSMsgType.PING:
            await ws.pong(frame.data)
            continue
        elif frame.type == WSMsgType.ERROR:
            log.info("socket_error", error=str(ws.exception()))
            break
        else:
            continue
        sock.busy = True
        try:
            if not await _frame(app, sock, data):
                break
        finally:
            sock.busy = False


async def _frame(app: web.Application, sock: Socket, data: bytes | str) -> bool:
    """Handle one frame; ``False`` when the socket is to close (a refused hello)."""
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
    if isinstance(data, str) == sock.msgpack:
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
        msg = codec.decode_client(data if isinstance(data, bytes) else data.encode(), sock.msgpack)
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


async def _error(app: web.Application, sock: Socket, rid: Any, code: ErrorCode, message: str) -> None:
    app[METRICS].errors[code] += 1
    if sock.ws.closed:
        return
    await sock.send(
        codec.encode(m.Error(code=code, message=message, id=rid if isinstance(rid, str) else None), sock.msgpack)
    )


async def _hello(app: web.Application, sock: Socket, hello: m.Hello) -> bool:
    hub_all = app[HUB]
    if hello.protocol != 1:
        await _error(
            app, sock, None, ErrorCode.UNSUPPORTED_PROTOCOL, f"this sidecar speaks protocol 1, not {hello.protocol}"
        )
        await sock.ws.close(code=4400, message=b"unsupported protocol")
        return False
    try:
        # The key first: a peer without one never makes the sidecar read a table.
        who = await authenticate(hub_all.ledger, hello.table, hello.key, hello.user)
        hub = await hub_all.open_table(hello.table)
        if hub is None:
            raise Refused(ErrorCode.UNAUTHORIZED, "unknown table or wrong key for it")
    except Refused as exc:
        await _error(app, sock, None, exc.code, exc.message)
        await sock.ws.close(code=4401, message=b"unauthorized")
        return False
    role = who.role
    # A GM without a user id still gets one of its own, so its `self` rolls come back to it.
    user = who.user if who.user is not None or role != "gm" else f"anon-{uuid.uuid4().hex[:8]}"
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
        if not await hub_all.readable(hub):  # an append failed and the table could not be read back
            await _error(app, sock, None, ErrorCode.LEDGER_UNAVAILABLE, UNREADABLE)
            sock.close(WSCloseCode.TRY_AGAIN_LATER, b"the ledger cannot be read")
            return False
        try:
            welcome = await hub_all.welcome(hub, conn, hello.since, f"verdict/{__version__}")
        except LedgerUnavailable as exc:  # the history it needs cannot be read now
            await _error(app, sock, None, exc.code, exc.message)
            sock.close(WSCloseCode.TRY_AGAIN_LATER, b"the ledger cannot be read")
            return False
        # Written, not awaited: a joiner that does not read holds up nobody (its backlog then drops it).
        sock.write(ws_frame(codec.encode(welcome, sock.msgpack), sock.msgpack))
        sock.conn, sock.hub = conn, hub
        hub.connections.add(conn)
    log.info("joined", table=hello.table, role=role, client=hello.client)
    return True


UNREADABLE = "the ledger cannot be read right now; retry shortly"


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
            if not await hub_all.readable(hub):
                raise ActionError(ErrorCode.LEDGER_UNAVAILABLE, UNREADABLE)
            if isinstance(msg, m.State):
                reply: Any = m.StateReply(id=msg.id, snapshot=await hub.table.snapshot_read(conn.viewer))
            else:
                reply = await hub.table.verify_read(msg, conn.viewer)
        await sock.send(codec.encode(reply, sock.msgpack))
    elif isinstance(msg, m.Ping):
        await sock.send(codec.encode(m.Pong(id=msg.id), sock.msgpack))
    elif isinstance(msg, m.UserKey):
        if conn.role != "gm":
            raise ActionError(ErrorCode.FORBIDDEN, "only the GM can get a user's key")
        if not msg.user or len(msg.user) > MAX_USER:
            raise ActionError(ErrorCode.INVALID_MESSAGE, f"`user` is a Foundry user id of 1 to {MAX_USER} characters")
        secret = await hub_all.ledger.find_user_secret(hub.table.id)
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
