"""A socket's frames after the websocket is open (sidecar/server/dispatch.py): each charged, decoded and handed
to ``hello`` or to the table. What it promises: every frame is charged, a refused one answered (with its id
when it can be read) and the socket kept; a frame over the limit, of the other encoding, or that is no
request is refused with its code; nothing but ``hello`` before ``hello``, and no second one; ``ping``,
``state``, ``verify``, ``odds`` and ``user_key`` answered as the protocol says, odds off the loop with a
bounded queue; a fault is ``internal_error`` and the socket stays up. Real websocket clients against the real
app over the real SQLite ledger."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import websockets
from aiohttp.test_utils import TestServer

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar.client import Client
from sidecar.server.app import METRICS, Settings, create_app
from sidecar.state.keys import derive_user_key
from sidecar.state.ledger import SqliteLedger

from ..conftest import Sidecar, free_port
from ..wire import refused, roll


@contextlib.asynccontextmanager
async def serving(tmp_path: Path, ledger: SqliteLedger | None = None, **knobs: Any) -> AsyncIterator[Sidecar]:
    """The real app on a real port with these knobs (a generous rate unless one is given), and one table."""
    ledger = ledger or SqliteLedger(tmp_path / "verdict.sqlite3")
    keys = ledger.create_table("test")
    app = create_app(Settings(data=tmp_path, **{"rate": 1e6, "burst": 1e6, **knobs}), ledger)
    server = TestServer(app, host="127.0.0.1", port=free_port())
    await server.start_server()
    try:
        sidecar = Sidecar(url=f"ws://127.0.0.1:{server.port}/ws", keys=keys, ledger=ledger, server=server)
        sidecar.app = app  # type: ignore[attr-defined]
        yield sidecar
    finally:
        await server.close()


async def _socket(sidecar: Sidecar, msgpack: bool = False, hello: bool = True):
    ws = await websockets.connect(
        sidecar.url, subprotocols=["verdict.v1+msgpack" if msgpack else "verdict.v1"], compression=None
    )
    if hello:
        await _send(ws, {"type": "hello", "table": sidecar.keys.table, "key": sidecar.keys.gm, "user": "gm"}, msgpack)
        assert (await _recv(ws))["type"] == "welcome"
    return ws


async def _send(ws, msg: dict, msgpack: bool = False) -> None:
    await ws.send(msgspec.msgpack.encode(msg) if msgpack else json.dumps(msg))


async def _recv(ws) -> dict:
    frame = await ws.recv()
    return msgspec.msgpack.decode(frame) if isinstance(frame, bytes) else json.loads(frame)


async def _alive(ws, msgpack: bool = False) -> None:
    await _send(ws, {"type": "ping", "id": "alive"}, msgpack)
    assert await _recv(ws) == {"type": "pong", "id": "alive"}


async def test_only_hello_comes_first(sidecar: Sidecar) -> None:
    ws = await _socket(sidecar, hello=False)
    for first in ({"type": "ping", "id": "p"}, {"type": "roll", "id": "r", "check": {"system": "facets", "pool": 1}}):
        await _send(ws, first)
        said = await _recv(ws)
        assert said["type"] == "error" and said["code"] == "hello_required" and said["id"] == first["id"]
    await _send(ws, {"type": "hello", "table": sidecar.keys.table, "key": sidecar.keys.gm})
    assert (await _recv(ws))["type"] == "welcome"  # the socket stayed up, and its hello is heard now
    await _send(ws, {"type": "hello", "table": sidecar.keys.table, "key": sidecar.keys.gm})
    said = await _recv(ws)
    assert said["type"] == "error" and said["code"] == "already_joined"
    await _alive(ws)
    assert sidecar.ledger.events(sidecar.keys.table) == []
    await ws.close()


async def test_a_frame_over_the_limit_is_refused_and_the_next_is_heard(tmp_path: Path) -> None:
    async with serving(tmp_path, max_frame=1024) as sidecar:
        ws = await _socket(sidecar)
        await _send(ws, {"type": "roll", "id": "big", "check": {"system": "facets", "pool": 1}, "label": "x" * 2000})
        said = await _recv(ws)
        assert said["type"] == "error" and said["code"] == "frame_too_large" and "1024" in said["message"]
        await _alive(ws)
        assert sidecar.ledger.events(sidecar.keys.table) == []
        await ws.close()


@pytest.mark.parametrize("msgpack", [False, True])
async def test_a_frame_of_the_other_encoding_is_refused(sidecar: Sidecar, msgpack: bool) -> None:
    ws = await _socket(sidecar, msgpack=msgpack)
    ping = {"type": "ping", "id": "p"}
    await ws.send(json.dumps(ping) if msgpack else msgspec.msgpack.encode(ping))
    said = await _recv(ws)
    assert said["type"] == "error" and said["code"] == "bad_frame"
    assert ("send binary frames" if msgpack else "send text frames") in said["message"]
    await _alive(ws, msgpack)
    await ws.close()


@pytest.mark.parametrize("msgpack", [False, True])
async def test_a_refused_frame_is_answered_with_its_id_and_charged_all_the_same(tmp_path: Path, msgpack: bool) -> None:
    async with serving(tmp_path, rate=0.1, burst=2) as sidecar:
        ws = await _socket(sidecar, msgpack=msgpack, hello=False)  # the hello takes one of the two tokens
        hello = {"type": "hello", "table": sidecar.keys.table, "key": sidecar.keys.gm, "user": "gm"}
        await _send(ws, hello, msgpack)
        assert (await _recv(ws))["type"] == "welcome"
        await _send(ws, {"type": "dance", "id": "d"}, msgpack)  # refused, and charged: the bucket is empty now
        assert (await _recv(ws))["code"] == "unknown_type"
        await _send(ws, {"type": "roll", "id": "too-soon", "check": {"system": "facets", "pool": 1}}, msgpack)
        said = await _recv(ws)
        assert said == {"type": "error", "code": "rate_limited", "id": "too-soon", "message": said["message"]}
        assert "at most 0.1 requests per second" in said["message"]
        assert sidecar.ledger.events(sidecar.keys.table) == []
        assert ws.close_code is None  # answered, never cut for it
        await ws.close()


async def test_ping_state_and_verify_are_answered_by_id(sidecar: Sidecar) -> None:
    gm = await sidecar.client("gm", user="gm")
    ann = await sidecar.client("player", user="ann")
    pong = await gm.request(m.Ping(id="p-1"))
    assert pong == m.Pong(id="p-1")
    public = await roll(gm, FacetsCheck(pool=2), label="in the open")
    hidden = await roll(gm, FacetsCheck(pool=2), mode="gm", label="behind the screen")
    state = await ann.request(m.State(id="s-1"))
    assert isinstance(state, m.StateReply) and state.id == "s-1" and state.snapshot.seq == public.seq
    for who in (gm, ann):
        verified = await who.request(m.Verify(id=who.new_id(), check=public.check))
        assert isinstance(verified, m.Verified) and verified.found and verified.check == public.check
        assert (verified.result, verified.label) == (public.result, "in the open")
    assert (await gm.request(m.Verify(id="v-none", check="no-such-check"))).found is False
    gm_view = await gm.request(m.Verify(id="v-gm", check=hidden.check))
    assert (gm_view.found, gm_view.result, gm_view.label) == (True, hidden.result, "behind the screen")
    ann_view = await ann.request(m.Verify(id="v-ann", check=hidden.check))
    assert (ann_view.result, ann_view.label) == (None, None)  # a GM-only roll: nothing of what it rolled
    for c in (gm, ann):
        await c.close()


async def test_odds_are_answered_and_a_full_queue_says_busy(tmp_path: Path) -> None:
    async with serving(tmp_path) as sidecar:
        gm = await sidecar.client("gm", user="gm")
        odds = await gm.request(m.Odds(id="o", check=FacetsCheck(pool=3)))
        assert isinstance(odds, m.OddsReply) and odds.id == "o" and odds.check == FacetsCheck(pool=3)
        await gm.close()
    async with serving(tmp_path / "none-waiting", odds_queue=0) as sidecar:
        gm = await sidecar.client("gm", user="gm")
        assert await refused(gm.request(m.Odds(id="o", check=FacetsCheck(pool=3)))) == "busy"
        assert isinstance(await gm.request(m.Ping(id="up")), m.Pong)
        await gm.close()


async def test_the_gm_gets_a_users_key_and_nobody_else_does(sidecar: Sidecar) -> None:
    gm = await sidecar.client("gm", user="gm")
    ann = await sidecar.client("player", user="ann")
    observer = await sidecar.client("observer")
    for c in (ann, observer):
        assert await refused(c.request(m.UserKey(id="k", user="bob"))) == "forbidden"
    for bad in ("", "u" * 1000):
        assert await refused(gm.request(m.UserKey(id="k", user=bad))) == "invalid_message"
    got = await gm.request(m.UserKey(id="k", user="bob"))
    assert isinstance(got, m.UserKeyReply) and got.user == "bob"
    assert got.key == derive_user_key(sidecar.ledger.user_secret(sidecar.keys.table), "bob")  # type: ignore[arg-type]
    bob = await Client.connect(sidecar.url, sidecar.keys.table, got.key, user="bob")  # the key lets bob in
    assert bob.welcome is not None and bob.welcome.role == "player"
    for c in (gm, ann, observer, bob):
        await c.close()


class NoSecret(SqliteLedger):
    """A ledger that holds no user secret for its table: asking for a user's key is a fault of the sidecar."""

    async def find_user_secret(self, table_id: str) -> bytes | None:
        return None


async def test_a_fault_is_an_internal_error_and_the_socket_stays_up(tmp_path: Path) -> None:
    async with serving(tmp_path, NoSecret(tmp_path / "verdict.sqlite3")) as sidecar:
        gm = await sidecar.client("gm", user="gm")
        assert await refused(gm.request(m.UserKey(id="k", user="bob"))) == "internal_error"
        assert isinstance(await gm.request(m.Ping(id="up")), m.Pong)
        await gm.close()


async def test_each_request_is_counted_by_type(tmp_path: Path) -> None:
    async with serving(tmp_path) as sidecar:
        gm = await sidecar.client("gm", user="gm")
        await gm.request(m.Ping(id="p"))
        await roll(gm, FacetsCheck(pool=1))
        await gm.request(m.State(id="s"))
        counted = sidecar.app[METRICS].requests  # type: ignore[attr-defined]
        assert (counted["hello"], counted["ping"], counted["roll"], counted["state"]) == (1, 1, 1, 1)
        await gm.close()
