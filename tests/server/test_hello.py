"""A socket's ``hello`` (sidecar/server/hello.py): the key first, then the seat, then the table and the
welcome. What it promises: a protocol it does not speak is refused (4400); a hello naming another table than
the socket's URL is refused and the socket kept for one that matches; a wrong key, an unknown table or the
table-wide player key claiming a user is refused (4401) before any table is read; a seat over a cap is
refused with 1013 (try again later); a welcome says who the socket is, and brings what it missed since its
``since`` or else a snapshot; a GM connection that names no user acts as one requester per GM key. Real
websocket clients against the real app over the real SQLite ledger, and the module's public functions."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from aiohttp.test_utils import TestServer

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar import __version__
from sidecar.client import Client
from sidecar.server.app import HUB, Settings, create_app
from sidecar.server.hello import gm_requester, shown
from sidecar.state.ledger import SqliteLedger

from ..conftest import Sidecar, free_port
from ..wire import roll


@contextlib.asynccontextmanager
async def serving(tmp_path: Path, **knobs: Any) -> AsyncIterator[tuple[Sidecar, Any]]:
    """The real app on a real port with these knobs, one table, and the app (to see which tables it holds)."""
    ledger = SqliteLedger(tmp_path / "verdict.sqlite3")
    keys = ledger.create_table("test")
    app = create_app(Settings(data=tmp_path, **{"rate": 1e6, "burst": 1e6, **knobs}), ledger)
    server = TestServer(app, host="127.0.0.1", port=free_port())
    await server.start_server()
    try:
        yield Sidecar(url=f"ws://127.0.0.1:{server.port}/ws", keys=keys, ledger=ledger, server=server), app
    finally:
        await server.close()


async def _open(url: str) -> Any:
    return await websockets.connect(url, subprotocols=["verdict.v1"], compression=None)


async def _hello(ws: Any, **fields: Any) -> dict:
    await ws.send(json.dumps({"type": "hello", **fields}))
    return json.loads(await ws.recv())


async def _closed_with(ws: Any) -> int:
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await ws.recv()
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code


async def test_a_protocol_it_does_not_speak_is_refused_with_4400(sidecar: Sidecar) -> None:
    ws = await _open(sidecar.url)
    said = await _hello(ws, protocol=2, table=sidecar.keys.table, key=sidecar.keys.gm)
    assert said["type"] == "error" and said["code"] == "unsupported_protocol" and "protocol 1" in said["message"]
    assert await _closed_with(ws) == 4400


async def test_a_hello_for_another_table_than_the_urls_is_refused_and_the_socket_kept(sidecar: Sidecar) -> None:
    ws = await _open(f"{sidecar.url}?table={sidecar.keys.table}")
    said = await _hello(ws, table="another-table", key=sidecar.keys.gm)
    assert said["type"] == "error" and said["code"] == "invalid_message"
    assert "/ws?table=another-table" in said["message"]
    welcome = await _hello(ws, table=sidecar.keys.table, key=sidecar.keys.gm)
    assert welcome["type"] == "welcome" and welcome["table"] == sidecar.keys.table
    await ws.close()


@pytest.mark.parametrize("who", ["wrong key", "unknown table", "table-wide key as a user", "user id too long"])
async def test_a_refused_key_is_closed_with_4401_and_reads_no_table(tmp_path: Path, who: str) -> None:
    async with serving(tmp_path) as (sidecar, app):
        keys = sidecar.keys
        hello = {
            "wrong key": {"table": keys.table, "key": "not-the-key"},
            "unknown table": {"table": "no-such-table", "key": keys.gm},
            "table-wide key as a user": {"table": keys.table, "key": keys.player, "user": "ann"},
            "user id too long": {"table": keys.table, "key": keys.gm, "user": "u" * 1000},
        }[who]
        ws = await _open(sidecar.url)
        said = await _hello(ws, **hello)
        code = "user_key_required" if who == "table-wide key as a user" else "unauthorized"
        assert said["type"] == "error" and said["code"] == code
        assert await _closed_with(ws) == 4401
        assert app[HUB].tables == {}  # the key first: nobody read the table for it
        gm = await Client.connect(sidecar.url, keys.table, keys.gm, user="gm")  # the right key is let in
        assert list(app[HUB].tables) == [keys.table]
        await gm.close()


async def test_a_seat_over_its_cap_is_refused_with_try_again_later(tmp_path: Path) -> None:
    async with serving(tmp_path, max_per_user=1) as (sidecar, _):
        ann = await sidecar.client("player", user="ann")
        ws = await _open(sidecar.url)
        said = await _hello(ws, table=sidecar.keys.table, key=sidecar.user_key("ann"), user="ann")
        assert said["type"] == "error" and said["code"] == "too_many_connections"
        assert "--max-per-user" in said["message"]
        assert await _closed_with(ws) == 1013
        assert isinstance(await ann.request(m.Ping(id="up")), m.Pong)  # the seated one is not disturbed
        await ann.close()
        again = await sidecar.client("player", user="ann")  # its seat given back as it closed
        await again.close()


async def test_the_welcome_says_who_and_brings_what_was_missed_since_or_a_snapshot(sidecar: Sidecar) -> None:
    gm = await sidecar.client("gm", user="gm")
    rolled = [await roll(gm, FacetsCheck(pool=1)) for _ in range(3)]
    fresh = await sidecar.client("observer")
    welcome = fresh.welcome
    assert welcome is not None
    assert (welcome.protocol, welcome.role, welcome.table, welcome.seq) == (1, "observer", sidecar.keys.table, 3)
    assert welcome.server == f"verdict/{__version__}"
    assert welcome.snapshot is not None and welcome.events == []
    back = await Client.connect(sidecar.url, sidecar.keys.table, sidecar.user_key("ann"), user="ann", since=1)
    assert back.welcome is not None and back.welcome.role == "player" and back.welcome.snapshot is None
    assert [e.seq for e in back.welcome.events] == [2, 3]
    assert [e.event.check_id for e in back.welcome.events] == [r.check for r in rolled[1:]]
    ahead = await Client.connect(sidecar.url, sidecar.keys.table, sidecar.keys.observer, since=99)
    assert ahead.welcome is not None and ahead.welcome.snapshot is not None  # another numbering: a snapshot
    for c in (gm, fresh, back, ahead):
        await c.close()


async def test_a_gm_naming_no_user_is_one_requester_on_every_socket(sidecar: Sidecar) -> None:
    first = await Client.connect(sidecar.url, sidecar.keys.table, sidecar.keys.gm)
    rolled = await first.request(m.Roll(id="once", check=FacetsCheck(pool=2), mode="self"))
    assert rolled.user == gm_requester(sidecar.keys.gm)
    await first.close()
    second = await Client.connect(sidecar.url, sidecar.keys.table, sidecar.keys.gm)
    assert await second.request(m.Roll(id="once", check=FacetsCheck(pool=2), mode="self")) == rolled
    assert len(sidecar.ledger.events(sidecar.keys.table)) == 1  # answered, not rolled again
    await second.close()


def test_a_gm_requester_is_the_keys_own_and_tells_nothing_of_it() -> None:
    one, same, other = gm_requester("key-one"), gm_requester("key-one"), gm_requester("key-two")
    assert one == same and one != other
    assert one.startswith("gm-") and len(one) == 19 and int(one[3:], 16) >= 0
    assert "key-one" not in one


def test_a_peers_text_is_quoted_escaped_and_cut_in_the_log() -> None:
    assert shown("table-1") == "'table-1'"
    assert shown("a\nb\x1b[31m") == repr("a\nb\x1b[31m") and "\n" not in shown("a\nb")
    long = "x" * 200
    assert shown(long) == repr("x" * 64 + "…") and shown(long, at_most=5) == repr("xxxxx…")
