"""Snapshots: a table restarted at 20,000 events reads its newest snapshot and the events after it, none
older (the reads counted), and comes back as a full fold would make it, for the GM and for players; a
snapshot is derived data: deleted, or of another version, the table folds its events and writes a new one.
Real websocket clients against the real app over the real ledgers, restarted."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import msgspec

from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.facets import FacetsCheck
from sidecar.client import Client
from sidecar.server.app import HUB, Settings, create_app
from sidecar.server.hub import Hub
from sidecar.state import hearing
from sidecar.state.keys import derive_user_key
from sidecar.state.ledger import Ledger, SqliteLedger, TableKeys
from sidecar.state.table import SNAPSHOT_VERSION, Table
from sidecar.state.visibility import Viewer

from ..conftest import free_port

PLAYER = Viewer("player", "ann")


class CountingLedger(SqliteLedger):
    """The SQLite ledger, counting which events it is asked for."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.reads: list[tuple[int, int]] = []
        """(since, events read) of every read of events."""

    def events(self, table_id: str, since: int = 0, upto: int | None = None) -> list[tuple[int, bytes]]:
        rows = super().events(table_id, since, upto)
        self.reads.append((since, len(rows)))
        return rows


@contextlib.asynccontextmanager
async def running(ledger: Ledger, data: Path, every: int = 1000) -> AsyncIterator[tuple[Hub, str]]:
    app = create_app(Settings(data=data, rate=1e6, burst=1e6), ledger)
    app[HUB].snapshot_every = every
    server = TestServer(app, host="127.0.0.1", port=free_port())
    await server.start_server()
    try:
        yield app[HUB], f"ws://127.0.0.1:{server.port}/ws"
    finally:
        await server.close()


from aiohttp.test_utils import TestServer  # noqa: E402


def campaign(path: Path, events: int) -> TableKeys:
    """A table with this many events, rolls in every mode (secrets among them), written straight to the ledger."""
    ledger = SqliteLedger(path, synchronous="OFF")
    keys = ledger.create_table("campaign")
    table = Table(keys.table, ledger)
    table.load()
    modes = ["public", "gm", "self", "blind"]
    i = 0
    while table.head < events:
        viewer = PLAYER if i % 3 else Viewer("gm", "gm")
        pending = table.prepare_roll(
            m.Roll(id="x", check=FacetsCheck(pool=1, dice=[1 + i % 6]), mode=modes[i % 4], actor="Ayla"),
            viewer,
            viewer.user,
        )
        ledger.append_sync(keys.table, pending.encoded(), None)
        table.commit(pending)
        i += 1
    ledger.close()
    return keys


async def wait_for(condition, what: str) -> None:  # type: ignore[no-untyped-def]
    for _ in range(2000):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


async def states(url: str, keys: TableKeys, player_key: str) -> list[bytes]:
    gm = await Client.connect(url, keys.table, keys.gm, user="gm")
    player = await Client.connect(url, keys.table, player_key, user="ann")
    out = []
    for client in (gm, player):
        reply = await client.request(m.State(id=client.new_id()))
        out.append(msgspec.json.encode(reply.snapshot))
        assert client.welcome is not None
        out.append(msgspec.json.encode(client.welcome.seq))
    await gm.close()
    await player.close()
    return out


async def test_a_table_restarted_at_20000_events_reads_nothing_older_than_its_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "verdict.sqlite3"
    keys = campaign(path, 20_000)
    ledger = SqliteLedger(path)
    player_key = derive_user_key(ledger.user_secret(keys.table), "ann")  # type: ignore[arg-type]
    async with running(ledger, tmp_path) as (hub, url):
        gm = await Client.connect(url, keys.table, keys.gm, user="gm")
        player = await Client.connect(url, keys.table, player_key, user="ann")  # its view is held: snapshotted
        await gm.request(m.Gm(id="u", op=t.Undo(count=2)))  # an undo, behind the snapshot
        await gm.request(m.Roll(id="one", check=FacetsCheck(pool=2)))
        await wait_for(lambda: ledger.snapshot(keys.table) is not None, "a snapshot written")
        at = ledger.snapshot(keys.table)[0]  # type: ignore[index]
        assert at >= 20_001  # the undo and the roll after it: 20,002 events
        for i in range(5):  # the tail: after the snapshot
            await player.request(m.Roll(id=f"t{i}", check=FacetsCheck(pool=1), mode="self"))
        await gm.close()
        await player.close()
    head = 20_002 + 5

    counting = CountingLedger(path)
    async with running(counting, tmp_path) as (hub, url):
        seen = await states(url, keys, player_key)
        table = hub.tables[keys.table].table
        assert table.head == head and table.snapshot_seq == at
    reads = counting.reads
    assert reads and all(since >= at for since, _ in reads), reads
    assert sum(n for _, n in reads) == head - at  # the tail, once
    # (an undo in the tail would read the history it rebuilds from: the snapshot holds no history)

    full = SqliteLedger(path)
    full.delete_snapshots()  # derived data: without it the table folds every event, to the same
    async with running(full, tmp_path) as (hub, url):
        assert await states(url, keys, player_key) == seen
        assert hub.tables[keys.table].table.snapshot_seq == 0


async def test_a_snapshot_of_another_version_is_not_read_and_a_new_one_replaces_it(tmp_path: Path) -> None:
    path = tmp_path / "verdict.sqlite3"
    keys = campaign(path, 30)
    ledger = SqliteLedger(path)
    player_key = derive_user_key(ledger.user_secret(keys.table), "ann")  # type: ignore[arg-type]
    table = Table(keys.table, ledger)
    table.load()
    expected = (hearing.snapshot(table, Viewer("gm", "gm")), table.snapshot(PLAYER))
    ledger.store_snapshot_sync(keys.table, 30, "0/older", b"not what this version reads")
    async with running(ledger, tmp_path, every=10) as (hub, url):
        seen = await states(url, keys, player_key)
        assert seen[0] == msgspec.json.encode(expected[0]) and seen[2] == msgspec.json.encode(expected[1])
        await hub.housekeeping()
        assert ledger.snapshot(keys.table)[:2] == (30, SNAPSHOT_VERSION)  # type: ignore[index]
    counting = CountingLedger(path)
    async with running(counting, tmp_path) as (hub, url):
        assert await states(url, keys, player_key) == seen
    assert counting.reads == [(30, 0)]


async def test_a_postgresql_table_comes_back_from_its_snapshot_and_tail(pg_url: str, tmp_path: Path) -> None:
    from sidecar.state.ledger.postgres import PostgresLedger

    ledger = PostgresLedger(pg_url)
    keys = ledger.create_table("campaign")
    player_key = derive_user_key(ledger.user_secret(keys.table), "ann")  # type: ignore[arg-type]
    async with running(ledger, tmp_path, every=10) as (hub, url):
        gm = await Client.connect(url, keys.table, keys.gm, user="gm")
        player = await Client.connect(url, keys.table, player_key, user="ann")
        for i in range(12):
            await player.request(m.Roll(id=f"r{i}", check=FacetsCheck(pool=1), mode="self" if i % 2 else "public"))
        await gm.request(m.Gm(id="u", op=t.Undo(count=1)))
        await wait_for(lambda: ledger.snapshot(keys.table) is not None, "a snapshot written")
        at = ledger.snapshot(keys.table)[0]  # type: ignore[index]
        await player.request(m.Roll(id="tail", check=FacetsCheck(pool=1), mode="self"))
        await gm.close()
        await player.close()
    ledger = PostgresLedger(pg_url)
    async with running(ledger, tmp_path) as (hub, url):
        seen = await states(url, keys, player_key)
        assert hub.tables[keys.table].table.snapshot_seq == at >= 10
    ledger = PostgresLedger(pg_url)
    assert ledger.delete_snapshots(keys.table) == 1
    async with running(ledger, tmp_path) as (hub, url):
        assert await states(url, keys, player_key) == seen
        assert hub.tables[keys.table].table.snapshot_seq == 0
