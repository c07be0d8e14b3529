"""A socket's frames, one after another: charged, decoded, and handed to ``hello`` or to the table."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import structlog
from aiohttp import WSMsgType, web

from protocol.v1 import codec
from protocol.v1 import messages as m
from protocol.v1.codec import ProtocolError
from protocol.v1.errors import ErrorCode, VerdictError
from sidecar.config import MAX_USER
from sidecar.state import hearing
from sidecar.state.keys import derive_user_key
from sidecar.state.table import ActionError

from .appkeys import HUB, METRICS, ODDS, SETTINGS
from .hello import UNREADABLE, join
from .limits import take_token
from .transport import Socket, error

log = structlog.get_logger("verdict.server")


async def serve(app: web.Application, sock: Socket) -> None:
    ws = sock.ws
    async for frame in ws:
        kind = frame.type
        if sock.closing:
            continue
        if kind == WSMsgType.TEXT or kind == WSMsgType.BINARY:
            if not await _frame(app, sock, frame.data, kind == WSMsgType.TEXT) and not sock.closing:
                break  # closed already (a refused hello); one being closed reads on until it ends, unheard
        elif kind == WSMsgType.PING:  # charged as it was read (see .transport.FrameWatch)
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
    if not take_token(app, sock, settings, 1 + len(data) // settings.max_frame):
        rid = codec.request_id(data, sock.msgpack) if len(data) <= settings.max_frame else None
        await error(
            app,
            sock,
            rid,
            ErrorCode.RATE_LIMITED,
            f"slow down: at most {settings.rate:g} requests per second; retry this request shortly",
        )
        # A refused frame is answered, never cut for; but the next of a socket sending faster than it is
        # served waits its turn behind every other socket's, so a flood of them cannot hold the loop.
        await asyncio.sleep(0)
        return True
    if len(data) > settings.max_frame:
        await error(app, sock, None, ErrorCode.FRAME_TOO_LARGE, f"frames are limited to {settings.max_frame} bytes")
        return True
    if text == sock.msgpack:
        await error(
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
        await error(app, sock, exc.id, exc.code, exc.message)
        return True
    kind = type(msg).__struct_config__.tag
    app[METRICS].requests[kind] += 1
    try:
        if sock.conn is None:
            if not isinstance(msg, m.Hello):
                await error(app, sock, getattr(msg, "id", None), ErrorCode.HELLO_REQUIRED, "send `hello` first")
                return True
            return await join(app, sock, msg)
        await _dispatch(app, sock, msg)
    except VerdictError as exc:  # every refusal of the tree: its code and message, the socket stays up
        await error(app, sock, getattr(msg, "id", None), exc.code, exc.message)
    except Exception:
        log.exception("request_failed", type=kind)
        await error(
            app,
            sock,
            getattr(msg, "id", None),
            ErrorCode.INTERNAL_ERROR,
            "the sidecar failed on this request; it is logged",
        )
    app[METRICS].observe(time.perf_counter() - start)
    return True


async def _dispatch(app: web.Application, sock: Socket, msg: Any) -> None:
    hub, conn, held = app[HUB], sock.conn, sock.held
    assert conn is not None
    if isinstance(msg, (m.Roll, m.Follow, m.Gm)):
        await hub.request(held, conn, msg)
    elif isinstance(msg, m.Odds):
        await sock.send(codec.encode(await odds_off_loop(app, msg), sock.msgpack))
    elif isinstance(msg, (m.State, m.Verify)):
        # Between two batches (the table then holds only what is stored; see Hub._batch), and never a
        # table an append left unread.
        async with held.lock:
            if not await hub.readable(held):
                raise ActionError(ErrorCode.LEDGER_UNAVAILABLE, UNREADABLE)
            if isinstance(msg, m.State):
                reply: Any = m.StateReply(id=msg.id, snapshot=await hearing.snapshot_read(held.table, conn.viewer))
            else:
                reply = await held.table.verify_read(msg, conn.viewer)
        await sock.send(codec.encode(reply, sock.msgpack))
    elif isinstance(msg, m.Ping):
        await sock.send(codec.encode(m.Pong(id=msg.id), sock.msgpack))
    elif isinstance(msg, m.UserKey):
        if conn.role != "gm":
            raise ActionError(ErrorCode.FORBIDDEN, "only the GM can get a user's key")
        if not msg.user or len(msg.user) > MAX_USER:
            raise ActionError(ErrorCode.INVALID_MESSAGE, f"`user` is a Foundry user id of 1 to {MAX_USER} characters")
        secret = await hub.ledger.find_user_secret(held.table.id)
        if secret is None:
            raise RuntimeError(f"table {held.table.id!r} has no user secret")
        key = derive_user_key(secret, msg.user)
        await sock.send(codec.encode(m.UserKeyReply(id=msg.id, user=msg.user, key=key), sock.msgpack))
    elif isinstance(msg, m.Hello):
        await error(
            app,
            sock,
            None,
            ErrorCode.ALREADY_JOINED,
            "this socket already said hello; open a new one for another table",
        )


async def odds_off_loop(app: web.Application, msg: m.Odds) -> m.OddsReply:
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
