"""Several sidecars over one PostgreSQL ledger, each a real server on its own port, for the tests of the bus,
routing and the tables' notification channels."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestServer

from sidecar.client import Client
from sidecar.server import bus as bus_module
from sidecar.server.app import HUB, Settings, create_app
from sidecar.state.keys import derive_user_key
from sidecar.state.ledger import TableKeys, open_ledger

from ..conftest import free_port


@dataclass
class Sidecars:
    servers: list[TestServer]
    ledgers: list[Any]
    keys: TableKeys
    """A table made for the test (others may be made on ``ledgers[0]``)."""

    def url(self, i: int) -> str:
        return f"ws://127.0.0.1:{self.servers[i].port}/ws"

    def bus(self, i: int) -> bus_module.Bus:
        return self.servers[i].app[HUB].bus

    def hub(self, i: int) -> Any:
        return self.servers[i].app[HUB]

    async def player(self, i: int, table: str, user: str, **kw: Any) -> Client:
        """A player at ``table`` on sidecar ``i``, bound to ``user`` by that user's key."""
        key = derive_user_key(self.ledgers[0].user_secret(table), user)
        return await Client.connect(self.url(i), table, key, user=user, **kw)

    async def client(self, i: int, role: str, user: str, **kw: Any) -> Client:
        """At the test's table: a GM (with its own user id), a player bound to ``user``, or an observer."""
        if role == "player":
            return await self.player(i, self.keys.table, user, **kw)
        return await Client.connect(
            self.url(i), self.keys.table, getattr(self.keys, role), user=user if role == "gm" else None, **kw
        )

    async def close(self) -> None:
        for s in self.servers:
            await s.close()


async def start_sidecars(pg_url: str, n: int = 2, gate: dict[int, asyncio.Event] | None = None) -> Sidecars:
    """``n`` sidecars over the ledger at ``pg_url``, each listening (but those whose listening connection waits
    for its ``gate``) before this returns."""
    ledgers = [open_ledger(pg_url, Path(".")) for _ in range(n)]
    keys = ledgers[0].create_table("several")
    servers = []
    for i, ledger in enumerate(ledgers):
        if gate and i in gate:  # this sidecar's listening connection waits for the gate
            ev, connect = gate[i], ledger._listener

            async def gated(ev: asyncio.Event = ev, connect: Any = connect) -> Any:
                await ev.wait()
                return await connect()

            ledger._listener = gated
        server = TestServer(create_app(Settings(rate=1e6, burst=1e6), ledger), host="127.0.0.1", port=free_port())
        await server.start_server()
        servers.append(server)
    sc = Sidecars(servers, ledgers, keys)
    for i in range(n):
        if not (gate and i in gate):
            await asyncio.wait_for(sc.bus(i).listening.wait(), 10)
    return sc
