"""The hub (sidecar/server/hub.py): the tables a sidecar holds, and the path of a state-changing request
through them. What it promises: a request id is answered once per requester (the same id again, even at
once, is answered from its first reply, never rolled again; someone else's same id is another request);
only the GM acts for a user, and an observer or the table-wide player key does not act; the requester hears
its reply, everyone else on the table what they may see, in seq order, each in its own encoding; the
ledger holds what anyone was told. Real websocket clients against the real app over the real SQLite ledger,
and the hub's public functions."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import msgspec
import pytest
import websockets

from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.facets import FacetsCheck
from sidecar.client import Client
from sidecar.server.app import HUB
from sidecar.server.hub import KEYS_ROTATED, Connection, Hub, client_request_id
from sidecar.state.ledger import SqliteLedger

from ..conftest import Sidecar
from ..wire import refused, roll


async def _hello(sidecar: Sidecar, key: str, user: str | None = None, msgpack: bool = False):
    ws = await websockets.connect(
        sidecar.url, subprotocols=["verdict.v1+msgpack" if msgpack else "verdict.v1"], compression=None
    )
    hello = {"type": "hello", "protocol": 1, "table": sidecar.keys.table, "key": key, "user": user}
    await ws.send(msgspec.msgpack.encode(hello) if msgpack else json.dumps(hello))
    welcome = _decoded(await ws.recv())
    assert welcome["type"] == "welcome", welcome
    return ws


def _decoded(frame: str | bytes) -> dict:
    return msgspec.msgpack.decode(frame) if isinstance(frame, bytes) else json.loads(frame)


async def test_the_same_id_sent_at_once_from_two_sockets_of_one_requester_is_rolled_once(sidecar: Sidecar) -> None:
    key = sidecar.user_key("ann")
    one, two = await _hello(sidecar, key, "ann"), await _hello(sidecar, key, "ann")
    frame = json.dumps({"type": "roll", "id": "twice", "check": {"system": "facets", "pool": 3}})
    ping = json.dumps({"type": "ping", "id": "after"})
    # the second waits for the first, then is answered from it; each socket's pong follows its reply
    await asyncio.gather(one.send(frame), two.send(frame))
    await asyncio.gather(one.send(ping), two.send(ping))
    heard = [await _until_pong(one), await _until_pong(two)]
    assert [seq for seq, _ in sidecar.ledger.events(sidecar.keys.table)] == [1]
    rolled = [f for frames in heard for f in frames]
    assert {f["type"] for f in rolled} == {"rolled"} and all(f["seq"] == 1 for f in rolled)
    assert all(frames for frames in heard)
    assert len({json.dumps(f["result"]) for f in rolled}) == 1
    for ws in (one, two):
        await ws.close()


async def _until_pong(ws) -> list[dict]:
    """The frames a socket hears up to its pong."""
    frames = []
    while (frame := _decoded(await ws.recv()))["type"] != "pong":
        frames.append(frame)
    return frames


async def test_a_repeated_id_is_answered_on_another_socket_of_the_same_requester(sidecar: Sidecar) -> None:
    first = await sidecar.client("player", user="ann")
    rolled = await roll(first, FacetsCheck(pool=2), mode="self")
    await first.close()
    again = await sidecar.client("player", user="ann")
    assert await again.request(m.Roll(id=rolled.id, check=FacetsCheck(pool=5))) == rolled  # not rolled again
    assert [seq for seq, _ in sidecar.ledger.events(sidecar.keys.table)] == [rolled.seq]
    await again.close()


async def test_the_same_id_from_someone_else_is_another_request(sidecar: Sidecar) -> None:
    ann = await sidecar.client("player", user="ann")
    bob = await sidecar.client("player", user="bob")
    gm = await sidecar.client("gm", user="gm")
    mine = await ann.request(m.Roll(id="same", check=FacetsCheck(pool=2)))
    theirs = await bob.request(m.Roll(id="same", check=FacetsCheck(pool=2)))
    gms = await gm.request(m.Roll(id="same", check=FacetsCheck(pool=2)))
    assert (mine.seq, theirs.seq, gms.seq) == (1, 2, 3)
    assert (mine.user, theirs.user) == ("ann", "bob") and len({mine.check, theirs.check, gms.check}) == 3
    for c in (ann, bob, gm):
        await c.close()


async def test_who_may_act_and_a_refusal_stores_nothing(sidecar: Sidecar) -> None:
    observer = await sidecar.client("observer")
    table_wide = await Client.connect(sidecar.url, sidecar.keys.table, sidecar.keys.player)
    ann = await sidecar.client("player", user="ann")
    gm = await sidecar.client("gm", user="gm")
    pool = FacetsCheck(pool=1)
    assert await refused(observer.request(m.Roll(id="o", check=pool))) == "forbidden"
    assert await refused(table_wide.request(m.Roll(id="w", check=pool))) == "forbidden"
    assert await refused(ann.request(m.Roll(id="a", check=pool, user="bob"))) == "forbidden"
    assert await refused(ann.request(m.Gm(id="g", op=t.SceneActivate(scene="S")))) == "forbidden"
    assert sidecar.ledger.events(sidecar.keys.table) == []
    assert sidecar.ledger.request_ids(sidecar.keys.table) == []
    # the GM acts on behalf of a user: the roll is that user's
    for_bob = await gm.request(m.Roll(id="for-bob", check=pool, user="bob"))
    assert for_bob.user == "bob" and for_bob.seq == 1
    assert isinstance(await ann.request(m.Ping(id="up")), m.Pong)  # every refused socket stays up
    for c in (observer, table_wide, ann, gm):
        await c.close()


async def test_the_requester_hears_its_reply_once_and_everyone_else_the_roll(sidecar: Sidecar) -> None:
    gm = await sidecar.client("gm", user="gm")
    ann = await sidecar.client("player", user="ann")
    observer = await sidecar.client("observer")
    rolled = await roll(ann, FacetsCheck(pool=3))
    for other in (gm, observer):
        heard = await other.next()
        assert isinstance(heard, m.Rolled) and heard.id == rolled.id and heard.result == rolled.result
    await ann.request(m.Ping(id="after"))  # answered after anything the roll sent this socket
    assert ann.inbox.empty()  # its reply came as the reply, not a second time as a broadcast
    for c in (gm, ann, observer):
        await c.close()


async def test_a_json_and_a_msgpack_socket_hear_the_same_roll_each_in_its_encoding(sidecar: Sidecar) -> None:
    as_json = await _hello(sidecar, sidecar.keys.observer)
    as_msgpack = await _hello(sidecar, sidecar.keys.observer, msgpack=True)
    gm = await sidecar.client("gm", user="gm")
    rolled = await roll(gm, FacetsCheck(pool=3, dice=[6, 4, 1]))
    text, binary = await as_json.recv(), await as_msgpack.recv()
    assert isinstance(text, str) and isinstance(binary, bytes)
    assert _decoded(text) == _decoded(binary)
    assert _decoded(text)["id"] == rolled.id and _decoded(text)["seq"] == rolled.seq
    for ws in (as_json, as_msgpack):
        await ws.close()
    await gm.close()


async def test_rolls_at_once_from_many_sockets_are_numbered_in_turn_and_heard_in_seq_order(sidecar: Sidecar) -> None:
    players = [await sidecar.client("player", user=f"p{i}") for i in range(5)]
    observer = await sidecar.client("observer")
    replies = await asyncio.gather(
        *(p.request(m.Roll(id=f"{i}-{n}", check=FacetsCheck(pool=1))) for i, p in enumerate(players) for n in range(4))
    )
    seqs = sorted(r.seq for r in replies)
    assert seqs == list(range(1, 21))  # one seq each, none lost, none twice
    heard = [await observer.next() for _ in range(20)]
    assert [h.seq for h in heard] == seqs  # in seq order
    assert {(h.user, h.id) for h in heard} == {(r.user, r.id) for r in replies}
    assert [seq for seq, _ in sidecar.ledger.events(sidecar.keys.table)] == seqs  # durable, all of it
    for c in (*players, observer):
        await c.close()


def test_a_request_key_is_the_requester_and_the_id_and_the_id_reads_back() -> None:
    conn = Connection(send=None, role="player", user='ann "the" bold')
    other = Connection(send=None, role="player", user="bob")
    for rid in ("r1", 'quote " and \\ back', "é ☃ \x00", ""):
        key = conn.request_key(rid)
        assert key == json.dumps(["player", 'ann "the" bold', rid], separators=(",", ":"))
        assert client_request_id(key) == rid
        assert other.request_key(rid) != key  # the same id from someone else is another request
    gm = Connection(send=None, role="gm", user=None)
    assert gm.request_key("x") == '["gm",null,"x"]' and client_request_id(gm.request_key("x")) == "x"
    for stored in ("plain-id", "[not json", '["two","items"]'):  # a key of no requester is the id itself
        assert client_request_id(stored) == stored


async def test_the_hub_holds_one_table_per_id_and_knows_no_table_it_was_not_given(tmp_path: Path) -> None:
    ledger = SqliteLedger(tmp_path / "verdict.sqlite3")
    keys = ledger.create_table("held")
    hub = Hub(ledger)
    try:
        assert await hub.open_table("no-such-table") is None
        first, second = await asyncio.gather(hub.open_table(keys.table), hub.open_table(keys.table))
        assert first is not None and first is second and hub.tables == {keys.table: first}
        assert first.table.id == keys.table and first.table.head == 0
    finally:
        hub.close()


@pytest.mark.parametrize("idle", [True, False])
async def test_an_unloaded_table_comes_back_with_its_events(tmp_path: Path, idle: bool) -> None:
    ledger = SqliteLedger(tmp_path / "verdict.sqlite3")
    keys = ledger.create_table("held")
    hub = Hub(ledger)
    try:
        held = await hub.open_table(keys.table)
        assert held is not None
        gm = Connection(send=_discard, role="gm", user="gm")
        await hub.request(held, gm, m.Roll(id="r", check=FacetsCheck(pool=2)))
        if idle:
            assert await hub.unload(held) and keys.table not in hub.tables
            del held  # nothing holds it any more: the next join reads it from the ledger
        back = await hub.open_table(keys.table)
        assert back is not None and back.table.head == 1 and hub.tables[keys.table] is back
        await hub.request(back, gm, m.Roll(id="r", check=FacetsCheck(pool=2)))  # answered, not rolled again
        assert back.table.head == 1 and [s for s, _ in ledger.events(keys.table)] == [1]
    finally:
        hub.close()


async def test_a_table_in_use_is_not_let_go_of(tmp_path: Path) -> None:
    ledger = SqliteLedger(tmp_path / "verdict.sqlite3")
    keys = ledger.create_table("held")
    hub = Hub(ledger)
    try:
        held = await hub.open_table(keys.table)
        assert held is not None
        held.connections.add(Connection(send=_discard, role="observer", user=None))
        assert not await hub.unload(held) and hub.tables[keys.table] is held
    finally:
        hub.close()


async def _discard(data: bytes) -> None:
    pass


async def test_a_snapshot_is_written_once_due_and_a_restart_reads_the_same_table(tmp_path: Path) -> None:
    ledger = SqliteLedger(tmp_path / "verdict.sqlite3")
    keys = ledger.create_table("held")
    hub = Hub(ledger)
    hub.snapshot_every = 3
    check = FacetsCheck(pool=2, dice=[6, 5])  # a success, no double six: one event a roll, nothing it creates
    try:
        held = await hub.open_table(keys.table)
        assert held is not None
        gm = Connection(send=_discard, role="gm", user="gm")
        await hub.request(held, gm, m.Roll(id="r1", check=check, actor="Ayla"))
        await hub.housekeeping()
        assert hub.snapshots == 0 and ledger.snapshot(keys.table) is None  # not due yet
        for rid in ("r2", "r3"):
            await hub.request(held, gm, m.Roll(id=rid, check=check, actor="Ayla"))
        await hub.housekeeping()
        stored = ledger.snapshot(keys.table)
        assert hub.snapshots == 1 and stored is not None and stored[0] == 3
        seen = held.table.snapshot(gm.viewer)
    finally:
        hub.close()
    again = Hub(ledger)
    try:
        back = await again.open_table(keys.table)
        assert back is not None and back.table.head == 3
        assert back.table.snapshot(gm.viewer) == seen
    finally:
        again.close()


async def test_rotated_keys_end_the_sessions_let_in_with_the_old_ones(sidecar: Sidecar) -> None:
    gm = await _hello(sidecar, sidecar.keys.gm, "gm")
    observer = await _hello(sidecar, sidecar.keys.observer)
    hub = sidecar.server.app[HUB]  # type: ignore[union-attr]
    assert await hub.check_keys([sidecar.keys.table]) == 0  # the keys they came in with: nothing ends
    new = sidecar.ledger.rotate_keys(sidecar.keys.table)
    assert await hub.check_keys([sidecar.keys.table]) == 2
    for ws in (gm, observer):
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await ws.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == KEYS_ROTATED
    fresh = await Client.connect(sidecar.url, sidecar.keys.table, new.gm, user="gm")  # the new key opens it
    assert await hub.check_keys([sidecar.keys.table]) == 0
    await fresh.close()
