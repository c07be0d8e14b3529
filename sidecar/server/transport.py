"""What a peer's frames are, read from the bytes as they arrive, ahead of aiohttp's own parser.

aiohttp assembles a fragmented message out of sight and hands the application only whole messages and
control frames, so neither when a message began nor how much it holds can be seen from above. A
:class:`FrameWatch` stands between the connection and the parser and reads each frame's header (a few
bytes; the payload is only counted), so that

- the frame timeout runs from the first byte of a message's first fragment, and a ping or pong between
  fragments does not reset it (:attr:`FrameWatch.since`);
- the bytes of messages begun and not finished are counted over every socket of the process
  (:class:`Unfinished`), and a peer whose bytes would take the count over its bound is cut off before the
  parser holds them (1009). A message whose last bytes arrive in the same read as the rest is never held,
  so it is never cut for it, whatever the count (a request is a few hundred bytes, one read);
- every frame the application never sees as a message of its own (a fragment that is not a message's last,
  a ping, a pong, a close) is charged to the peer's budget as it is read (:meth:`Peer.frame_read`), before
  hello too: the parser assembles fragments out of sight, so an empty continuation frame would otherwise
  cost nothing. A peer over its budget is cut before the parser reads the rest of what it sent. A message's
  last frame is charged when the message is handled (:mod:`.dispatch`), where it can be refused politely.

And the state of a socket while it lives (:class:`Socket`): how it is written to without waiting, closed
(saying why, then cut), and how an error is answered on it.

**The seam in aiohttp.** aiohttp offers no public way to see a websocket's bytes before its parser, so
:class:`WatchedResponse` relies on private parts of aiohttp :data:`AIOHTTP_SEAM` (the version pyproject.toml
pins), all in ``web_ws.py`` and ``web_protocol.py``:

- ``WebSocketResponse.prepare`` ends the handshake by calling ``self._post_start(request, protocol, writer)``,
  which makes the response's ``WebSocketReader`` and gives it to the connection's handler
  (``request.protocol``, a ``RequestHandler``) through ``set_parser``;
- ``RequestHandler.set_parser`` keeps the parser as ``_payload_parser`` and feeds it ``_message_tail`` (what the
  peer sent after its upgrade request, in the same reads), then empties it;
- from then on ``RequestHandler.data_received`` hands every read to ``_payload_parser.feed_data(data)``, which
  answers ``(eof, tail)``, and ``connection_lost`` calls ``_payload_parser.feed_eof()``.

The override lets aiohttp do all of that, then puts a :class:`FrameWatch` in ``_payload_parser``'s place (it
answers ``feed_data`` and ``feed_eof`` as the parser does, and passes the bytes on) and scans the tail the
parser was just fed. tests/server/test_transport_seam.py checks each of these points against the aiohttp
installed, and fails naming the one that changed.
"""

from __future__ import annotations

import asyncio
import socket
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from aiohttp import WSCloseCode, WSMsgType, web

from protocol.v1 import codec
from protocol.v1 import messages as m
from protocol.v1.errors import ErrorCode
from sidecar import config

from .appkeys import METRICS, THROTTLED
from .hub import Connection
from .limits import FRAME_FLOOD, charge_frame
from .settings import Settings

AIOHTTP_SEAM = "3.14.5"
"""The aiohttp whose private parts :class:`WatchedResponse` relies on (see the module's docstring); the
version pyproject.toml pins, and the one to read those parts of again before pinning another."""

MAX_HEADER = 14
"""A frame header's longest form: 2 bytes, an 8-byte length, a 4-byte mask."""


class Unfinished:
    """Bytes held for messages that peers have begun and not finished, over every socket of the process."""

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self.held = 0


class Peer(Protocol):
    """What a :class:`FrameWatch` tells of its peer's frames (a :class:`Socket`)."""

    def unfinished_over(self) -> None:
        """Its unfinished bytes would take the process's count over the bound: cut it off."""

    def frame_read(self) -> bool:
        """Charge one frame that is not a message's last; ``False``: the peer is over its budget, cut."""


class FrameWatch:
    """Reads the headers of the frames a peer sends, then hands the bytes to aiohttp's parser unchanged."""

    __slots__ = ("parser", "unfinished", "peer", "since", "held", "cut", "_head", "_left", "_data", "_fin", "_open")

    def __init__(self, parser: Any, unfinished: Unfinished, peer: Peer) -> None:
        self.parser = parser
        self.unfinished = unfinished
        self.peer = peer
        self.since: float | None = None
        """When the oldest frame or message not yet whole began (``None``: nothing is unfinished)."""
        self.held = 0
        """Payload bytes of this socket's unfinished message (its fragments so far and the frame in flight)."""
        self.cut = False
        self._head = b""  # the bytes of a header not yet whole
        self._left = 0  # payload bytes of the current frame still to come
        self._data = False  # the current frame belongs to a message (text, binary or continuation)
        self._fin = True  # ... and is its last
        self._open = False  # a message was begun with a frame that was not its last, and not finished since

    # the parser's interface, as aiohttp's protocol calls it
    def feed_data(self, data: bytes) -> tuple[bool, bytes]:
        if not self.cut:
            self.scan(data)
        if self.cut:  # beyond a bound: the parser never reads these bytes
            return False, b""
        result: tuple[bool, bytes] = self.parser.feed_data(data)
        return result

    def feed_eof(self) -> None:
        self.release()
        self.parser.feed_eof()

    def release(self) -> None:
        """Give the bytes this socket held back to the process's count (its message is whole, or it ends)."""
        self.unfinished.held -= self.held
        self.held = 0

    def scan(self, data: bytes) -> None:
        i, n = 0, len(data)
        while i < n:
            left = self._left
            if left:
                take = left if left <= n - i else n - i
                i += take
                self._left = left - take
                if self._data and not (take == left and self._fin):  # not a message's end, in hand now
                    self.held += take
                    unfinished = self.unfinished
                    unfinished.held += take
                    if unfinished.held > unfinished.bound:
                        self.release()
                        self.cut = True
                        self.peer.unfinished_over()
                        return
                if not self._left:
                    self._done()
                continue
            head = self._head
            if head or n - i < MAX_HEADER:  # a header split across reads, or near the end of this one
                chunk = head + data[i : i + MAX_HEADER]
                at = 0
            else:  # the common case: the whole header is in this read, read in place
                chunk, at = data, i
            if len(chunk) - at < 2:
                self._head = chunk[at:]
                break
            b0, b1 = chunk[at], chunk[at + 1]
            short = b1 & 0x7F
            extra = 2 if short == 126 else 8 if short == 127 else 0
            size = 2 + extra + (4 if b1 & 0x80 else 0)
            if len(chunk) - at < size:
                self._head = chunk[at:]
                break
            i += size - len(head)
            self._head = b""
            length = int.from_bytes(chunk[at + 2 : at + 2 + extra], "big") if extra else short
            opcode = b0 & 0x0F
            self._data = opcode < 0x8
            if self._data:
                self._fin = bool(b0 & 0x80)
                if not self._fin:
                    self._open = True
            if not (self._data and self._fin) and not self.peer.frame_read():
                self.release()
                self.cut = True
                return
            self._left = length
            if not length:
                self._done()
        # Something begun is not whole (a header, a frame, a message): its time runs from this read, the one
        # its first byte came in (a frame whole within the read needs no clock).
        if self.since is None and (self._head or self._left or self._open):
            self.since = time.monotonic()

    def _done(self) -> None:
        """A frame is whole: a message's last frame ends the message; a control frame changes nothing of it."""
        if self._data and self._fin:
            if self.held:
                self.release()
            self._open = False
        if not self._open:
            self.since = None


class WatchedResponse(web.WebSocketResponse):
    """A websocket response whose connection feeds a :class:`FrameWatch` before aiohttp's parser."""

    # Slots for what this class adds: in the instance's dict they would take aiohttp's attributes past the
    # number whose keys instances can share, and every socket would pay for a dict of its own keys.
    __slots__ = ("unfinished", "peer", "watch")

    def __init__(self, *, unfinished: Unfinished, **kw: Any) -> None:
        super().__init__(**kw)
        self.unfinished = unfinished
        self.peer: Peer | None = None
        """Whom the watch tells of what it reads (charges, cuts): the response's :class:`Socket`, set before
        :meth:`prepare` (the socket itself, not a closure: nothing more is held per socket)."""
        self.watch: FrameWatch | None = None

    def _post_start(self, request: web.BaseRequest, protocol: str | None, writer: Any) -> None:
        """aiohttp's own start (the parser made and set), then the watch put around the parser (the seam: see
        the module's docstring)."""
        handler: Any = request.protocol
        early: bytes = handler._message_tail  # what the peer sent after its upgrade request, before the parser
        super()._post_start(request, protocol, writer)
        assert self.peer is not None, "the peer is set before prepare"
        watch = FrameWatch(handler._payload_parser, self.unfinished, self.peer)
        handler._payload_parser = watch
        watch.scan(early)  # the parser has just been given these bytes; counted here, not fed again
        self.watch = watch


@dataclass(eq=False)
class Socket:
    """Per-socket state while it lives."""

    ws: web.WebSocketResponse
    msgpack: bool
    transport: Any = None
    conn: Connection | None = None
    held: Any = None
    """The table it joined (a :class:`~.hub.HeldTable`), once its hello is answered."""
    tokens: float = 0.0
    refreshed: float = field(default_factory=time.monotonic)
    remote: str = ""
    opened: float = field(default_factory=time.monotonic)
    throttled: Any = None
    guest: bool = False
    """An observer's or the table-wide player key's: counted against ``max_guests``."""
    seat: tuple[str, str] | None = None
    """A user-keyed player's (table, user): counted against ``max_per_user``."""
    seated: bool = True
    """Counted in the open sockets (and its address's); a socket evicted before its hello no longer is."""
    closing: bool = False
    """Being closed by the sidecar: what the peer still sends is read and ignored until the socket ends."""
    url_table: str | None = None
    """The table the socket's URL names (``/ws?table=ID``, what a proxy routes by), if it names one."""
    app: web.Application | None = None
    """The application whose budgets the socket's frames are charged to (``None``: charged to none)."""

    def unfinished_over(self) -> None:
        """Cut the peer off (1009): its unfinished bytes would take the process's count over its bound."""
        if self.throttled is not None and isinstance(self.ws, WatchedResponse):
            self.throttled.warning("unfinished_bytes_over", remote=self.remote, held=self.ws.unfinished.held)
        self.close(WSCloseCode.MESSAGE_TOO_BIG, b"too many bytes held for unfinished messages")

    def frame_read(self) -> bool:
        """Charge a frame read that is not a message's last (see :func:`.limits.charge_frame`); over the
        budget, close the socket with 4429 at once and say ``False``. A socket being closed is charged no
        more (its peer's close frame is read, and the close ends as the peer answers it)."""
        app = self.app
        if app is None or self.closing or charge_frame(app, self):
            return True
        app[THROTTLED].warning("frame_flood", remote=self.remote)
        app[METRICS].errors["frame_flood"] += 1
        self.close(FRAME_FLOOD, b"too many frames: continuations, pings and pongs count as requests do", at_once=True)
        return False

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
        if self.held is not None and self.conn is not None:
            self.held.connections.discard(self.conn)
        loop = asyncio.get_running_loop()
        loop.create_task(self.ws.close(code=code, message=reason))
        transport = self.transport
        if transport is not None:
            if at_once:
                loop.call_soon(transport.close)  # after the close frame is written (the task runs first)
            loop.call_later(config.CLOSE_GRACE, transport.abort)

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


def watch_socket(sock: Socket, settings: Settings) -> None:
    """Bound the kernel's send buffer: with the slow-peer check it bounds what an unread peer holds."""
    raw = sock.transport.get_extra_info("socket") if sock.transport is not None else None
    if raw is not None:
        try:
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, settings.send_buffer)
        except OSError:
            pass


async def error(app: web.Application, sock: Socket, rid: Any, code: ErrorCode, message: str) -> None:
    app[METRICS].errors[code] += 1
    if sock.ws.closed:
        return
    await sock.send(
        codec.encode(m.Error(code=code, message=message, id=rid if isinstance(rid, str) else None), sock.msgpack)
    )
