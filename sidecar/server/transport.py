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
  so it is never cut for it, whatever the count (a request is a few hundred bytes, one read).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from aiohttp import web

MAX_HEADER = 14
"""A frame header's longest form: 2 bytes, an 8-byte length, a 4-byte mask."""


class Unfinished:
    """Bytes held for messages that peers have begun and not finished, over every socket of the process."""

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self.held = 0


class FrameWatch:
    """Reads the headers of the frames a peer sends, then hands the bytes to aiohttp's parser unchanged."""

    __slots__ = ("parser", "unfinished", "on_over", "since", "held", "cut", "_head", "_left", "_data", "_fin", "_open")

    def __init__(self, parser: Any, unfinished: Unfinished, on_over: Callable[[], None]) -> None:
        self.parser = parser
        self.unfinished = unfinished
        self.on_over = on_over
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
        if self.cut:  # beyond the bound: the parser never holds these bytes
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
                        self.on_over()
                        return
                if not self._left:
                    self._done()
                continue
            head = self._head
            if not head and self.since is None:
                self.since = time.monotonic()
            chunk = head + data[i : i + MAX_HEADER]
            if len(chunk) < 2:
                self._head = chunk
                return
            b0, b1 = chunk[0], chunk[1]
            short = b1 & 0x7F
            extra = 2 if short == 126 else 8 if short == 127 else 0
            size = 2 + extra + (4 if b1 & 0x80 else 0)
            if len(chunk) < size:
                self._head = chunk
                return
            i += size - len(head)
            self._head = b""
            length = int.from_bytes(chunk[2 : 2 + extra], "big") if extra else short
            opcode = b0 & 0x0F
            self._data = opcode < 0x8
            if self._data:
                self._fin = bool(b0 & 0x80)
                if not self._fin:
                    self._open = True
            self._left = length
            if not length:
                self._done()

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

    def __init__(self, *, unfinished: Unfinished, on_over: Callable[[], None], **kw: Any) -> None:
        super().__init__(**kw)
        self.unfinished, self.on_over = unfinished, on_over
        self.watch: FrameWatch | None = None

    def _post_start(self, request: web.BaseRequest, protocol: str | None, writer: Any) -> None:
        handler: Any = request.protocol
        early: bytes = handler._message_tail  # what the peer sent after its upgrade request, before the parser
        super()._post_start(request, protocol, writer)
        watch = FrameWatch(handler._payload_parser, self.unfinished, self.on_over)
        handler._payload_parser = watch
        watch.scan(early)  # the parser has just been given these bytes; counted here, not fed again
        self.watch = watch
