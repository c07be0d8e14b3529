"""Each table notifies on a channel of its own, and a sidecar listens only to the tables it has connections at.

Real sidecars (the app on real ports) over a real PostgreSQL, real websocket clients. What is counted is
what reached each sidecar's listening connection (:attr:`PostgresLedger.received`), never a time: a
sidecar not at a table is not woken by its commits at all, two sidecars at one table each hear every one
of its commits once, and a join that comes while another sidecar is appending misses nothing even with
the periodic check turned off (the join listens before it reads).
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import psycopg
import pytest

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar.client import Client
from sidecar.server import bus as bus_module
from sidecar.state.ledger import open_ledger, pg_listener

from .several import Sidecars, start_sidecars

pytestmark = pytest.mark.slow


async def until(cond: Any, timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not cond():
        assert loop.time() < deadline, "condition not met in time"
        await asyncio.sleep(0.01)


def roll(rid: str) -> m.Roll:
    return m.Roll(id=rid, check=FacetsCheck(pool=2))


def test_a_tables_channel_is_a_safe_name_for_any_id(pg_url: str):
    """The channel the database notifies on is the one the sidecar listens to, for ids no identifier could be."""
    ledger = open_ledger(pg_url, Path("."))
    ids = ['x"; DROP TABLE tables; --', "Ünïcødé table ☃", "a" * 200, "", "UPPER lower", "verdict"]
    try:
        with psycopg.connect(pg_url, autocommit=True) as db:
            for table_id in ids:
                name = pg_listener.channel(table_id)
                assert re.fullmatch(r"verdict_[0-9a-f]{32}", name) and len(name.encode()) <= 63
                db.execute(
                    "INSERT INTO tables (id, name, gm_hash, player_hash, observer_hash, created)"
                    " VALUES (%s, 'n', '', '', '', 0)",
                    (table_id,),
                )
                db.execute(f"LISTEN {pg_listener.channel_sql(table_id)}")
            assert len({pg_listener.channel(t) for t in ids}) == len(ids)
            for table_id in ids:
                ledger.append_sync(table_id, [(1, b"\x81\xa1t\xa1e")], None)
            got = list(db.notifies(timeout=30, stop_after=len(ids)))
        assert sorted((n.channel, n.payload.split(":", 1)[0]) for n in got) == sorted(
            (pg_listener.channel(t), t.split(":", 1)[0]) for t in ids
        )
    finally:
        ledger.close()


async def test_a_sidecar_with_no_connection_at_a_table_is_not_woken_by_its_commits(pair: Sidecars):
    ours, theirs = (pair.ledgers[0].create_table(n) for n in ("ours", "theirs"))
    here = await pair.player(0, ours.table, "p")  # sidecar 0 is at table "ours" only
    there = await pair.player(1, theirs.table, "q")  # sidecar 1 at "theirs" only
    n = 40
    for i in range(n):
        await there.request(roll(f"t{i}"))
    # Notifications reach a listener in commit order, whatever their channel: once sidecar 0 has heard a
    # commit at its own table made after all of those, it would have heard them too.
    last = await here.request(roll("barrier"))
    await until(lambda: pair.ledgers[0].received[ours.table] == last.seq)
    assert pair.ledgers[0].received[theirs.table] == 0
    assert pair.ledgers[1].received[theirs.table] == n  # its own commits, each once
    assert pair.ledgers[0].listened == {ours.table} and pair.ledgers[1].listened == {theirs.table}
    assert pair.bus(0).passed == 0 and theirs.table not in pair.hub(0).tables

    # A table's last connection on a sidecar gone, the sidecar stops listening to it (the next periodic check).
    visitor = await pair.player(0, theirs.table, "v")
    assert theirs.table in pair.ledgers[0].listened
    await there.request(roll("seen"))
    await until(lambda: pair.ledgers[0].received[theirs.table] == 1)
    await visitor.close()
    await until(lambda: theirs.table not in pair.ledgers[0].listened)
    for i in range(n):
        await there.request(roll(f"u{i}"))
    last = await here.request(roll("barrier-2"))
    await until(lambda: pair.ledgers[0].received[ours.table] == last.seq)
    assert pair.ledgers[0].received[theirs.table] == 1
    for c in (here, there):
        await c.close()


async def test_two_sidecars_at_one_table_each_hear_every_commit_once(pair: Sidecars):
    keys = pair.ledgers[0].create_table("shared")
    a = await pair.player(0, keys.table, "a")
    b = await pair.player(1, keys.table, "b")
    heard: dict[str, list[int]] = {"a": [], "b": []}
    n = 25

    async def play(c: Client, name: str) -> None:
        for i in range(n):
            reply = await c.request(roll(f"{name}{i}"))
            heard[name].append(reply.seq)

    await asyncio.gather(play(a, "a"), play(b, "b"))
    last = (await a.request(roll("barrier"))).seq
    heard["a"].append(last)
    for c, name in ((a, "a"), (b, "b")):
        while len(heard[name]) < last:  # one seq told twice and another would be missing
            msg = await c.next(timeout=30)
            assert msg is not None, "connection closed"
            if getattr(msg, "seq", None) is not None:
                heard[name].append(msg.seq)
        assert sorted(heard[name]) == list(range(1, last + 1)), f"{name} missed or heard twice"
    # every commit reached each sidecar's listener once: its own and the other's
    await until(lambda: pair.ledgers[0].received[keys.table] == pair.ledgers[1].received[keys.table] == last)
    assert a.inbox.empty() and b.inbox.empty()
    for c in (a, b):
        await c.close()


async def test_a_join_while_another_sidecar_appends_misses_nothing_without_the_periodic_check(pg_url: str, monkeypatch):
    async def never(self: Any) -> None:
        await asyncio.Event().wait()

    monkeypatch.setattr(bus_module.Bus, "_periodic", never)  # only notifications and the join's own read
    sc = await start_sidecars(pg_url)
    try:
        keys = sc.ledgers[0].create_table("busy")
        roller = await sc.player(0, keys.table, "r")
        rolled: list[int] = []

        async def keep_rolling(stop: asyncio.Event) -> None:
            while not stop.is_set():
                rolled.append((await roller.request(roll(f"r{len(rolled)}"))).seq)

        async def heard_all(c: Client, seqs: list[int]) -> None:
            target = rolled[-1]
            while not seqs or seqs[-1] < target:
                msg = await c.next(timeout=30)
                if getattr(msg, "seq", None) is not None:
                    seqs.append(msg.seq)
            assert seqs == list(range(1, seqs[-1] + 1))  # every event once, in order

        bus1 = sc.bus(1)
        read = bus1.catch_up
        joining = asyncio.Event()
        stop = asyncio.Event()
        task: asyncio.Task[None] | None = None

        async def read_then_one_more_commit(hub: Any, rows: Any = None) -> int:
            """The join's read, and then at least one commit wholly after it, and then no more: a join that
            listened only after its read would never hear of that commit (no later one to reveal it)."""
            n = await read(hub, rows)
            if rows is None and joining.is_set():
                joining.clear()
                seen = len(rolled)
                await until(lambda: len(rolled) > seen + 1)
                stop.set()
                assert task is not None
                await task
            return n

        monkeypatch.setattr(bus1, "catch_up", read_then_one_more_commit)
        for r in range(3):  # each round: sidecar 1 takes the table again after letting go of it
            stop.clear()
            task = asyncio.create_task(keep_rolling(stop))
            await until(lambda r=r: len(rolled) >= 5 * (r + 1))
            joining.set()
            c = await sc.player(1, keys.table, f"j{r}", since=0)
            assert stop.is_set() and c.welcome is not None
            await heard_all(c, [e.seq for e in c.welcome.events])
            await c.close()
            await until(lambda: not sc.hub(1).tables[keys.table].connections)
            bus1.let_go()
            assert keys.table not in sc.ledgers[1].listened
        await roller.close()
    finally:
        for s in sc.servers:
            await s.close()


async def test_a_listening_connection_that_came_back_listens_to_every_table_it_held(pg_url: str, monkeypatch):
    async def never(self: Any) -> None:
        await asyncio.Event().wait()

    monkeypatch.setattr(bus_module.Bus, "_periodic", never)  # only notifications (and the reconnection's check)
    sc = await start_sidecars(pg_url)
    try:
        tables = [sc.ledgers[0].create_table(f"t{i}") for i in range(3)]
        watchers = [await sc.player(1, k.table, "w") for k in tables]
        rollers = [await sc.player(0, k.table, "r") for k in tables]
        assert sc.ledgers[1].listened == {k.table for k in tables}
        bus1, listens = sc.bus(1), sc.bus(1).listens
        with psycopg.connect(pg_url, autocommit=True) as db:  # the network blips: the listening connections die
            db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'verdict-bus'")
        await until(lambda: bus1.listens == listens + 1 and bus1.listening.is_set())
        with psycopg.connect(pg_url, autocommit=True) as db:  # the new connection listens to all three again
            rows = db.execute(
                "SELECT pid FROM pg_stat_activity WHERE application_name = 'verdict-bus' AND state = 'idle'"
            ).fetchall()
        assert len(rows) == 2
        received = dict(sc.ledgers[1].received)
        for roller, watcher in zip(rollers, watchers):
            sent = await roller.request(roll("after"))
            got = await watcher.next(timeout=30)  # told from the notification: there is no other way now
            assert isinstance(got, m.Rolled) and got.seq == sent.seq
        assert all(sc.ledgers[1].received[k.table] == received.get(k.table, 0) + 1 for k in tables)
        for c in (*watchers, *rollers):
            await c.close()
    finally:
        for s in sc.servers:
            await s.close()
