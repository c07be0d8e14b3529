"""The per-socket rate limit: a frame over it is refused with `rate_limited`, naming the request, and the socket stays up and refills."""

from __future__ import annotations

import asyncio

from aiohttp.test_utils import TestServer

from protocol.v1 import messages as m
from sidecar.client import Client
from sidecar.server.app import Settings, create_app
from sidecar.state.ledger import SqliteLedger

from ..conftest import free_port


async def test_rate_limited_with_a_clear_error(tmp_path):
    ledger = SqliteLedger(tmp_path / "v.sqlite3")
    keys = ledger.create_table("t")
    server = TestServer(
        create_app(Settings(data=tmp_path, rate=5, burst=5), ledger), host="127.0.0.1", port=free_port()
    )
    await server.start_server()
    c = await Client.connect(f"ws://127.0.0.1:{server.port}/ws", keys.table, keys.player)
    for i in range(12):
        await c.send(m.Ping(id=f"p{i}"))
    got = [await c.next() for _ in range(12)]
    codes = [getattr(x, "code", None) for x in got]
    assert "rate_limited" in codes and codes.count(None) >= 4
    limited = [x for x in got if getattr(x, "code", None) == "rate_limited"]
    assert all(x.id and x.id.startswith("p") for x in limited)  # the refusal names the request to retry
    await asyncio.sleep(1.1)
    assert isinstance(await c.request(m.Ping(id="later")), m.Pong)  # still connected, and it refills
    await c.close()
    await server.close()
