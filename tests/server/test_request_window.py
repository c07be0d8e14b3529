"""The idempotency window: a repeated request id is answered with its first reply while it is among its
requester's last ``count`` on the table and younger than ``age``; an older one is a new request. Memory and
the ledger hold only the window. Real websocket clients against the real app, over SQLite and PostgreSQL,
across restarts."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestServer

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar.client import Client
from sidecar.server.app import HUB, Settings, create_app
from sidecar.server.hub import Hub
from sidecar.state.keys import derive_user_key
from sidecar.state.ledger import Ledger, SqliteLedger, TableKeys

from ..conftest import free_port

Opener = Callable[[], Ledger]


@pytest.fixture(params=["sqlite", "postgresql"])
def open_ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Opener:
    if request.param == "sqlite":
        return lambda: SqliteLedger(tmp_path / "verdict.sqlite3")
    url = request.getfixturevalue("pg_url")
    from sidecar.state.ledger.postgres import PostgresLedger

    return lambda: PostgresLedger(url)


@contextlib.asynccontextmanager
async def running(ledger: Ledger | None, data: Path, **knobs: Any) -> AsyncIterator[tuple[Hub, str]]:
    """The real app on a real port over ``ledger`` (else the one it makes in ``data``), with ``knobs`` set
    (the request window's among them); the ledger is closed when it stops."""
    app = create_app(Settings(data=data, rate=1e6, burst=1e6, **knobs), ledger)
    server = TestServer(app, host="127.0.0.1", port=free_port())
    await server.start_server()
    try:
        yield app[HUB], f"ws://127.0.0.1:{server.port}/ws"
    finally:
        await server.close()


async def gm(url: str, keys: TableKeys) -> Client:
    return await Client.connect(url, keys.table, keys.gm, user="gm")


async def roll(client: Client, rid: str) -> m.Rolled:
    reply = await client.request(m.Roll(id=rid, check=FacetsCheck(pool=2)))
    assert isinstance(reply, m.Rolled)
    return reply


async def test_ids_beyond_a_requesters_last_count_are_new_requests_across_a_restart(
    open_ledger: Opener, tmp_path: Path
) -> None:
    ledger = open_ledger()
    keys = ledger.create_table("window")
    async with running(ledger, tmp_path, request_window=3, request_window_age=3600) as (hub, url):
        client = await gm(url, keys)
        first = {f"r{i}": await roll(client, f"r{i}") for i in range(5)}
        assert [r.seq for r in first.values()] == [1, 2, 3, 4, 5]
        assert await roll(client, "r4") == first["r4"]  # inside the window: the first reply
        await client.close()

    ledger = open_ledger()
    async with running(ledger, tmp_path, request_window=3, request_window_age=3600) as (hub, url):
        client = await gm(url, keys)
        for rid in ("r2", "r3", "r4"):  # the last three: their first replies, after the restart too
            assert await roll(client, rid) == first[rid]
        again = await roll(client, "r0")  # fourth from last: a new request, a new roll
        assert again.seq == 6 and again.check != first["r0"].check
        assert await roll(client, "r0") == again  # and now it is inside the window with its new reply
        await client.close()
    assert [s for s, _ in open_ledger().events(keys.table)] == [1, 2, 3, 4, 5, 6]

    ledger = open_ledger()
    async with running(ledger, tmp_path, request_window=3, request_window_age=3600) as (hub, url):
        client = await gm(url, keys)  # the id stored again replaced its old row: its new reply, after a restart
        assert await roll(client, "r0") == again
        await client.close()


async def test_ids_older_than_the_age_are_new_requests_across_a_restart(open_ledger: Opener, tmp_path: Path) -> None:
    age = 3.0
    ledger = open_ledger()
    keys = ledger.create_table("window")
    async with running(ledger, tmp_path, request_window=1000, request_window_age=age) as (hub, url):
        client = await gm(url, keys)
        old = await roll(client, "old")
        rolled_at = time.time()
        while time.time() < rolled_at + age + 0.2:  # until "old" is older than the window
            await asyncio.sleep(0.05)
        fresh = await roll(client, "fresh")
        await client.close()

    ledger = open_ledger()
    async with running(ledger, tmp_path, request_window=1000, request_window_age=age) as (hub, url):
        client = await gm(url, keys)
        assert await roll(client, "fresh") == fresh
        again = await roll(client, "old")
        assert again.seq == 3 and again.check != old.check
        await client.close()


async def test_memory_and_the_ledger_hold_only_the_window(open_ledger: Opener, tmp_path: Path) -> None:
    ledger = open_ledger()
    keys = ledger.create_table("window")
    async with running(ledger, tmp_path, request_window=5, request_window_age=3600) as (hub, url):
        client = await gm(url, keys)
        user_key = derive_user_key(ledger.user_secret(keys.table), "ann")  # type: ignore[arg-type]
        player = await Client.connect(url, keys.table, user_key, user="ann")
        for i in range(40):
            await roll(client, f"g{i}")
            await roll(player, f"p{i}")
        held = hub.tables[keys.table]
        assert len(held.known) == 10  # five per requester, in memory
        assert len(ledger.request_ids(keys.table)) == 80  # stored until the housekeeping prunes them
        await hub.housekeeping()
        assert len(ledger.request_ids(keys.table)) == 10
        assert sorted(await ledger.find_request_ids(keys.table)) == sorted(
            [f'["gm","gm","g{i}"]' for i in range(35, 40)] + [f'["player","ann","p{i}"]' for i in range(35, 40)]
        )
        assert (await roll(player, "p39")).seq == 80 and (await roll(player, "p34")).seq == 81
        await client.close()
        await player.close()


async def test_the_settings_window_reaches_the_ledger_of_an_app_made_without_one(tmp_path: Path) -> None:
    """``create_app(Settings(...))`` alone, as a program embedding the sidecar makes it: the window's count and
    age are the settings', not the defaults (1,000 ids, a day)."""
    age = 2.0
    async with running(None, tmp_path, request_window=2, request_window_age=age) as (hub, url):
        keys = hub.ledger.create_table("window")
        client = await gm(url, keys)
        first = {rid: await roll(client, rid) for rid in ("r0", "r1", "r2")}
        assert await roll(client, "r2") == first["r2"]  # among the last two: the first reply
        again = await roll(client, "r0")  # third from last: a new request, a new roll
        assert again.seq == 4 and again.check != first["r0"].check
        rolled_at = time.time()
        while time.time() < rolled_at + age + 0.2:  # until "r0" is older than the window
            await asyncio.sleep(0.05)
        later = await roll(client, "r0")  # the last id, but older than the age: new
        assert later.seq == 5 and later.check != again.check
        await client.close()
