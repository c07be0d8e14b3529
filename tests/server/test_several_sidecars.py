"""Several sidecars over one PostgreSQL ledger: any sidecar serves any table, nothing lost or doubled.

Every test runs real sidecars (the app on real ports, or `verdict serve` processes) against a real
PostgreSQL server, and real websocket clients.
"""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path
from typing import Any

import psycopg
import pytest
import websockets

from protocol.v1 import challenge as challenge_t
from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.challenge import ChallengeCheck
from protocol.v1.facets import FacetsCheck
from protocol.v1.flairs import FlairsBargain, FlairsCheck
from sidecar.client import Client
from sidecar.server import bus as bus_module
from sidecar.state.ledger import open_ledger

from ..cli.running import verdict
from ..conftest import Process, free_port
from .several import Sidecars, start_sidecars

pytestmark = pytest.mark.slow


async def drain_until(c: Client, stop: Any, timeout: float = 10.0) -> list[Any]:
    """Every message ``c`` hears until one for which ``stop`` is true (included)."""
    got = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        msg = await c.next(timeout=max(0.01, deadline - loop.time()))
        assert msg is not None, "connection closed"
        got.append(msg)
        if stop(msg):
            return got


def is_barrier(msg: Any) -> bool:
    return (
        isinstance(msg, m.EventBroadcast)
        and isinstance(msg.event, challenge_t.ComplicationAdded)
        and msg.event.text == "barrier"
    )


def seqs_of(msgs: list[Any]) -> list[int]:
    out = []
    for x in msgs:
        if getattr(x, "seq", None) is not None:
            out.append(x.seq)
        out += [e.seq for e in getattr(x, "events", []) or []]
    return out


async def test_gm_on_one_sidecar_players_on_the_other_hear_the_same_in_the_same_order(pair: Sidecars):
    # Watchers: the same role and user on both sidecars must hear exactly the same frames.
    watchers = {
        (i, who): await pair.client(i, role, user)
        for i in (0, 1)
        for who, role, user in (("gm", "gm", "gm-watch"), ("p2", "player", "p2"), ("obs", "observer", "o"))
    }
    gm = await pair.client(0, "gm", "gm")  # the GM on sidecar 0
    p1 = await pair.client(1, "player", "p1")  # players on sidecar 1
    p3 = await pair.client(1, "player", "p3")

    async def roll(c: Client, check: Any, **kw: Any) -> Any:
        return await c.request(m.Roll(id=c.new_id(), check=check, **kw))

    await gm.request(m.Gm(id="scene", op=t.SceneActivate(scene="S")))
    await gm.request(m.Gm(id="hidden", op=challenge_t.ComplicationAdd(scene="S", text="the secret door", hidden=True)))
    await roll(p1, FacetsCheck(pool=3), actor="Ann")
    await roll(p1, FacetsCheck(pool=2), mode="gm")
    blind = await roll(p1, FacetsCheck(pool=2), mode="blind")
    assert blind.result is None  # the roller of a blind roll does not see it
    await roll(p3, ChallengeCheck(cl=3, dice=[1]), actor="Bo")  # an epic failure: strain, a hidden complication
    failed = await roll(p1, FlairsCheck(rank=2, dice=[3, 2]))
    await p1.request(m.Follow(id="bargain", check=failed.check, action=FlairsBargain(trial="loud", dice=[6])))
    own = await roll(gm, FacetsCheck(pool=4), mode="self")  # only its roller sees it, not another GM socket
    await gm.request(m.Gm(id="strain", op=challenge_t.StrainSet(actor="Bo", strain=2)))
    await gm.request(m.Gm(id="barrier", op=challenge_t.ComplicationAdd(scene="S", text="barrier", hidden=False)))

    heard = {k: await drain_until(c, is_barrier) for k, c in watchers.items()}
    for who in ("gm", "p2", "obs"):
        assert heard[(0, who)] == heard[(1, who)], f"{who} heard different things on the two sidecars"
        s = seqs_of(heard[(0, who)])
        assert s == sorted(s) and len(s) == len(set(s)), f"{who} heard events out of order or twice"
    head = max(seqs_of(heard[(0, "gm")]))
    # All the rest: the self roll and its consequences (a random triumph creates a facet, a costly
    # success a cost) are its roller's alone, and leave no gap in another GM socket's numbering.
    assert sorted(seqs_of(heard[(1, "gm")])) == list(range(1, head + 1))
    assert own.check not in json.dumps([json.loads(msgspec_json(x)) for x in heard[(1, "gm")]])
    for who in ("p2", "obs"):
        text = json.dumps([json.loads(msgspec_json(x)) for x in heard[(1, who)]])
        assert "the secret door" not in text and "epic failure" not in text.lower(), f"{who} heard a secret"
        kinds = [type(x).__name__ for x in heard[(1, who)]]
        assert kinds.count("Rolled") == 3 and "Followed" in kinds  # not the gm-only, blind or self rolls
    # The notifications carried events: the sidecar of the players told them without reading the ledger.
    # How many depends on timing (a notification that arrives after a catch-up by seq brings nothing new).
    assert pair.bus(1).carried >= 1
    # The requests' ids reach the other sidecar's clients too, as on the one that committed them.
    assert any(getattr(x, "id", None) == "bargain" for x in heard[(0, "gm")])
    # Both sidecars hold the same state.
    snaps = [await c.request(m.State(id="s")) for c in (watchers[(0, "gm")], watchers[(1, "gm")])]
    assert snaps[0].snapshot == snaps[1].snapshot and snaps[0].snapshot.seq == head
    for c in [*watchers.values(), gm, p1, p3]:
        await c.close()


def msgspec_json(x: Any) -> bytes:
    import msgspec

    return msgspec.json.encode(x)


async def test_concurrent_appends_from_both_sidecars_leave_no_gap_and_no_duplicate(pair: Sidecars):
    clients = [await pair.client(i % 2, "player", f"p{i}") for i in range(6)]
    acked: list[m.Rolled] = []

    async def burst(c: Client) -> None:
        for _ in range(30):
            acked.append(await c.request(m.Roll(id=c.new_id(), check=FacetsCheck(pool=3))))

    await asyncio.gather(*(burst(c) for c in clients))
    rows = pair.ledgers[0].events(pair.keys.table)
    assert [s for s, _ in rows] == list(range(1, 181))
    assert sorted(r.seq for r in acked) == list(range(1, 181))
    assert pair.ledgers[0].refusals + pair.ledgers[1].refusals > 0  # the sidecars did collide
    assert pair.ledgers[0].turns + pair.ledgers[1].turns > 0  # and took turns
    # Each sidecar's projection caught up with the other's rolls: same head, same checks.
    gms = [await pair.client(i, "gm", "gm") for i in (0, 1)]
    snaps = [(await g.request(m.State(id="s"))).snapshot for g in gms]
    assert snaps[0] == snaps[1] and snaps[0].seq == 180
    for c in [*clients, *gms]:
        await c.close()


async def test_the_same_request_id_sent_to_both_sidecars_rolls_once(pair: Sidecars):
    a = await pair.client(0, "player", "p1")
    b = await pair.client(1, "player", "p1")
    for i in range(20):
        ra, rb = await asyncio.gather(
            a.request(m.Roll(id=f"same-{i}", check=FacetsCheck(pool=5))),
            b.request(m.Roll(id=f"same-{i}", check=FacetsCheck(pool=5))),
        )
        assert ra == rb
    assert pair.ledgers[0].turns + pair.ledgers[1].turns >= 1  # at least once, both were in flight at the same time
    rows = pair.ledgers[0].events(pair.keys.table)
    assert len(rows) == 20 and len(pair.ledgers[0].request_ids(pair.keys.table)) == 20
    # later retries, on either sidecar, get the first reply
    again = await b.request(m.Roll(id="same-0", check=FacetsCheck(pool=5)))
    assert again.seq == 1
    gm = await pair.client(1, "gm", "gm")
    # Request ids belong to their requester: the GM's "same-0" is its own request, never p1's reply.
    mine = await gm.request(m.Roll(id="same-0", check=FacetsCheck(pool=5)))
    assert mine.seq > 20 and mine.check != again.check
    for c in (a, b, gm):
        await c.close()


async def test_a_sidecar_whose_listening_connection_dropped_catches_up_when_it_returns(pg_url: str, monkeypatch):
    monkeypatch.setattr(bus_module, "INTERVAL", 3600.0)  # no periodic check: only the reconnection can help
    sc = await start_sidecars(pg_url)
    try:
        watcher = await sc.client(1, "player", "w")
        gm = await sc.client(0, "gm", "gm")
        bus1 = sc.bus(1)
        gate = asyncio.Event()
        connect = sc.ledgers[1]._listener

        async def gated() -> Any:
            await gate.wait()
            return await connect()

        sc.ledgers[1]._listener = gated
        with psycopg.connect(pg_url, autocommit=True) as db:  # the network blips: the listening connections die
            db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'verdict-bus'")
        deadline = asyncio.get_running_loop().time() + 30
        while bus1.listening.is_set() and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.01)
        assert not bus1.listening.is_set()
        rolled = await gm.request(m.Roll(id="while-away", check=FacetsCheck(pool=2)))
        with pytest.raises(asyncio.TimeoutError):  # sidecar 1 missed the notification
            await watcher.next(timeout=0.5)
        listens = bus1.listens
        gate.set()
        got = await watcher.next(timeout=10)
        assert isinstance(got, m.Rolled) and got.id == "while-away" and got.seq == rolled.seq
        assert bus1.listens == listens + 1
        await watcher.close()
        await gm.close()
    finally:
        for s in sc.servers:
            await s.close()


async def test_a_sidecar_that_hears_nothing_catches_up_periodically(pg_url: str, monkeypatch):
    monkeypatch.setattr(bus_module, "INTERVAL", 0.2)
    never = asyncio.Event()
    sc = await start_sidecars(pg_url, gate={1: never})  # sidecar 1 never manages to listen
    try:
        watcher = await sc.client(1, "observer", "o")
        gm = await sc.client(0, "gm", "gm")
        for i in range(3):
            await gm.request(m.Roll(id=f"r{i}", check=FacetsCheck(pool=2)))
        got = [await watcher.next(timeout=5) for _ in range(3)]
        assert [g.id for g in got] == ["r0", "r1", "r2"] and [g.seq for g in got] == [1, 2, 3]
        assert not sc.bus(1).listening.is_set()
        await watcher.close()
        await gm.close()
    finally:
        for s in sc.servers:
            await s.close()


async def test_kill_9_one_sidecar_in_a_burst_clients_move_to_the_other_and_miss_nothing(pg_url: str, tmp_path: Path):
    made = verdict("table", "--ledger", pg_url, "create", "burst", "--json")
    assert made.returncode == 0, made.stderr
    k = json.loads(made.stdout)
    assert k["table"] in verdict("table", "--ledger", pg_url, "list").stdout
    procs = [Process(tmp_path / f"data{i}", free_port(), ("--ledger", pg_url)) for i in range(2)]
    for p in procs:
        p.start()
    try:
        urls = [p.url for p in procs]
        user_keys = [
            verdict("table", "--ledger", pg_url, "user-key", k["table"], f"p{i}").stdout.split()[-1] for i in range(4)
        ]
        players = [await Client.connect(urls[0], k["table"], user_keys[i], user=f"p{i}") for i in range(4)]
        watcher = await Client.connect(urls[1], k["table"], k["gm"], user="gm")  # the GM on the other sidecar
        seen: dict[int, set[int]] = {i: set() for i in range(4)}
        acked: list[m.Rolled] = []
        unanswered: dict[int, str] = {}

        async def burst(i: int, c: Client) -> None:
            for n in range(400):
                rid = f"p{i}-{n}"
                unanswered[i] = rid
                try:
                    r = await c.request(m.Roll(id=rid, check=FacetsCheck(pool=3)), timeout=5)
                except (TimeoutError, ConnectionError, websockets.ConnectionClosed):
                    return
                acked.append(r)
                del unanswered[i]

        tasks = [asyncio.create_task(burst(i, c)) for i, c in enumerate(players)]
        while len(acked) < 60:
            await asyncio.sleep(0.005)
        procs[0].stop(signal.SIGKILL)
        await asyncio.gather(*tasks, return_exceptions=True)
        for i, c in enumerate(players):  # what each heard before the sidecar died
            seen[i] |= {r.seq for r in acked if r.user == f"p{i}"}
            while not c.inbox.empty():
                msg = c.inbox.get_nowait()
                if msg is not None:
                    seen[i] |= set(seqs_of([msg]))
        # Everyone reconnects to the surviving sidecar from the last seq they heard, and retries what
        # was never answered: a roll the dead sidecar committed is answered from the ledger, not rolled again.
        moved = [
            await Client.connect(urls[1], k["table"], user_keys[i], user=f"p{i}", since=max(seen[i], default=0))
            for i in range(4)
        ]
        for i, c in enumerate(moved):
            assert c.welcome.snapshot is None
            seen[i] |= {e.seq for e in c.welcome.events}
            if i in unanswered:
                r = await c.request(m.Roll(id=unanswered[i], check=FacetsCheck(pool=3)))
                acked.append(r)
                seen[i].add(r.seq)
        ledger = open_ledger(pg_url, Path("."))
        seqs = [s for s, _ in ledger.events(k["table"])]
        ledger.close()
        assert seqs == list(range(1, len(seqs) + 1))  # no gap, no duplicate
        assert {r.seq for r in acked} <= set(seqs) and len({r.seq for r in acked}) == len(acked)
        for i, c in enumerate(moved):  # the retried rolls of the others, heard as broadcasts
            while not seen[i] >= set(seqs):
                try:
                    msg = await c.next(timeout=10)
                except TimeoutError:
                    break
                assert msg is not None
                seen[i] |= set(seqs_of([msg]))
            assert seen[i] == set(seqs), f"p{i} missed {sorted(set(seqs) - seen[i])[:10]}"
        # the GM on the surviving sidecar heard every roll, in order, whichever sidecar took it
        heard = []
        while len(heard) < len(seqs):
            msg = await watcher.next(timeout=10)
            assert msg is not None
            heard += seqs_of([msg])
        assert heard == seqs
        for c in [*players, *moved, watcher]:
            await c.close()
    finally:
        for p in procs:
            if p.proc is not None:
                p.stop()


async def test_the_database_dropping_its_connections_costs_no_request(pair: Sidecars):
    p = await pair.client(0, "player", "p1")
    watcher = await pair.client(1, "observer", "o")
    await p.request(m.Roll(id="before", check=FacetsCheck(pool=2)))
    assert (await watcher.next()).id == "before"
    with psycopg.connect(pair.ledgers[0].url, autocommit=True) as db:  # every sidecar connection is cut
        db.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE application_name LIKE 'verdict%%' AND pid <> pg_backend_pid()"
        )
    after = await p.request(m.Roll(id="after", check=FacetsCheck(pool=2)))
    assert after.seq == 2
    got = await watcher.next(timeout=10)  # the other sidecar listens again and hears of it
    assert got.id == "after" and got.seq == 2
    await p.close()
    await watcher.close()


async def test_an_unreachable_database_is_a_clear_error_and_the_socket_stays_up(pair: Sidecars):
    p = await pair.client(0, "player", "p1")
    ledger = pair.ledgers[0]
    good = ledger._kwargs
    await ledger.aclose()
    ledger.url = ledger.url.replace(f":{ledger.url.split(':')[-1].split('/')[0]}/", ":1/")  # nothing listens there
    ledger._kwargs = {**good, "connect_timeout": 1}
    with pytest.raises(Exception) as e:
        await p.request(m.Roll(id="lost", check=FacetsCheck(pool=2)), timeout=30)
    assert getattr(e.value, "code", None) == "ledger_unavailable"
    assert isinstance(await p.request(m.Ping(id="still-here")), m.Pong)
    await p.close()


async def test_a_join_that_reads_a_table_from_the_database_does_not_hold_up_the_sidecar(pair: Sidecars):
    """The reads of a join (the key, the table's events) are round trips to another host: everyone else on the
    sidecar is served meanwhile, and joins that come together read the table once."""
    ledger = pair.ledgers[0]
    other = ledger.create_table("another")
    busy = await pair.client(0, "gm", "gm-busy")  # on the first table, already held
    reads: list[str] = []
    events = ledger.read_events

    reading, answer = asyncio.Event(), asyncio.Event()

    async def slow_events(table_id: str, since: int = 0, upto: int | None = None) -> list[tuple[int, bytes]]:
        reads.append(table_id)
        reading.set()
        await answer.wait()  # a database far away, answering only when the test says so
        return await events(table_id, since, upto)

    ledger.read_events = slow_events
    url = pair.url(0)
    joins = [asyncio.create_task(Client.connect(url, other.table, other.gm, user=f"gm-{i}")) for i in range(3)]
    await asyncio.wait_for(reading.wait(), 30)
    assert isinstance(await busy.request(m.Ping(id="meanwhile")), m.Pong)
    rolled = await busy.request(m.Roll(id="meanwhile-roll", check=FacetsCheck(pool=2)))
    assert rolled.seq == 1 and not any(j.done() for j in joins)  # served while the join's read is unanswered
    answer.set()
    joined = await asyncio.gather(*joins)
    assert reads == [other.table]  # three joins, one read
    assert all(c.welcome.table == other.table for c in joined)
    ledger.read_events = events
    for c in [busy, *joined]:
        await c.close()
