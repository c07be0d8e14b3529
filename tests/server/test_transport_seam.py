"""The private parts of aiohttp that :class:`sidecar.server.transport.WatchedResponse` relies on: each is
checked against the aiohttp installed, and a change fails here naming what changed, before any socket meets
it; then the seam is driven as a peer meets it (bytes sent with the upgrade request, a connection cut)."""

from __future__ import annotations

import asyncio
import base64
import inspect
import os
import re
import tomllib
from collections.abc import Callable
from pathlib import Path

import aiohttp
from aiohttp import web, web_protocol

from protocol.v1.base import SUBPROTOCOL
from sidecar.server.appkeys import SOCKETS, UNFINISHED
from sidecar.server.transport import AIOHTTP_SEAM, WatchedResponse

from ..conftest import Sidecar

ROOT = Path(__file__).resolve().parents[2]


def _source(fn: Callable[..., object]) -> str:
    """A function's source with its whitespace made single spaces (a reformatting is no change)."""
    return re.sub(r"\s+", " ", inspect.getsource(fn))


def _changed(what: str) -> str:
    return (
        f"aiohttp {aiohttp.__version__}: {what}. sidecar/server/transport.py (WatchedResponse) relies on it, as read"
        f" in aiohttp {AIOHTTP_SEAM}: read the new aiohttp's web_ws.py and web_protocol.py and adapt the watch"
    )


def test_the_aiohttp_the_seam_was_read_in_is_the_one_pinned() -> None:
    pinned = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert f"aiohttp=={AIOHTTP_SEAM}" in pinned, (
        f"pyproject.toml pins another aiohttp than {AIOHTTP_SEAM}, the one transport.py's seam was read in"
    )


def test_prepare_hands_the_handler_its_parser_through_post_start() -> None:
    post_start = getattr(web.WebSocketResponse, "_post_start", None)
    assert post_start is not None, _changed("WebSocketResponse has no _post_start any more")
    assert list(inspect.signature(post_start).parameters) == ["self", "request", "protocol", "writer"], _changed(
        f"WebSocketResponse._post_start takes {list(inspect.signature(post_start).parameters)}"
    )
    starts = _source(web.WebSocketResponse._pre_start) + _source(web.WebSocketResponse.prepare)
    assert "self._post_start(request, protocol, writer)" in starts, _changed(
        "prepare no longer calls self._post_start(request, protocol, writer)"
    )
    assert "request.protocol.set_parser(self._parser" in _source(post_start), _changed(
        "_post_start no longer gives the handler its parser through request.protocol.set_parser"
    )


def test_the_handler_keeps_the_parser_and_the_bytes_after_the_upgrade_where_the_watch_takes_them() -> None:
    handler = web_protocol.RequestHandler
    slots = {s for cls in handler.__mro__ for s in getattr(cls, "__slots__", ())}
    for name in ("_payload_parser", "_message_tail"):
        assert name in slots, _changed(f"RequestHandler keeps no {name}")
    set_parser = _source(handler.set_parser)
    for step in (
        "self._payload_parser = parser",
        "self._payload_parser.feed_data(self._message_tail)",
        'self._message_tail = b""',
    ):
        assert step in set_parser, _changed(f"RequestHandler.set_parser no longer does `{step}`")


def test_every_read_and_the_end_go_to_whatever_parser_the_handler_holds() -> None:
    handler = web_protocol.RequestHandler
    assert "eof, tail = self._payload_parser.feed_data(data)" in _source(handler.data_received), _changed(
        "RequestHandler.data_received no longer hands a read to self._payload_parser.feed_data, answered (eof, tail)"
    )
    assert "self._payload_parser.feed_eof()" in _source(handler.connection_lost), _changed(
        "RequestHandler.connection_lost no longer calls self._payload_parser.feed_eof()"
    )


def _frame(payload: bytes, fin: bool, opcode: int = 0x1) -> bytes:
    """A masked frame (text, or a continuation: 0), as a client sends it (a zero mask leaves the payload as
    it is)."""
    assert len(payload) < 126
    return bytes([(0x80 if fin else 0) | opcode, 0x80 | len(payload)]) + b"\0\0\0\0" + payload


async def test_bytes_sent_with_the_upgrade_are_watched_and_a_cut_connection_gives_them_back(sidecar: Sidecar) -> None:
    assert sidecar.server is not None
    app = sidecar.server.app
    port = sidecar.server.port
    key = base64.b64encode(os.urandom(16)).decode()
    upgrade = (
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: {SUBPROTOCOL}\r\n\r\n"
    ).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(upgrade + _frame(b"x" * 100, fin=False))  # one write: the fragment is the upgrade's tail
    await writer.drain()
    assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 101")
    for _ in range(200):
        if app[SOCKETS] and app[UNFINISHED].held:
            break
        await asyncio.sleep(0.01)
    (response,) = app[SOCKETS]
    assert isinstance(response, WatchedResponse) and response.watch is not None
    assert response.watch.held == 100 == app[UNFINISHED].held, "the upgrade's tail was not scanned by the watch"
    writer.write(_frame(b"y" * 10, fin=False, opcode=0))  # a later read (a continuation) reaches the watch too
    await writer.drain()
    for _ in range(200):
        if response.watch.held == 110:
            break
        await asyncio.sleep(0.01)
    assert response.watch.held == 110, "a read after the upgrade did not reach the watch"
    writer.close()
    for _ in range(500):
        if not app[UNFINISHED].held:
            break
        await asyncio.sleep(0.01)
    assert app[UNFINISHED].held == 0, "the connection's end (feed_eof) did not reach the watch"
