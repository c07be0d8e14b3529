"""Raw sockets that record every frame they receive, to check what reaches a socket byte for byte."""

from __future__ import annotations

import asyncio
import json

import msgspec
import pytest
import websockets

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck


class Raw:
    def __init__(self, ws, msgpack: bool):
        self.ws, self.msgpack = ws, msgpack
        self.frames: list[bytes] = []
        self.closed: int | None = None

    @classmethod
    async def join(cls, sidecar, key, user=None, since=None, msgpack=False) -> Raw:
        ws = await websockets.connect(
            sidecar.url, subprotocols=["verdict.v1+msgpack" if msgpack else "verdict.v1"], compression=None
        )
        hello = {"type": "hello", "table": sidecar.keys.table, "key": key, "user": user, "since": since}
        await ws.send(msgspec.msgpack.encode(hello) if msgpack else json.dumps(hello))
        self = cls(ws, msgpack)
        self.task = asyncio.create_task(self._read())
        await self.wait(lambda f: f.get("type") in ("welcome", "error"))
        return self

    async def _read(self):
        try:
            async for f in self.ws:
                self.frames.append(f if isinstance(f, bytes) else f.encode())
        except websockets.ConnectionClosed:
            pass
        self.closed = self.ws.close_code

    def decoded(self) -> list[dict]:
        return [msgspec.msgpack.decode(f) if self.msgpack else json.loads(f) for f in self.frames]

    def blob(self) -> bytes:
        return b"\n".join(self.frames)

    async def wait(self, pred, timeout: float = 5.0) -> dict:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            for f in self.decoded():
                if pred(f):
                    return f
            assert asyncio.get_running_loop().time() < deadline, "the frame never arrived"
            await asyncio.sleep(0.005)

    async def close(self):
        await self.ws.close()
        await self.task


async def barrier(gm, raws) -> None:
    """A public roll after everything sent so far: once every socket has it, every earlier frame has arrived."""
    label = f"barrier-{gm.new_id()}"
    await gm.request(m.Roll(id=gm.new_id(), check=FacetsCheck(pool=1), label=label))
    for r in raws:
        await r.wait(lambda f: f.get("label") == label)


@pytest.fixture
def raw():
    return Raw
