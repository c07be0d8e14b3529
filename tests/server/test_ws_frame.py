"""The fan-out's pre-framed websocket messages are byte for byte what aiohttp's writer sends."""

from __future__ import annotations

import asyncio

import pytest
from aiohttp import WSMsgType
from aiohttp._websocket.writer import WebSocketWriter

from sidecar.server.hub import ws_frame


class _Transport:
    def __init__(self) -> None:
        self.out = bytearray()

    def write(self, data: bytes) -> None:
        self.out += data

    def is_closing(self) -> bool:
        return False


class _Protocol:
    _paused = False


@pytest.mark.parametrize("size", [0, 1, 125, 126, 480, 65535, 65536, 70000])
@pytest.mark.parametrize("binary", [False, True])
def test_ws_frame_matches_aiohttp(size: int, binary: bool) -> None:
    payload = bytes((i * 7) % 251 for i in range(size))
    transport = _Transport()
    writer = WebSocketWriter(_Protocol(), transport, use_mask=False)  # type: ignore[arg-type]
    asyncio.run(writer.send_frame(payload, WSMsgType.BINARY if binary else WSMsgType.TEXT))
    assert ws_frame(payload, binary) == bytes(transport.out)


async def test_msgpack_reply_is_the_same_first_and_replayed(sidecar) -> None:
    """The first reply to a MessagePack client is encoded from the message, a replay from the stored JSON:
    the client cannot tell them apart."""
    from protocol.v1 import messages as m
    from protocol.v1.facets import FacetsCheck

    c = await sidecar.client("gm", msgpack=True)
    first = await c.request(m.Roll(id="mp-again", check=FacetsCheck(pool=3, dice=[6, 2, 5]), label="twice"))
    again = await c.request(m.Roll(id="mp-again", check=FacetsCheck(pool=3, dice=[6, 2, 5]), label="twice"))
    assert first == again and first.seq == again.seq
    await c.close()
