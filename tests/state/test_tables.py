"""Tables: isolated from each other, keys stored hashed, rate limits, resync by snapshot."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
from aiohttp.test_utils import TestServer

from protocol.v1 import challenge as challenge_t
from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar.client import Client, RequestFailed
from sidecar.server.app import Settings, create_app
from sidecar.state import hearing as hearing_module
from sidecar.state.ledger import SqliteLedger

from ..conftest import free_port


async def test_tables_are_isolated(sidecar):
    other = sidecar.ledger.create_table("other")
    a = await sidecar.client("gm")
    b = await Client.connect(sidecar.url, other.table, other.gm, user="gm-b")
    await a.request(m.Gm(id="k", op=challenge_t.ComplicationAdd(scene="S", text="only on A", hidden=False)))
    await a.request(m.Roll(id="r", check=FacetsCheck(pool=1)))
    with pytest.raises(asyncio.TimeoutError):
        await b.next(timeout=0.3)
    snap = (await b.request(m.State(id="s"))).snapshot
    assert snap.scenes == {} and snap.seq == 0
    # the same request id on another table is another request
    r = await b.request(m.Roll(id="r", check=FacetsCheck(pool=1)))
    assert r.seq == 1
    # a key of one table does not open another
    with pytest.raises(RequestFailed) as e:
        await Client.connect(sidecar.url, other.table, sidecar.keys.gm)
    assert e.value.code == "unauthorized"
    await a.close()
    await b.close()


def test_keys_are_stored_hashed(tmp_path):
    ledger = SqliteLedger(tmp_path / "v.sqlite3")
    keys = ledger.create_table("t")
    ledger.close()
    raw = (tmp_path / "v.sqlite3").read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("v.sqlite3-*"))
    for key in (keys.gm, keys.player, keys.observer):
        assert key.encode() not in raw
    db = sqlite3.connect(tmp_path / "v.sqlite3")
    assert db.execute("SELECT count(*) FROM tables").fetchone() == (1,)


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


async def test_far_behind_gets_a_snapshot(sidecar, monkeypatch):
    monkeypatch.setattr(hearing_module, "RESYNC_LIMIT", 3)
    gm = await sidecar.client("gm")
    for i in range(5):
        await gm.request(m.Gm(id=f"s{i}", op=challenge_t.StrainSet(actor="A", strain=i)))
    near = await sidecar.client("player", user="p", since=3)
    assert [e.seq for e in near.welcome.events] == [4, 5] and near.welcome.snapshot is None
    far = await sidecar.client("player", user="p", since=1)
    assert far.welcome.snapshot is not None and far.welcome.snapshot.actors["A"].strain == 4
    ahead = await sidecar.client("player", user="p", since=99)  # a client from another life of the table
    assert ahead.welcome.snapshot is not None
    for c in (gm, near, far, ahead):
        await c.close()
