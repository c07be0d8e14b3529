"""A socket's ``hello``: the key first, then the seat, then the table and the welcome."""

from __future__ import annotations

import hashlib
import hmac

import structlog
from aiohttp import WSCloseCode, web

from protocol.v1 import codec
from protocol.v1 import messages as m
from protocol.v1.errors import ErrorCode
from sidecar import __version__
from sidecar.state.keys import Refused, authenticate
from sidecar.state.ledger import LedgerUnavailable

from .appkeys import HUB, REFUSALS, THROTTLED, WAITING
from .hub import Connection, ws_frame
from .limits import take_seat, unseat
from .transport import Socket, error

log = structlog.get_logger("verdict.server")


async def join(app: web.Application, sock: Socket, hello: m.Hello) -> bool:
    """Seat the socket at its table and send the welcome; ``False`` when the hello is refused (the socket is
    then closed, or being closed)."""
    hub = app[HUB]
    app[WAITING].pop(sock, None)  # it said hello: no longer a seat to evict
    if hello.protocol != 1:
        await error(
            app, sock, None, ErrorCode.UNSUPPORTED_PROTOCOL, f"this sidecar speaks protocol 1, not {hello.protocol}"
        )
        refuse(app, sock, 4400, b"unsupported protocol")
        return False
    if sock.url_table is not None and sock.url_table != hello.table:
        # The proxy routed this socket by the URL's table: joining another would put it on that table's
        # sidecar by chance only. Refused; the socket stays up for a hello that matches.
        await error(
            app,
            sock,
            None,
            ErrorCode.INVALID_MESSAGE,
            f"the hello names table {hello.table!r} but the socket's URL names {sock.url_table!r}; "
            f"connect to /ws?table={hello.table}",
        )
        return True
    try:
        # The key first: a peer without one never makes the sidecar read a table.
        who = await authenticate(hub.ledger, hello.table, hello.key, hello.user)
        refused = take_seat(app, sock, hello.table, who.role, who.user)
        if refused is not None:
            message, reason = refused
            app[THROTTLED].warning("hello_refused_seat", remote=sock.remote, table=hello.table, why=message)
            await error(app, sock, None, ErrorCode.TOO_MANY_CONNECTIONS, message)
            refuse(app, sock, WSCloseCode.TRY_AGAIN_LATER, reason)
            return False
        held = await hub.open_table(hello.table)
        if held is None:
            raise Refused(ErrorCode.UNAUTHORIZED, "unknown table or wrong key for it")
    except Refused as exc:
        await error(app, sock, None, exc.code, exc.message)
        await tell_refused(app, sock, hello, exc.code)
        refuse(app, sock, 4401, b"unauthorized")
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
        keys=who.keys,
        close=sock.close,
    )
    async with held.lock:  # no action lands between the welcome's seq and the first broadcast
        await hub.refresh(held)
        if not await hub.readable(held):  # an append failed and the table could not be read back
            await error(app, sock, None, ErrorCode.LEDGER_UNAVAILABLE, UNREADABLE)
            refuse(app, sock, WSCloseCode.TRY_AGAIN_LATER, b"the ledger cannot be read")
            return False
        try:
            welcome = await hub.welcome(held, conn, hello.since, f"verdict/{__version__}")
        except LedgerUnavailable as exc:  # the history it needs cannot be read now
            await error(app, sock, None, exc.code, exc.message)
            refuse(app, sock, WSCloseCode.TRY_AGAIN_LATER, b"the ledger cannot be read")
            return False
        # Written, not awaited: a joiner that does not read holds up nobody (its backlog then drops it).
        sock.write(ws_frame(codec.encode(welcome, sock.msgpack), sock.msgpack))
        sock.conn, sock.held = conn, held
        held.connections.add(conn)
    log.info("joined", table=hello.table, role=role, client=hello.client)
    return True


UNREADABLE = "the ledger cannot be read right now; retry shortly"


def refuse(app: web.Application, sock: Socket, code: int, reason: bytes) -> None:
    """Close a socket whose hello is refused. Its seat is given back now, and it is cut once its peer
    answers the close or :data:`~sidecar.config.CLOSE_GRACE` passes: a peer that never answers holds no seat
    meanwhile, so refused hellos cannot fill the seats a GM's socket would take."""
    if sock.seated:
        unseat(app, sock)
    sock.close(code, reason)


async def tell_refused(app: web.Application, sock: Socket, hello: m.Hello, code: ErrorCode) -> None:
    """Log a refused hello for whoever runs the sidecar: what was wrong and what to do, once per source per
    minute (:class:`.limits.PerSource`). The peer was told only "unknown table or wrong key"; the log tells
    the two apart, reading the table's row only when the line is written."""
    refusals = app[REFUSALS]
    if not refusals.due("hello_refused", sock.remote):
        return
    table = shown(hello.table)
    if code == ErrorCode.USER_KEY_REQUIRED:
        why = f"the table-wide player key of table {table} names user {shown(hello.user or '')}"
        to_do = (
            "a player acting as a user connects with that user's own key: the GM gets it with `verdict table user-key`"
        )
    else:
        try:
            known = await app[HUB].ledger.find_table(hello.table) is not None
        except LedgerUnavailable:
            known = None
        if known is False:
            why = f"unknown table {table}"
            to_do = "check the Table id setting in Foundry's Verdict settings; `verdict table list` shows the tables"
        elif hello.user is not None:
            why = f"wrong key for table {table} as user {shown(hello.user)}"
            to_do = (
                "a user key is made for one user and table: the GM gets it again with `verdict table user-key` "
                "(keys change with `verdict table rotate-keys`)"
            )
        else:
            why = f"wrong key for table {table}" if known else f"unknown table {table} or wrong key for it"
            to_do = (
                "set the GM key or Player key in Foundry's Verdict settings to the one this table was given "
                "(shown when it was made; new ones after `verdict table rotate-keys`)"
            )
    refusals.warning("hello_refused", sock.remote, why=why, to_do=to_do)


def shown(text: str, at_most: int = 64) -> str:
    """A peer's text as a log line quotes it: quoted, escaped, and cut to ``at_most`` characters."""
    return repr(text if len(text) <= at_most else text[:at_most] + "…")


def gm_requester(gm_key: str) -> str:
    """The requester a GM connection whose hello names no user acts as: one per GM key, the same on every
    socket and after a restart, so its request ids keep their meaning (a retry is answered, never rolled
    again) and its `self` rolls come back to it. Derived from the key, which only the GM holds, so nobody can
    guess it and have a user key made for it; it changes when the keys are rotated."""
    mac = hmac.new(gm_key.encode(), b"verdict-gm-requester", hashlib.sha256).hexdigest()
    return f"gm-{mac[:16]}"
