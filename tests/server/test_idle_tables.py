"""Idle tables: a table without connections for the idle time is let go of (snapshotted first), and the next
join loads it again from its snapshot, whole: the same state and numbering for the GM and a player, and its
ids still answered from their first replies. Real websocket clients against the real app."""

from __future__ import annotations

import gc
from pathlib import Path

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar.client import Client
from sidecar.state.keys import derive_user_key
from sidecar.state.ledger import SqliteLedger

from .test_snapshots import CountingLedger, running, states, wait_for


async def test_an_idle_table_is_let_go_of_and_comes_back_whole(tmp_path: Path) -> None:
    path = tmp_path / "verdict.sqlite3"
    ledger = CountingLedger(path)
    keys = ledger.create_table("idle")
    player_key = derive_user_key(ledger.user_secret(keys.table), "ann")  # type: ignore[arg-type]
    async with running(ledger, tmp_path) as (hub, url):
        hub.housekeeping_every, hub.idle_after = 0.05, 0.2
        gm = await Client.connect(url, keys.table, keys.gm, user="gm")
        player = await Client.connect(url, keys.table, player_key, user="ann")
        first = await player.request(m.Roll(id="mine", check=FacetsCheck(pool=2), mode="self"))
        for i in range(5):
            await gm.request(m.Roll(id=f"g{i}", check=FacetsCheck(pool=1), mode="gm" if i % 2 else "public"))
        seen = await states(url, keys, player_key)
        assert keys.table in hub.tables
        await gm.close()
        await player.close()
        await wait_for(lambda: keys.table not in hub.tables, "the idle table let go of")
        assert hub.unloaded == 1 and ledger.snapshot(keys.table)[0] == 6  # type: ignore[index]

        def collected() -> bool:
            gc.collect()
            return keys.table not in hub._gone

        await wait_for(collected, "the table's memory freed")
        ledger.reads.clear()
        assert await states(url, keys, player_key) == seen  # loaded again from its snapshot, whole
        assert all(since >= 6 for since, _ in ledger.reads), ledger.reads
        table = hub.tables[keys.table].table
        assert table.snapshot_seq == 6
        player = await Client.connect(url, keys.table, player_key, user="ann")
        assert await player.request(m.Roll(id="mine", check=FacetsCheck(pool=2), mode="self")) == first
        # the player numbers its own roll and the three public ones: this one is its fifth
        assert (await player.request(m.Roll(id="new", check=FacetsCheck(pool=2)))).seq == 5
        await player.close()


async def test_tables_joined_once_and_left_are_all_let_go_of(tmp_path: Path) -> None:
    ledger = SqliteLedger(tmp_path / "verdict.sqlite3")
    all_keys = [ledger.create_table(f"t{i}") for i in range(20)]
    async with running(ledger, tmp_path) as (hub, url):
        hub.housekeeping_every, hub.idle_after = 0.05, 0.1
        for keys in all_keys:
            gm = await Client.connect(url, keys.table, keys.gm, user="gm")
            await gm.request(m.Roll(id="r", check=FacetsCheck(pool=1)))
            await gm.close()
        await wait_for(lambda: not hub.tables, "every table let go of")
        assert hub.unloaded == 20
