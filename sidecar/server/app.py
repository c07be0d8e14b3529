"""The aiohttp application: ``/ws``, ``/healthz``, ``/metrics`` and ``/module/``; this module assembles them.

One websocket per client, subprotocol ``verdict.v1`` (JSON) or ``verdict.v1+msgpack``. Its parts:

- :mod:`.transport`: what a peer's bytes and frames are (the frame headers read ahead of aiohttp's parser,
  unfinished messages and their bytes), the per-socket state, writes and closes;
- :mod:`.limits`: what protects the sidecar (token buckets that charge every frame, fragments and control
  frames too, 4429; the seats: a few per user, the last few kept for GM keys, apart for observers, the
  table-wide player key and sockets that have not said hello, so that nobody locks out the GM; the hello and
  unfinished-message timeouts, 4408);
- :mod:`.hello`: a socket's ``hello`` (a wrong key is answered ``unauthorized`` and closed with 4401);
- :mod:`.dispatch`: every later frame, charged, decoded and handed to the table (a bad one gets an
  ``error`` and the socket stays up), odds computed off the event loop;
- :mod:`.settings` and :mod:`.appkeys`: the settings, and what the application holds.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import hmac
from concurrent.futures import ThreadPoolExecutor
from ipaddress import IPv4Network, IPv6Network, ip_address, ip_network

import structlog
from aiohttp import WSCloseCode, web

from protocol.v1.base import SUBPROTOCOL, SUBPROTOCOL_MSGPACK
from protocol.v1.errors import ErrorCode
from sidecar import __version__, config
from sidecar.state.ledger import Ledger, RequestWindow, open_ledger

from . import module as vtt_module
from .appkeys import (
    HUB,
    LIMITS,
    LIVE,
    METRICS,
    ODDS,
    PEERS,
    REFUSALS,
    SETTINGS,
    SOCKETS,
    THROTTLED,
    UNFINISHED,
    USERS,
    WAITING,
    WATCHDOG,
)
from .bus import Bus
from .dispatch import serve
from .hello import shown
from .hub import Hub
from .limits import Limiter, PerSource, Throttled, evict_waiting, free_seat, unseat, watchdog
from .metrics import Metrics
from .settings import Settings, is_loopback
from .transport import Socket, Unfinished, WatchedResponse, watch_socket

log = structlog.get_logger("verdict.server")

__all__ = [
    "HUB",
    "LIVE",
    "METRICS",
    "SETTINGS",
    "SOCKETS",
    "Settings",
    "client_address",
    "create_app",
    "tune_gc",
]


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


def ledger_for(settings: Settings) -> Ledger:
    """The ledger ``settings`` serve from: ``ledger_url`` (SQLite in the data folder when it is None), with the
    settings' request window. ValueError for a URL that names no ledger, ImportError for a PostgreSQL one
    without the optional extra, :class:`~sidecar.state.ledger.LedgerUnavailable` for a database that cannot
    be reached."""
    ledger = open_ledger(settings.ledger_url, settings.data)
    ledger.window = RequestWindow(settings.request_window, settings.request_window_age)
    return ledger


def create_app(settings: Settings, ledger: Ledger | None = None) -> web.Application:
    """The application serving from ``ledger``, else from the one the settings name (:func:`ledger_for`)."""
    _networks(settings.trusted_proxies)  # a proxy that is no address fails here, not on every request
    app = web.Application()
    if ledger is None:
        ledger = ledger_for(settings)
    else:  # the request window is the settings' wherever the app is made (``verdict serve``, a program, a test)
        ledger.window = RequestWindow(settings.request_window, settings.request_window_age)
    metrics = Metrics()
    app[SETTINGS] = settings
    app[METRICS] = metrics
    app[HUB] = hub = Hub(ledger, metrics)
    hub.housekeeping_every, hub.snapshot_every = settings.housekeeping_every, settings.snapshot_every
    hub.idle_after = settings.idle_unload_after
    Bus(app[HUB], ledger).attach(app)  # what others append to the same tables, if anybody does
    app[SOCKETS] = set()
    app[LIMITS] = {
        "key": Limiter(settings.key_rate or 2 * settings.rate, 2 * settings.bucket()),
        "address": Limiter(settings.address_rate or 8 * settings.rate, 8 * settings.bucket()),
    }
    app[PEERS] = {}
    app[USERS] = {}
    app[WAITING] = {}
    app[UNFINISHED] = unfinished = Unfinished(settings.max_unfinished_bytes)
    metrics.unfinished_bytes = lambda: unfinished.held
    app[THROTTLED] = Throttled()
    app[REFUSALS] = PerSource()
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
    not tracked at all); with the default, the collector would run several times a roll. Only garbage in
    reference cycles waits a little longer (see BENCHMARKS.md for what it costs and saves)."""
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(config.GC_YOUNG, older, oldest)


async def _start_watchdog(app: web.Application) -> None:
    app[LIVE] = set()
    app[WATCHDOG] = asyncio.get_running_loop().create_task(watchdog(app))


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
    if is_loopback(remote):
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


def misnamed_table(request: web.Request) -> str | None:
    """Why the URL's table is not one the proxy can route by (an empty ``table``, or ``Table``/``TABLE``:
    the proxy hashes the request URI as it is, and the hello's check reads ``table`` alone), or ``None``.
    Routing is for cost (a table's sockets on one sidecar, which alone then reads its events), never for
    correctness; a URL that names no table at all is routed by ``/ws`` alone and is let in."""
    for name in request.query:
        if name.lower() == "table" and name != "table":
            return f"the URL names the table as `{name}`; name it `table`, in lowercase: /ws?table=ID"
    if "table" in request.query and not all(request.query.getall("table")):
        return "the URL's `table` is empty: name the table the hello will, /ws?table=ID (or leave `table` out)"
    return None


async def websocket(request: web.Request) -> web.StreamResponse:
    settings = request.app[SETTINGS]
    origin = request.headers.get("Origin")
    if origin is not None and origin.rstrip("/") not in settings.origins():
        remote = client_address(request)
        if request.app[REFUSALS].due("origin_refused", remote):
            request.app[REFUSALS].warning(
                "origin_refused",
                remote,
                origin=shown(origin),
                to_do=f"if this is your Foundry, start the sidecar with --allow-origin {origin} (with compose.yaml, "
                f"set FOUNDRY_ORIGIN={origin}); a sidecar on loopback allows Foundry on localhost:30000 by itself",
            )
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
    misnamed = misnamed_table(request)
    if misnamed is not None:
        return web.json_response({"type": "error", "code": ErrorCode.INVALID_MESSAGE, "message": misnamed}, status=400)
    app = request.app
    remote = client_address(request)
    peers = app[PEERS]
    # Who a socket is is known only at its hello, so the caps by who it is (per user, the seats kept for GM
    # keys, guests) hold there (:func:`.limits.take_seat`). Here a full address or sidecar makes room by
    # closing its oldest socket that has not said hello yet; a full address that has none still lets a
    # socket in, on probation: its hello is refused unless it is the GM or a user-keyed player within its cap.
    if peers.get(remote, 0) >= settings.max_per_address:
        evict_waiting(app, remote)
    if len(app[SOCKETS]) >= settings.max_connections and not evict_waiting(app, None):
        app[THROTTLED].warning("connection_refused", remote=remote, open=len(app[SOCKETS]))
        app[METRICS].errors["too_many_connections"] += 1
        return web.json_response(
            {
                "type": "error",
                "code": ErrorCode.TOO_MANY_CONNECTIONS,
                "message": f"the sidecar has as many connections as it takes ({settings.max_connections}, "
                "--max-connections), each of someone who said hello; try again later",
            },
            status=503,
            headers={"Retry-After": str(config.RETRY_AFTER)},
        )
    ws = WatchedResponse(
        unfinished=app[UNFINISHED],
        protocols=(SUBPROTOCOL, SUBPROTOCOL_MSGPACK),
        compress=False,  # permessage-deflate costs tens of KiB per connection and time on small frames
        heartbeat=config.HEARTBEAT,
        autoping=False,  # pings and pongs come to dispatch.serve, to be charged as every frame is
        decode_text=False,  # text frames as their bytes: msgspec reads UTF-8, and text that is not gets `bad_frame`
        max_msg_size=settings.max_frame * config.MESSAGE_FRAMES,  # larger frames are refused politely, in dispatch
    )
    peers[remote] = peers.get(remote, 0) + 1
    app[SOCKETS].add(ws)
    sock = Socket(
        ws=ws,
        msgpack=False,
        transport=request.transport,
        tokens=settings.bucket(),
        remote=remote,
        throttled=app[THROTTLED],
        url_table=",".join(request.query.getall("table", [])) or None,  # as the proxy joins repeated values
        app=app,
    )
    ws.peer = sock
    try:
        await ws.prepare(request)
        sock.msgpack = ws.ws_protocol == SUBPROTOCOL_MSGPACK
        watch_socket(sock, settings)
        app[LIVE].add(sock)
        if sock.conn is None and sock.seated:
            app[WAITING][sock] = None
        app[METRICS].connections += 1
        try:
            await serve(app, sock)
        finally:
            app[METRICS].connections -= 1
    finally:
        app[LIVE].discard(sock)
        app[WAITING].pop(sock, None)
        if ws.watch is not None:
            ws.watch.release()
        if sock.seated:
            unseat(app, sock)
        free_seat(app, sock)
        if sock.conn is not None and sock.held is not None:
            sock.held.connections.discard(sock.conn)
    return ws
