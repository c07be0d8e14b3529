"""A table's sockets routed to one sidecar: the table id in the websocket URL, hashed at the proxy.

The proxy in front of several sidecars (deploy/Caddyfile.several) hashes the URL (``/ws?table=ID``) with
each sidecar's address and sends the socket to the highest (rendezvous hashing, :mod:`bench.routing`). These
tests route their clients the same way, against real sidecars over a real PostgreSQL, and hold that the
routing costs nothing in correctness: a sidecar without a connection at a table hears none of its
notifications, and when a sidecar is killed its tables' clients reconnect with ``since`` to the one the
proxy picks next, missing nothing and hearing nothing twice.
"""

from __future__ import annotations

import asyncio
import json
import signal
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import websockets

from bench.routing import pick, request_uri, table_of, xxh64
from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar.client import Client, table_url
from sidecar.state.keys import derive_user_key
from sidecar.state.ledger import open_ledger
from sidecar.state.ledger import postgres as ledger_pg

from ..cli.running import verdict
from ..conftest import Process, Sidecar, free_port
from .several import Sidecars


def test_the_proxys_hash_is_xxh64():
    assert xxh64(b"") == 0xEF46DB3751D8E999
    assert xxh64(b"abc") == 0x44BC2CF5AD770999
    assert xxh64(b"verdict-a:87650123456789abcdef") == 0x98827A4913CFF7B4
    long = b"The quick brown fox jumps over the lazy dog, twice: the quick brown fox jumps over the lazy dog."
    assert xxh64(long) == 0x581D6C19BA1B00F2


def test_a_table_moves_only_when_its_own_sidecar_goes():
    urls = [f"ws://verdict-{c}:8765/ws" for c in "abcd"]
    tables = [uuid.uuid4().hex for _ in range(400)]
    where = {t: pick(urls, request_uri(t)) for t in tables}
    assert set(Counter(where.values())) == set(urls)  # every sidecar gets tables
    for gone in urls:
        rest = [u for u in urls if u != gone]
        for t in tables:
            if where[t] != gone:
                assert pick(rest, request_uri(t)) == where[t]  # the others' tables stay where they are
            else:
                assert pick(rest, request_uri(t)) in rest


def test_the_client_names_the_table_in_the_url():
    assert table_url("ws://h:1/ws", "T1") == "ws://h:1/ws?table=T1"
    assert table_url("wss://h/ws?x=1", "T1") == "wss://h/ws?x=1&table=T1"
    assert table_url("ws://h:1/ws?table=T1", "T1") == "ws://h:1/ws?table=T1"
    assert table_of(table_url("ws://h/ws", "a b&c")) == "a b&c"
    with pytest.raises(ValueError, match="names table"):
        table_url("ws://h:1/ws?table=T2", "T1")


async def test_a_hello_for_another_table_than_the_urls_is_refused_and_the_socket_stays_up(sidecar: Sidecar):
    table, gm = sidecar.keys.table, sidecar.keys.gm
    async with websockets.connect(f"{sidecar.url}?table=elsewhere", subprotocols=["verdict.v1"]) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "table": table, "key": gm, "client": "t"}))
        err = json.loads(await ws.recv())
        assert err["type"] == "error" and err["code"] == "invalid_message"
        assert "elsewhere" in err["message"] and f"/ws?table={table}" in err["message"]
        await ws.send(json.dumps({"type": "state", "id": "s1"}))  # still up, and still not joined
        err = json.loads(await ws.recv())
        assert err["code"] == "hello_required" and err["id"] == "s1"
    async with websockets.connect(f"{sidecar.url}?table={table}", subprotocols=["verdict.v1"]) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "table": table, "key": gm, "client": "t"}))
        assert json.loads(await ws.recv())["type"] == "welcome"
    c = await sidecar.client("gm", "gm")  # the Python client names the table itself
    assert c.welcome is not None and c.welcome.table == table
    assert table_of(f"ws://h{c.ws.request.path}") == table  # type: ignore[union-attr]
    await c.close()


@pytest.mark.parametrize("query", ["table=", "Table=T", "TABLE=T", "table=&table=T"])
async def test_a_url_whose_table_the_proxy_cannot_route_by_is_refused(sidecar: Sidecar, query: str):
    """An empty `table`, or one named in another case, would be routed by a hash of something else than the
    table, and slipped past the hello's check: refused at the upgrade, saying how to name it."""
    table = sidecar.keys.table
    url = f"{sidecar.url}?{query.replace('=T', '=' + table)}"
    with pytest.raises(websockets.InvalidStatus) as refused:
        await websockets.connect(url, subprotocols=["verdict.v1"])  # type: ignore[list-item]
    assert refused.value.response.status_code == 400
    body = json.loads(refused.value.response.body)
    assert body["code"] == "invalid_message" and "/ws?table=ID" in body["message"], body
    # a URL that names no table is let in (one sidecar, or a client that does not route)
    async with websockets.connect(sidecar.url, subprotocols=["verdict.v1"]) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "table": table, "key": sidecar.keys.gm}))
        assert json.loads(await ws.recv())["type"] == "welcome"


# --- over PostgreSQL ------------------------------------------------------------------------------


async def until(cond: Any, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not cond():
        assert loop.time() < deadline, "condition not met in time"
        await asyncio.sleep(0.01)


async def test_a_sidecar_without_a_connection_at_a_table_hears_none_of_its_notifications(pair: Sidecars, monkeypatch):
    decoded: Counter[str] = Counter()
    parse = ledger_pg.parse_note

    def counting(payload: str) -> Any:
        out = parse(payload)
        decoded[out[0]] += 1
        return out

    monkeypatch.setattr(ledger_pg, "parse_note", counting)
    a, b = (pair.ledgers[0].create_table(name) for name in ("a", "b"))
    gm_a = await Client.connect(pair.url(0), a.table, a.gm, user="gm")  # table a's sockets on sidecar 0
    gm_b = await Client.connect(pair.url(1), b.table, b.gm, user="gm")  # table b's on sidecar 1
    k = 12
    for i in range(k):
        await gm_a.request(m.Roll(id=f"a{i}", check=FacetsCheck(pool=2)))
        await gm_b.request(m.Roll(id=f"b{i}", check=FacetsCheck(pool=2)))

    async def barrier(n: int) -> None:
        """Notifications reach a sidecar in commit order, whatever their channel: once each sidecar has
        heard a roll of its own table made after all else, it would have heard everything before it."""
        ra = await gm_a.request(m.Roll(id=f"barrier-a{n}", check=FacetsCheck(pool=2)))
        rb = await gm_b.request(m.Roll(id=f"barrier-b{n}", check=FacetsCheck(pool=2)))
        await until(lambda: pair.hub(0).tables[a.table].table.head == ra.seq)
        await until(lambda: pair.ledgers[0].received[a.table] == ra.seq and pair.ledgers[1].received[b.table] == rb.seq)

    await barrier(0)
    # Each notification reached only the sidecar the table's sockets are at (its own appends'), and was
    # decoded there once; the other sidecar never heard it, and never even loaded the table.
    assert decoded == {a.table: k + 1, b.table: k + 1}
    assert pair.ledgers[0].received[b.table] == 0 and pair.ledgers[1].received[a.table] == 0
    assert pair.bus(0).passed == pair.bus(1).passed == 0
    assert b.table not in pair.hub(0).tables and a.table not in pair.hub(1).tables

    # A sidecar that held a connection at a table and has none any more stops listening to it...
    key = derive_user_key(pair.ledgers[0].user_secret(b.table), "p")
    visitor = await Client.connect(pair.url(0), b.table, key, user="p")
    assert b.table in pair.ledgers[0].listened
    await visitor.request(m.Roll(id="v0", check=FacetsCheck(pool=2)))
    since = visitor.seq
    await visitor.close()
    held = pair.hub(0).tables[b.table]
    heard = await gm_b.next(timeout=10)  # sidecar 1 has applied the visitor's roll
    assert isinstance(heard, m.Rolled) and heard.id == "v0"
    await until(lambda: b.table not in pair.ledgers[0].listened)  # the next periodic check lets go of it
    await barrier(1)
    decoded.clear()
    received = pair.ledgers[0].received[b.table]
    for i in range(k):
        await gm_b.request(m.Roll(id=f"b2-{i}", check=FacetsCheck(pool=2)))
    await barrier(2)
    assert pair.ledgers[0].received[b.table] == received  # not one of them reached sidecar 0
    assert decoded == {a.table: 1, b.table: k + 1}
    assert held.table.head == since  # not applied there

    # ...and whoever joins it again there is caught up first: every roll missed, once, then live ones.
    back = await Client.connect(pair.url(0), b.table, key, user="p", since=since)
    assert back.welcome is not None and back.welcome.snapshot is None
    missed = [e.seq for e in back.welcome.events]
    assert missed == list(range(since + 1, since + missed[-1] - since + 1)) and len(missed) == k + 2
    live = await gm_b.request(m.Roll(id="b-live", check=FacetsCheck(pool=2)))
    got = await back.next(timeout=10)
    assert isinstance(got, m.Rolled) and got.id == "b-live" and got.seq == live.seq == missed[-1] + 1
    for c in (back, gm_a, gm_b):
        await c.close()


# --- kill -9 ----------------------------------------------------------------------------------------


ROLLS = 30
"""Rolls each player makes, whatever happens to its sidecar."""


@dataclass
class Person:
    """One person at a table: the events they hear (in their client's order) and the replies they get."""

    name: str
    table: str
    key: str
    user: str
    url: str
    client: Client | None = None
    heard: list[int] = field(default_factory=list)
    """Seqs of the events this person was told of: broadcasts, welcome catch-ups, replies to their own rolls."""
    moves: int = 0
    acked: dict[str, int] = field(default_factory=dict)
    """Each of their request ids and the seq its reply named."""

    def take(self, msg: Any) -> None:
        if msg is not None and getattr(msg, "seq", None) is not None:
            self.heard.append(msg.seq)

    def drain(self) -> None:
        assert self.client is not None
        while not self.client.inbox.empty():
            self.take(self.client.inbox.get_nowait())

    async def connect(self, since: int | None = None) -> None:
        self.client = await Client.connect(self.url, self.table, self.key, user=self.user, since=since)
        assert self.client.welcome is not None
        if since is not None:
            assert self.client.welcome.snapshot is None
            self.heard += [e.seq for e in self.client.welcome.events]


async def test_kill_9_a_sidecar_its_tables_clients_move_to_the_next_one_and_miss_nothing(pg_url: str, tmp_path: Path):
    procs = [
        Process(tmp_path / f"data{i}", free_port(), ("--ledger", pg_url), log=tmp_path / f"sidecar{i}.log")
        for i in range(3)
    ]
    for p in procs:
        p.start()
    try:
        urls = [p.url for p in procs]
        made = [json.loads(verdict("table", "--ledger", pg_url, "create", n, "--json").stdout) for n in ("a", "b")]
        routed, spread = made
        victim = urls.index(pick(urls, request_uri(routed["table"])))  # the sidecar table a's sockets all reach
        alive = [u for i, u in enumerate(urls) if i != victim]

        people: list[Person] = []
        for t, spread_over in ((routed, None), (spread, urls)):
            names = [f"p{i}" for i in range(3)]
            user_keys = {
                n: verdict("table", "--ledger", pg_url, "user-key", t["table"], n).stdout.strip() for n in names
            }
            for j, name in enumerate([*names, "gm"]):
                # Table a as the proxy routes it; table b as a round-robin balancer would (one person on
                # each sidecar, the dead one included): either way nothing may be lost.
                url = pick(urls, request_uri(t["table"])) if spread_over is None else spread_over[j % len(spread_over)]
                key = t["gm"] if name == "gm" else user_keys[name]
                people.append(Person(f"{t['table'][:6]}/{name}", t["table"], key, name, url))
        for person in people:
            await person.connect()
        first = [p.url for p in people]
        assert {p.url for p in people[:4]} == {urls[victim]}
        assert urls[victim] in {p.url for p in people[4:]}

        killed = asyncio.Event()
        acks = 0

        async def move(person: Person) -> None:
            """What a client does when its socket drops: the proxy now routes the table elsewhere."""
            assert person.client is not None
            await person.client.close()
            person.drain()
            since = person.client.seq
            person.url = pick(alive, request_uri(person.table))
            person.moves += 1
            for _ in range(100):
                try:
                    await person.connect(since)
                    return
                except (TimeoutError, OSError, websockets.InvalidHandshake):
                    await asyncio.sleep(0.1)
            raise AssertionError(f"{person.name} could not reconnect")

        async def play(person: Person) -> None:
            nonlocal acks
            n = 0
            while n < ROLLS:
                rid = f"{person.user}-{n}"
                assert person.client is not None
                try:
                    reply = await person.client.request(m.Roll(id=rid, check=FacetsCheck(pool=3)), timeout=10)
                except (ConnectionError, TimeoutError, websockets.ConnectionClosed):
                    await killed.wait()
                    await move(person)
                    continue  # the same id again: answered from the ledger if the dead sidecar took it
                assert isinstance(reply, m.Rolled)
                if rid in person.acked:
                    assert reply.seq == person.acked[rid]
                elif reply.seq not in person.heard:  # else it is a retry's answer of a roll heard already
                    person.take(reply)
                person.acked[rid] = reply.seq
                n += 1
                acks += 1

        async def watch(person: Person) -> None:
            """The GM rolls nothing; it only hears, and moves when its socket drops."""
            assert person.client is not None
            while True:
                msg = await person.client.next(timeout=60)
                if msg is None:  # the socket dropped
                    await killed.wait()
                    await move(person)
                    continue
                person.take(msg)

        players = [asyncio.create_task(play(p)) for p in people if p.user != "gm"]
        watchers = [asyncio.create_task(watch(p)) for p in people if p.user == "gm"]
        await until(lambda: acks >= 20, timeout=60)
        procs[victim].stop(signal.SIGKILL)
        killed.set()
        await asyncio.wait_for(asyncio.gather(*players), 120)

        ledger = open_ledger(pg_url, Path("."))
        try:
            seqs = {t["table"]: [s for s, _ in ledger.events(t["table"])] for t in made}
        finally:
            ledger.close()
        for t in made:  # every roll of every player in the ledger once: none lost, none rolled twice
            assert seqs[t["table"]] == list(range(1, 3 * ROLLS + 1))
        for person in people:
            if person.user != "gm":
                assert len(person.acked) == ROLLS and len(set(person.acked.values())) == ROLLS

        def told_all() -> bool:
            for p in people:
                if p.user != "gm":
                    p.drain()
            return all(len(set(p.heard)) >= len(seqs[p.table]) for p in people)

        await until(told_all, timeout=60)
        for w in watchers:
            w.cancel()
        await asyncio.gather(*watchers, return_exceptions=True)
        for person in people:
            heard = person.heard
            assert sorted(heard) == seqs[person.table], (
                f"{person.name} missed {sorted(set(seqs[person.table]) - set(heard))[:10]}, "
                f"heard twice {[s for s, n in Counter(heard).items() if n > 1][:10]}"
            )
            if person.user == "gm":  # what one socket is told comes in order
                assert heard == sorted(heard), f"{person.name} heard out of order"
        # Only the dead sidecar's people moved, once; table a's all to the one the proxy ranks next for it.
        assert [p.moves for p in people] == [int(u == urls[victim]) for u in first]
        assert {p.url for p in people[:4]} == {pick(alive, request_uri(routed["table"]))}
        for person in people:
            assert person.client is not None
            await person.client.close()
    finally:
        for p in procs:
            if p.proc is not None:
                p.stop()
