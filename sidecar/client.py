"""A small websockets client for the Verdict protocol, for Python programs that talk to a running sidecar:
the tests and some benchmarks use it (the CLI does not: it rolls and reads the ledger in its own process).
It needs the ``client`` extra (``pip install "verdict-vtt[client]"``: websockets), which the sidecar itself
never imports.

    async with Client.connect("ws://127.0.0.1:8765/ws", table, key) as c:
        rolled = await c.request(m.Roll(id=c.new_id(), check=FacetsCheck(pool=3)))

Replies are matched to requests by ``id``; broadcasts and events land in :attr:`Client.inbox`.

The socket's URL names the table (``/ws?table=ID``): a proxy in front of several sidecars hashes on it,
so every socket of a table reaches the same sidecar (see docs/architecture/several-sidecars.md).
"""

from __future__ import annotations

import asyncio
import itertools
import uuid
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import websockets
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Origin, Subprotocol

from protocol.v1 import codec
from protocol.v1 import messages as m
from protocol.v1.base import SUBPROTOCOL, SUBPROTOCOL_MSGPACK
from protocol.v1.errors import VerdictError


class RequestFailed(VerdictError):
    """The sidecar answered a request with an ``error`` (kept as ``error``)."""

    def __init__(self, error: m.Error) -> None:
        super().__init__(error.code, error.message)
        self.error = error

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


def table_url(url: str, table: str) -> str:
    """``url`` with the table named in its query (``?table=ID``), as the sidecar and its proxy read it.

    A URL that already names that table is returned as it is; one that names another is an error (the
    proxy would route the socket by the other table, and the sidecar refuses the mismatched hello)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    named = [v for k, v in query if k == "table"]
    if named:
        if named != [table]:
            raise ValueError(f"the URL names table {','.join(named)!r}, not {table!r}")
        return url
    return urlunsplit(parts._replace(query=urlencode([*query, ("table", table)])))


class Client:
    def __init__(self, ws: ClientConnection, msgpack: bool) -> None:
        self.ws = ws
        self.msgpack = msgpack
        self.welcome: m.Welcome | None = None
        self.inbox: asyncio.Queue[Any] = asyncio.Queue()
        self.seq = 0
        self._waiting: dict[str, asyncio.Future[Any]] = {}
        self._ids = itertools.count(1)
        self._prefix = uuid.uuid4().hex[:8]
        self._reader: asyncio.Task[None] | None = None

    @classmethod
    async def connect(
        cls,
        url: str,
        table: str,
        key: str,
        *,
        user: str | None = None,
        since: int | None = None,
        msgpack: bool = False,
        origin: str | None = None,
        client: str = "verdict-python",
    ) -> Client:
        ws = await connect(
            table_url(url, table),
            subprotocols=[Subprotocol(SUBPROTOCOL_MSGPACK if msgpack else SUBPROTOCOL)],
            compression=None,
            origin=Origin(origin) if origin is not None else None,
            max_size=2**22,
        )
        self = cls(ws, msgpack)
        await ws.send(
            codec.encode(m.Hello(table=table, key=key, client=client, since=since, user=user), msgpack)
            if msgpack
            else codec.encode(m.Hello(table=table, key=key, client=client, since=since, user=user)).decode()
        )
        first = codec.decode_server(await ws.recv(), msgpack)
        if isinstance(first, m.Error):
            await ws.close()
            raise RequestFailed(first)
        self.welcome = first
        self.seq = first.seq
        self._reader = asyncio.create_task(self._read())
        return self

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def new_id(self) -> str:
        return f"{self._prefix}-{next(self._ids)}"

    async def send(self, msg: Any) -> None:
        data = codec.encode(msg, self.msgpack)
        await self.ws.send(data if self.msgpack else data.decode())

    async def send_raw(self, data: str | bytes) -> None:
        await self.ws.send(data)

    async def request(self, msg: Any, timeout: float = 10.0) -> Any:
        """Send a request and wait for the reply with its ``id``; an ``error`` raises :class:`RequestFailed`."""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[msg.id] = fut
        try:
            await self.send(msg)
            reply = await asyncio.wait_for(fut, timeout)
        finally:
            self._waiting.pop(msg.id, None)
        if isinstance(reply, m.Error):
            raise RequestFailed(reply)
        return reply

    async def next(self, timeout: float = 5.0) -> Any:
        """The next message that was not a reply to one of this client's requests."""
        return await asyncio.wait_for(self.inbox.get(), timeout)

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                msg = codec.decode_server(frame if isinstance(frame, bytes) else frame.encode(), self.msgpack)
                self._track(msg)
                rid = getattr(msg, "id", None)
                fut = self._waiting.get(rid) if rid else None
                if fut is not None and not fut.done():
                    fut.set_result(msg)
                else:
                    self.inbox.put_nowait(msg)
        except websockets.ConnectionClosed:
            pass
        finally:
            for fut in self._waiting.values():
                if not fut.done():
                    fut.set_exception(ConnectionError("connection closed"))
            self.inbox.put_nowait(None)

    def _track(self, msg: Any) -> None:
        for s in [getattr(msg, "seq", 0) or 0, *(e.seq for e in getattr(msg, "events", []) or [])]:
            self.seq = max(self.seq, s)

    async def close(self) -> None:
        await self.ws.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)
