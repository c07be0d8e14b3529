"""A join that never reads its welcome must not hold the table: the welcome is sent while the table's lock
is held (so no action lands between its seq and the first broadcast), and that lock is also what every
batch, ``state`` and ``verify`` now wait for.

A real sidecar in this process; the stalled peer is a raw TCP socket with a small receive buffer that
upgrades, says hello and reads nothing more.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket

from protocol.v1 import challenge as challenge_t
from protocol.v1 import limits
from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck

from ..conftest import Sidecar


def _masked_text(payload: bytes) -> bytes:
    n = len(payload)
    head = bytes((0x81, 0x80 | n)) if n < 126 else bytes((0x81, 0x80 | 126)) + n.to_bytes(2, "big")
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def _stalled_join(sidecar: Sidecar, key: str) -> asyncio.StreamWriter:
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    port = int(sidecar.url.rsplit(":", 1)[1].split("/")[0])
    raw.connect(("127.0.0.1", port))
    raw.setblocking(False)
    reader, writer = await asyncio.open_connection(sock=raw)
    writer.write(
        b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        b"Sec-WebSocket-Protocol: verdict.v1\r\n\r\n"
    )
    assert b"101" in await reader.readuntil(b"\r\n\r\n")
    hello = json.dumps({"type": "hello", "table": sidecar.keys.table, "key": key}).encode()
    writer.write(_masked_text(hello))
    await writer.drain()
    return writer  # and nothing is read from here on


async def test_a_joiner_that_does_not_read_its_welcome_holds_up_nobody(sidecar: Sidecar) -> None:
    gm = await sidecar.client("gm", user="gm-1")
    text = "x" * limits.NOTE_CHARS
    for i in range(limits.COMPLICATIONS):  # a snapshot of ~80 KB: far more than the small buffers hold
        scene = f"Hall {i // limits.COMPLICATIONS_PER_SCENE}"
        await gm.request(m.Gm(id=f"c{i}", op=challenge_t.ComplicationAdd(scene=scene, text=text, hidden=False)))
    p1 = await sidecar.client("player", user="p1")
    stalled = await _stalled_join(sidecar, sidecar.keys.observer)
    await asyncio.sleep(0.5)  # its welcome is being written
    try:
        # A joiner that held the table would hold these until it read: the bound is far from what a loaded
        # machine takes, and far below forever.
        rolled = await gm.request(m.Roll(id="r", check=FacetsCheck(pool=2)), timeout=30)
        snap = await p1.request(m.State(id="s"), timeout=30)
        assert snap.snapshot.seq == rolled.seq
    finally:
        stalled.transport.abort()
        await gm.close()
        await p1.close()
