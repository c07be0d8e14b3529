"""A ledger that stops answering slows nobody but the requests that need it, refuses those within a bound,
and serves again by itself once it is back.

A real PostgreSQL server of the test's own, frozen with SIGSTOP on its postmaster and every backend (its
connections stay open, nothing answers: the worst kind of outage) or stopped and started again, under the
real app on a real port, with real websocket clients. Where the point is a bound in seconds, the bound
checked is generous (5 s for the ledger's 2 s); elsewhere the test counts what was answered while a
request that needs the database waited.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestServer

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar.client import Client, RequestFailed
from sidecar.server.app import Settings, create_app
from sidecar.state.keys import derive_user_key
from sidecar.state.ledger import BOUND, SqliteLedger, TableKeys, open_ledger

from ..conftest import free_port, serving

GENEROUS = 5.0
"""Seconds a refusal may take here, for the ledger's bound of :data:`BOUND` (a loaded machine is slow)."""


@pytest.fixture
def own_pg() -> Iterator[Any]:
    """A PostgreSQL server of this test's own: freezing it disturbs no other test."""
    from ..pgserver import MISSING, PgServer, bin_dir

    if bin_dir() is None:
        pytest.skip(MISSING)
    pytest.importorskip("psycopg")
    server = PgServer(durable=True).start()  # it is stopped as a crash would: what it committed stays
    try:
        yield server
    finally:
        try:
            server.thaw()
        except Exception:
            pass
        server.stop()


class Served:
    def __init__(self, server: TestServer, ledger: Any, tables: list[TableKeys]) -> None:
        self.server, self.ledger, self.tables = server, ledger, tables

    async def client(self, table: int, role: str = "gm", user: str | None = None) -> Client:
        keys = self.tables[table]
        url = f"ws://127.0.0.1:{self.server.port}/ws"
        if role == "player":
            assert user is not None
            key = derive_user_key(self.ledger.user_secret(keys.table), user)
            return await Client.connect(url, keys.table, key, user=user)
        return await Client.connect(url, keys.table, getattr(keys, role), user=user)


@pytest.fixture
async def served(own_pg: Any) -> AsyncIterator[Served]:
    url = own_pg.create_database()
    ledger = open_ledger(url, Path("."))
    tables = [ledger.create_table("frozen"), ledger.create_table("other")]
    server = TestServer(create_app(Settings(rate=1e6, burst=1e6), ledger), host="127.0.0.1", port=free_port())
    await server.start_server()
    try:
        yield Served(server, ledger, tables)
    finally:
        own_pg.thaw()
        await server.close()


async def _refusal(request: Any) -> tuple[str, float]:
    """The code a request is refused with, and how long the refusal took."""
    start = time.monotonic()
    with pytest.raises(RequestFailed) as refused:
        await request
    return refused.value.code, time.monotonic() - start


async def _until_served(client: Client, make: Any, attempts: int = 200) -> Any:
    """Send fresh requests until one is served (the ledger came back); each refusal must say why."""
    for _ in range(attempts):
        try:
            return await client.request(make(), timeout=GENEROUS + BOUND)
        except RequestFailed as exc:
            assert exc.code == "ledger_unavailable", exc
        await asyncio.sleep(0.05)  # a turn of the probe, not a guess at how long the outage lasts
    raise AssertionError("the ledger never served again")


async def test_a_frozen_database_refuses_its_requests_in_time_and_slows_nobody_else(served: Served, own_pg: Any):
    gm = await served.client(0, "gm", "gm")
    player = await served.client(0, "player", "p1")
    other = await served.client(1, "gm", "gm-other")  # another table, held in memory
    before = await player.request(m.Roll(id="before", check=FacetsCheck(pool=2)))
    assert before.seq == 1
    own_pg.freeze()
    # The request that stalled the whole sidecar before: a GM's user key, a round trip to the frozen database.
    waiting = asyncio.create_task(_refusal(gm.request(m.UserKey(id="uk", user="p2"), timeout=30)))
    # Meanwhile another table is served in full, and so is everything that needs no database.
    answered = 0
    for i in range(20):
        assert isinstance(await other.request(m.Ping(id=f"ping-{i}")), m.Pong)
        answered += 1
    assert not waiting.done()  # all 20 answered while the user key still waited for the database
    snap = (await other.request(m.State(id="state"))).snapshot
    assert snap.seq == 0
    odds = await other.request(m.Odds(id="odds", check=FacetsCheck(pool=2)))
    assert isinstance(odds, m.OddsReply)
    code, took = await waiting
    assert code == "ledger_unavailable" and took < GENEROUS, took
    # Once the database is known down, what needs it is refused at once, on either table.
    code, took = await _refusal(player.request(m.Roll(id="frozen-roll", check=FacetsCheck(pool=2)), timeout=30))
    assert code == "ledger_unavailable" and took < GENEROUS
    code, took = await _refusal(other.request(m.Roll(id="frozen-other", check=FacetsCheck(pool=2)), timeout=30))
    assert code == "ledger_unavailable" and took < GENEROUS
    assert isinstance(await player.request(m.Ping(id="still-up")), m.Pong)  # the sockets stay up
    assert served.ledger.guard.down is not None

    own_pg.thaw()
    # Service resumes by itself: no restart of the sidecar, the same sockets.
    n = iter(range(1000))
    after = await _until_served(player, lambda: m.Roll(id=f"after-{next(n)}", check=FacetsCheck(pool=2)))
    key = await _until_served(gm, lambda: m.UserKey(id=f"uk-{next(n)}", user="p2"))
    assert key.key == derive_user_key(served.ledger.user_secret(served.tables[0].table), "p2")
    rolled = await other.request(m.Roll(id="other-after", check=FacetsCheck(pool=2)))
    assert rolled.seq == 1
    # nothing was half-applied: the table holds what the ledger holds, and a retry of the frozen roll's id
    # is answered once, as its first reply or as a new roll
    stored = served.ledger.events(served.tables[0].table)
    state = (await gm.request(m.State(id="state-after"))).snapshot
    assert state.seq == stored[-1][0] >= after.seq
    retried = await player.request(m.Roll(id="frozen-roll", check=FacetsCheck(pool=2)))
    again = await player.request(m.Roll(id="frozen-roll", check=FacetsCheck(pool=2)))
    assert retried == again
    for c in (gm, player, other):
        await c.close()


async def test_a_stopped_database_refuses_at_once_and_serves_again_once_started(served: Served, own_pg: Any):
    player = await served.client(0, "player", "p1")
    other = await served.client(1, "gm", "gm-other")
    watcher = await served.client(0, "observer")
    await player.request(m.Roll(id="before", check=FacetsCheck(pool=2)))
    assert (await watcher.next()).id == "before"
    own_pg.halt()
    code, took = await _refusal(player.request(m.Roll(id="down", check=FacetsCheck(pool=2)), timeout=30))
    assert code == "ledger_unavailable" and took < GENEROUS
    assert isinstance(await other.request(m.Ping(id="ping")), m.Pong)
    own_pg.resume()
    n = iter(range(1000))
    after = await _until_served(player, lambda: m.Roll(id=f"after-{next(n)}", check=FacetsCheck(pool=2)))
    assert after.seq == 2  # the refused roll stored nothing
    heard = await watcher.next(timeout=GENEROUS * 2)  # live broadcasts resume as well
    assert heard.id == after.id
    for c in (player, other, watcher):
        await c.close()


class StuckDisk(SqliteLedger):
    """The SQLite ledger on a disk whose writes stop answering while ``stuck`` is clear (the writer thread
    waits in its commit, as on a hung network disk), with every commit on the writer thread."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, commit="thread")
        self.stuck = threading.Event()
        self.stuck.set()

    def _write(self, db: Any, batch: Any) -> None:
        self.stuck.wait()
        super()._write(db, batch)


async def test_a_sqlite_disk_that_stops_answering_refuses_in_time_and_serves_again(tmp_path: Path) -> None:
    ledger = StuckDisk(tmp_path / "verdict.sqlite3")
    other = ledger.create_table("other")
    async with serving(tmp_path, ledger) as sc:
        player = await sc.client("player", user="p1")
        elsewhere = await Client.connect(sc.url, other.table, other.gm, user="gm")
        await player.request(m.Roll(id="before", check=FacetsCheck(pool=2)))
        ledger.stuck.clear()
        waiting = asyncio.create_task(
            _refusal(player.request(m.Roll(id="stuck", check=FacetsCheck(pool=2)), timeout=30))
        )
        for i in range(20):  # the loop is free: another table's pings and state are answered meanwhile
            assert isinstance(await elsewhere.request(m.Ping(id=f"ping-{i}")), m.Pong)
        assert not waiting.done()
        assert (await elsewhere.request(m.State(id="s"))).snapshot.seq == 0
        code, took = await waiting
        assert code == "ledger_unavailable" and took < GENEROUS
        code, took = await _refusal(elsewhere.request(m.Roll(id="also", check=FacetsCheck(pool=2)), timeout=30))
        assert code == "ledger_unavailable" and took < GENEROUS
        assert ledger.guard.trips == 1  # known stuck: refused at once, not after another wait
        ledger.stuck.set()
        n = iter(range(1000))
        after = await _until_served(player, lambda: m.Roll(id=f"after-{next(n)}", check=FacetsCheck(pool=2)))
        # the stuck commit landed when the disk came back: the table read it back, and its id answers with it
        stored = [s for s, _ in ledger.events(sc.keys.table)]
        assert stored == list(range(1, len(stored) + 1)) and after.seq == stored[-1]
        retried = await player.request(m.Roll(id="stuck", check=FacetsCheck(pool=2)))
        assert retried == await player.request(m.Roll(id="stuck", check=FacetsCheck(pool=2)))
        for c in (player, elsewhere):
            await c.close()
