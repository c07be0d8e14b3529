"""The aiohttp application: ``/ws``, ``/healthz``, ``/metrics`` and ``/module/``.

One websocket per client, subprotocol ``verdict.v1`` (JSON) or ``verdict.v1+msgpack``.
The first frame is ``hello``; a wrong key is answered ``unauthorized`` and the socket
closed with 4401. Every later bad frame gets an ``error`` and the socket stays up.
"""

from __future__ import annotations

import asyncio
import hmac
import time
import uuid
from dataclasses import dataclass, field
from ipaddress import ip_address
from pathlib import Path
from typing import Any

import structlog
from aiohttp import WSCloseCode, WSMsgType, web

from protocol.v1 import codec
from protocol.v1 import messages as m
from protocol.v1.base import SUBPROTOCOL, SUBPROTOCOL_MSGPACK
from protocol.v1.codec import ProtocolError
from sidecar import __version__
from sidecar.engine import CheckError
from sidecar.state.keys import MAX_USER, Refused, authenticate, derive_user_key
from sidecar.state.ledger import Ledger, SqliteLedger
from sidecar.state.table import ActionError

from . import module as vtt_module
from .hub import Connection, Hub
from .metrics import Metrics

log = structlog.get_logger("verdict.server")

LOCAL_FOUNDRY_ORIGINS = (
    "http://localhost:30000",
    "http://127.0.0.1:30000",
    "https://localhost:30000",
    "https://127.0.0.1:30000",
)


@dataclass
class Settings:
    host: str = "127.0.0.1"
    port: int = 8765
    data: Path = Path("var")
    allow_origins: tuple[str, ...] | None = None
    """``None``: the local Foundry origins when serving on loopback, none else otherwise."""
    max_frame: int = 64 * 1024
    rate: float = 20.0
    """Requests per second a connection may sustain."""
    burst: float = 40.0
    hello_timeout: float = 10.0
    metrics_token: str | None = None
    """``/metrics`` answers loopback clients, and others that send ``Authorization: Bearer <token>``."""

    def origins(self) -> frozenset[str]:
        if self.allow_origins is not None:
            return frozenset(o.rstrip("/") for o in self.allow_origins)
        return frozenset(LOCAL_FOUNDRY_ORIGINS) if _is_loopback(self.host) else frozenset()


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


HUB = web.AppKey("hub", Hub)
SETTINGS = web.AppKey("settings", Settings)
METRICS = web.AppKey("metrics", Metrics)
SOCKETS = web.AppKey("sockets", set)
MODULE_ZIP = web.AppKey("module_zip", dict)


def create_app(settings: Settings, ledger: Ledger | None = None) -> web.Application:
    app = web.Application()
    ledger = ledger or SqliteLedger(settings.data / "verdict.sqlite3")
    metrics = Metrics()
    app[SETTINGS] = settings
    app[METRICS] = metrics
    app[HUB] = Hub(ledger, metrics)
    app[SOCKETS] = set()
    app[MODULE_ZIP] = {}
    app.router.add_get("/ws", websocket)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics_view)
    app.router.add_get("/module/module.json", module_manifest)
    app.router.add_get("/module/verdict.zip", module_zip)
    app.on_shutdown.append(_close_sockets)
    app.on_cleanup.append(_close_ledger)
    return app


async def _close_sockets(app: web.Application) -> None:
    for ws in list(app[SOCKETS]):
        await ws.close(code=WSCloseCode.GOING_AWAY, message=b"server shutting down")


async def _close_ledger(app: web.Application) -> None:
    app[HUB].ledger.close()


async def healthz(request: web.Request) -> web.Response:
    return web.json_response(
        {"status": "ok", "protocol": [SUBPROTOCOL], "encodings": {SUBPROTOCOL: "json", SUBPROTOCOL_MSGPACK: "msgpack"},
         "version": __version__}
    )


def _metrics_allowed(request: web.Request) -> bool:
    remote = request.remote or ""
    if _is_loopback(remote):
        return True
    token = request.app[SETTINGS].metrics_token
    given = request.headers.get("Authorization", "")
    return bool(token) and hmac.compare_digest(given.encode(), f"Bearer {token}".encode())


async def metrics_view(request: web.Request) -> web.Response:
    if not _metrics_allowed(request):
        return web.json_response(
            {"type": "error", "code": "metrics_forbidden",
             "message": "/metrics answers loopback clients; from elsewhere send `Authorization: Bearer <token>` "
                        "with the token given to `verdict serve --metrics-token`"},
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
            cache[building] = asyncio.get_running_loop().run_in_executor(None, lambda: vtt_module.build_zip(base_url=base))
        try:
            cache[base] = await cache[building]
        except FileNotFoundError:
            cache.pop(building, None)
            raise web.HTTPNotFound(text="the Foundry module is not bundled with this sidecar") from None
    data = cache[base]
    return web.Response(
        body=data, content_type="application/zip",
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

    def backlog(self) -> int:
        transport = self.transport
        return transport.get_write_buffer_size() if transport is not None and not transport.is_closing() else 0

    async def drop(self) -> None:
        log.warning("slow_peer_dropped", backlog=self.backlog())
        if self.hub is not None and self.conn is not None:
            self.hub.connections.discard(self.conn)
        # 1013 "try again later": the client reconnects and gets what it missed from its last seq.
        asyncio.get_running_loop().create_task(self.ws.close(code=WSCloseCode.TRY_AGAIN_LATER, message=b"reading too slowly"))

    async def send(self, data: bytes) -> None:
        # msgspec already produced UTF-8 bytes: send them as the frame, without a decode and re-encode.
        await self.ws.send_frame(data, WSMsgType.BINARY if self.msgpack else WSMsgType.TEXT)


async def websocket(request: web.Request) -> web.StreamResponse:
    settings = request.app[SETTINGS]
    origin = request.headers.get("Origin")
    if origin is not None and origin.rstrip("/") not in settings.origins():
        log.warning("origin_refused", origin=origin)
        return web.json_response(
            {"type": "error", "code": "origin_not_allowed",
             "message": f"origin {origin} is not allowed; start the sidecar with --allow-origin {origin}"},
            status=403,
        )
    offered = [p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",") if p.strip()]
    if offered and not {SUBPROTOCOL, SUBPROTOCOL_MSGPACK} & set(offered):
        return web.json_response(
            {"type": "error", "code": "unsupported_subprotocol",
             "message": f"this sidecar speaks {SUBPROTOCOL} (JSON) or {SUBPROTOCOL_MSGPACK}, not {', '.join(offered)}"},
            status=400,
        )
    ws = web.WebSocketResponse(
        protocols=(SUBPROTOCOL, SUBPROTOCOL_MSGPACK),
        compress=False,  # permessage-deflate costs tens of KiB per connection and time on small frames
        heartbeat=30.0,
        max_msg_size=settings.max_frame * 16,  # larger frames are refused by us, politely, below
    )
    await ws.prepare(request)
    sock = Socket(ws=ws, msgpack=ws.ws_protocol == SUBPROTOCOL_MSGPACK, transport=request.transport, tokens=settings.burst)
    app = request.app
    app[SOCKETS].add(ws)
    app[METRICS].connections += 1
    try:
        await _serve(app, sock)
    finally:
        app[SOCKETS].discard(ws)
        app[METRICS].connections -= 1
        if sock.conn is not None and sock.hub is not None:
            sock.hub.connections.discard(sock.conn)
    return ws


async def _serve(app: web.Application, sock: Socket) -> None:
    settings = app[SETTINGS]
    ws = sock.ws
    async for frame in ws:
        if frame.type == WSMsgType.TEXT:
            data: bytes | str = frame.data
        elif frame.type == WSMsgType.BINARY:
            data = frame.data
        elif frame.type == WSMsgType.ERROR:
            log.info("socket_error", error=str(ws.exception()))
            break
        else:
            continue
        start = time.perf_counter()
        # Every frame is charged, refused ones too, and a large one as several.
        if not _take_token(sock, settings, 1 + len(data) // settings.max_frame):
            rid = codec.request_id(data, sock.msgpack) if len(data) <= settings.max_frame else None
            await _error(app, sock, rid, "rate_limited",
                         f"slow down: at most {settings.rate:g} requests per second; retry this request shortly")
            continue
        if len(data) > settings.max_frame:
            await _error(app, sock, None, "frame_too_large", f"frames are limited to {settings.max_frame} bytes")
            continue
        if isinstance(data, str) == sock.msgpack:
            await _error(app, sock, None, "bad_frame",
                         "this socket speaks MessagePack (verdict.v1+msgpack): send binary frames" if sock.msgpack
                         else "this socket speaks JSON (verdict.v1): send text frames")
            continue
        try:
            msg = codec.decode_client(data if isinstance(data, bytes) else data.encode(), sock.msgpack)
        except ProtocolError as exc:
            await _error(app, sock, exc.id, exc.code, exc.message)
            continue
        kind = type(msg).__struct_config__.tag
        app[METRICS].requests[kind] += 1
        try:
            if sock.conn is None:
                if not isinstance(msg, m.Hello):
                    await _error(app, sock, getattr(msg, "id", None), "hello_required", "send `hello` first")
                    continue
                if not await _hello(app, sock, msg):
                    break
                continue
            await _dispatch(app, sock, msg)
        except ActionError as exc:
            await _error(app, sock, getattr(msg, "id", None), exc.code, exc.message)
        except CheckError as exc:
            await _error(app, sock, getattr(msg, "id", None), exc.code, exc.message)
        except Exception:
            log.exception("request_failed", type=kind)
            await _error(app, sock, getattr(msg, "id", None), "internal_error", "the sidecar failed on this request; it is logged")
        app[METRICS].observe(time.perf_counter() - start)


def _take_token(sock: Socket, settings: Settings, cost: int = 1) -> bool:
    now = time.monotonic()
    sock.tokens = min(settings.burst, sock.tokens + (now - sock.refreshed) * settings.rate)
    sock.refreshed = now
    if sock.tokens < 1:
        return False
    sock.tokens -= cost  # may go below 0: a large frame is paid off before the next is taken
    return True


async def _error(app: web.Application, sock: Socket, rid: Any, code: str, message: str) -> None:
    app[METRICS].errors[code] += 1
    if sock.ws.closed:
        return
    await sock.send(codec.encode(m.Error(code=code, message=message, id=rid if isinstance(rid, str) else None), sock.msgpack))


async def _hello(app: web.Application, sock: Socket, hello: m.Hello) -> bool:
    hub_all = app[HUB]
    if hello.protocol != 1:
        await _error(app, sock, None, "unsupported_protocol", f"this sidecar speaks protocol 1, not {hello.protocol}")
        await sock.ws.close(code=4400, message=b"unsupported protocol")
        return False
    hub = hub_all.table(hello.table)
    try:
        if hub is None:
            raise Refused("unauthorized", "unknown table or wrong key for it")
        who = authenticate(hub_all.ledger, hello.table, hello.key, hello.user)
    except Refused as exc:
        await _error(app, sock, None, exc.code, exc.message)
        await sock.ws.close(code=4401, message=b"unauthorized")
        return False
    role = who.role
    # A GM without a user id still gets one of its own, so its `self` rolls come back to it.
    user = who.user if who.user is not None or role != "gm" else f"anon-{uuid.uuid4().hex[:8]}"
    conn = Connection(
        send=sock.send, role=role, user=user, msgpack=sock.msgpack,
        backlog=sock.backlog, drop=sock.drop,
    )
    sock.conn, sock.hub = conn, hub
    welcome = hub_all.welcome(hub, conn, hello.since, f"verdict/{__version__}")
    await sock.send(codec.encode(welcome, sock.msgpack))
    hub.connections.add(conn)
    log.info("joined", table=hello.table, role=role, client=hello.client)
    return True


async def _dispatch(app: web.Application, sock: Socket, msg: Any) -> None:
    hub_all, conn, hub = app[HUB], sock.conn, sock.hub
    assert conn is not None
    if isinstance(msg, (m.Roll, m.Follow, m.Gm)):
        await hub_all.request(hub, conn, msg)
    elif isinstance(msg, m.Odds):
        await sock.send(codec.encode(_odds(msg), sock.msgpack))
    elif isinstance(msg, m.State):
        await sock.send(codec.encode(m.StateReply(id=msg.id, snapshot=hub.table.snapshot(conn.viewer)), sock.msgpack))
    elif isinstance(msg, m.Verify):
        await sock.send(codec.encode(hub.table.verify(msg, conn.viewer), sock.msgpack))
    elif isinstance(msg, m.Ping):
        await sock.send(codec.encode(m.Pong(id=msg.id), sock.msgpack))
    elif isinstance(msg, m.UserKey):
        if conn.role != "gm":
            raise ActionError("forbidden", "only the GM can get a user's key")
        if not msg.user or len(msg.user) > MAX_USER:
            raise ActionError("invalid_message", f"`user` is a Foundry user id of 1 to {MAX_USER} characters")
        secret = hub_all.ledger.user_secret(hub.table.id)
        key = derive_user_key(secret, msg.user)
        await sock.send(codec.encode(m.UserKeyReply(id=msg.id, user=msg.user, key=key), sock.msgpack))
    elif isinstance(msg, m.Hello):
        await _error(app, sock, None, "already_joined", "this socket already said hello; open a new one for another table")


def _odds(msg: m.Odds) -> m.OddsReply:
    try:
        from sidecar.engine.odds import odds
    except ImportError:
        raise ActionError("unsupported", "odds are not available in this build") from None
    return m.OddsReply(id=msg.id, check=msg.check, odds=odds(msg.check))
