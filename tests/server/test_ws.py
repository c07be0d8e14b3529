"""The walking skeleton end to end: a real websockets client against the running app."""

from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest
import websockets

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar.client import RequestFailed
from sidecar.server.app import HUB


async def test_roll_reaches_the_roller_and_the_table(sidecar):
    gm = await sidecar.client("gm")
    player = await sidecar.client("player", user="p1")
    assert gm.welcome.role == "gm" and player.welcome.role == "player"
    rolled = await player.request(m.Roll(id="r1", check=FacetsCheck(pool=3, kind="opposition")))
    assert isinstance(rolled, m.Rolled) and rolled.id == "r1"
    assert type(rolled.result).__name__ == "FacetsResult" and len(rolled.result.dice) == 3
    seen = await gm.next()
    assert isinstance(seen, m.Rolled) and seen.id == "r1" and seen.result == rolled.result
    await gm.close()
    await player.close()


async def test_given_faces_are_read(sidecar):
    c = await sidecar.client()
    r = await c.request(m.Roll(id="x", check=FacetsCheck(pool=3, dice=[6, 6, 2], kind="opposition")))
    assert r.result.outcome == "triumph" and r.result.harm.opponent == ["wound", "condition"]
    await c.close()


async def test_wrong_key_is_refused_with_4401(sidecar):
    async with websockets.connect(sidecar.url, subprotocols=["verdict.v1"]) as ws:
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "table": sidecar.keys.table, "key": "nope"}))
        reply = json.loads(await ws.recv())
        assert reply["type"] == "error" and reply["code"] == "unauthorized"
        with pytest.raises(websockets.ConnectionClosed) as e:
            await ws.recv()
        assert e.value.rcvd.code == 4401


async def _raw(sidecar):
    ws = await websockets.connect(sidecar.url, subprotocols=["verdict.v1"], compression=None)
    await ws.send(
        json.dumps({"type": "hello", "protocol": 1, "table": sidecar.keys.table, "key": sidecar.keys.gm, "client": "t"})
    )
    welcome = json.loads(await ws.recv())
    assert welcome["type"] == "welcome"
    return ws


@pytest.mark.parametrize(
    "frame, code",
    [
        ("not json", "bad_frame"),
        ("[1,2]", "bad_frame"),
        ('{"id":"a"}', "bad_message"),
        ('{"type":"dance","id":"a"}', "unknown_type"),
        ('{"type":"roll","id":"a"}', "invalid_message"),
        ('{"type":"roll","id":"a","check":{"system":"nope"}}', "invalid_message"),
        ('{"type":"roll","id":"a","check":{"system":"facets","pool":"3"}}', "invalid_message"),
        ('{"type":"roll","id":"a","check":{"system":"facets","pool":-2}}', "invalid_check"),
        ('{"type":"roll","id":"a","check":{"system":"facets","pool":2,"dice":[7,1]}}', "invalid_dice"),
        (
            '{"type":"follow","id":"a","check":"nope","action":{"action":"challenge_choice","option":"strain"}}',
            "unknown_check",
        ),
        ('{"type":"hello","table":"t","key":"k"}', "already_joined"),
    ],
)
async def test_bad_frames_get_errors_and_the_socket_stays_up(sidecar, frame, code):
    ws = await _raw(sidecar)
    await ws.send(frame)
    reply = json.loads(await ws.recv())
    assert reply["type"] == "error" and reply["code"] == code, reply
    assert reply["message"]
    if '"id":"a"' in frame:
        assert reply["id"] == "a"
    # still up: a good request after the bad one works
    await ws.send(json.dumps({"type": "roll", "id": "ok", "check": {"system": "facets", "pool": 2}}))
    assert json.loads(await ws.recv())["type"] == "rolled"
    await ws.close()


async def test_oversize_frame_is_refused_politely(sidecar):
    ws = await _raw(sidecar)
    await ws.send(json.dumps({"type": "ping", "id": "big", "pad": "x" * 70_000}))
    reply = json.loads(await ws.recv())
    assert reply["code"] == "frame_too_large"
    await ws.send(json.dumps({"type": "ping", "id": "p"}))
    assert json.loads(await ws.recv()) == {"type": "pong", "id": "p"}
    await ws.close()


async def test_unknown_fields_are_refused(sidecar):
    ws = await _raw(sidecar)
    await ws.send(json.dumps({"type": "roll", "id": "u", "future": 1, "check": {"system": "facets", "pool": 1}}))
    reply = json.loads(await ws.recv())
    assert reply["code"] == "invalid_message" and "`future`" in reply["message"] and reply["id"] == "u"
    await ws.send(json.dumps({"type": "roll", "id": "u2", "check": {"system": "facets", "pool": 1, "later": True}}))
    reply = json.loads(await ws.recv())
    assert reply["code"] == "invalid_message" and "$.check.later" in reply["message"]
    await ws.close()


async def test_a_repeated_id_returns_the_first_reply_and_never_rolls_twice(sidecar):
    c = await sidecar.client("player", user="p1")
    first = await c.request(m.Roll(id="same", check=FacetsCheck(pool=5)))
    again = await c.request(m.Roll(id="same", check=FacetsCheck(pool=5)))
    assert again == first
    assert len(sidecar.ledger.events(sidecar.keys.table)) == 1
    await c.close()


async def test_msgpack_clients(sidecar):
    c = await sidecar.client("gm", msgpack=True)
    r = await c.request(m.Roll(id="mp", check=FacetsCheck(pool=2, dice=[4, 1])))
    assert r.result.outcome == "costly_success"
    await c.close()


async def test_healthz_and_metrics(sidecar):
    base = sidecar.url.replace("ws://", "http://").removesuffix("/ws")
    c = await sidecar.client()
    await c.request(m.Roll(id="m1", check=FacetsCheck(pool=1)))
    async with aiohttp.ClientSession() as s:
        async with s.get(base + "/healthz") as r:
            body = await r.json()
            assert body["status"] == "ok" and body["protocol"] == ["verdict.v1"] and body["version"]
        async with s.get(base + "/metrics") as r:
            text = await r.text()
    assert 'verdict_rolls_total{system="facets"} 1' in text
    assert "verdict_connections 1" in text
    assert "verdict_request_seconds_count" in text
    await c.close()


async def test_origin_allow_list(sidecar):
    with pytest.raises(websockets.InvalidStatus) as e:
        await websockets.connect(sidecar.url, subprotocols=["verdict.v1"], origin="https://evil.example")
    assert e.value.response.status_code == 403
    ok = await websockets.connect(sidecar.url, subprotocols=["verdict.v1"], origin="http://localhost:30000")
    await ok.close()


async def test_hello_first(sidecar):
    async with websockets.connect(sidecar.url, subprotocols=["verdict.v1"]) as ws:
        await ws.send(json.dumps({"type": "ping", "id": "p"}))
        assert json.loads(await ws.recv())["code"] == "hello_required"


async def test_verify_tells_ledger_rolls_from_forged_ones(sidecar):
    c = await sidecar.client("player", user="p1")
    r = await c.request(m.Roll(id="v1", check=FacetsCheck(pool=2, dice=[5, 1])))
    ok = await c.request(m.Verify(id="q1", check=r.check))
    assert ok.found and ok.seq == r.seq and ok.result == r.result
    forged = await c.request(m.Verify(id="q2", check="not-a-check"))
    assert not forged.found and forged.result is None
    await c.close()


async def test_odds_over_the_wire_change_nothing(sidecar):
    from protocol.v1.challenge import ChallengeCheck

    c = await sidecar.client("player", user="p1")
    o = await c.request(m.Odds(id="o1", check=ChallengeCheck(cl=2, modifier=0)))
    assert isinstance(o, m.OddsReply) and type(o.odds).__name__ == "ChallengeOdds"
    by = {x.value: x.chance for x in o.odds.outcome}
    assert by["epic_failure"].num * 20 == by["epic_failure"].den  # only a natural 1 (CL 2 is never missed by 4)
    assert sum(x.chance.num / x.chance.den for x in o.odds.outcome) == pytest.approx(1)
    with pytest.raises(RequestFailed) as e:
        await c.request(m.Odds(id="o2", check=FacetsCheck(pool=-1)))
    assert e.value.code == "invalid_check"
    assert sidecar.ledger.events(sidecar.keys.table) == []
    await c.close()


async def test_the_module_is_served_for_foundrys_installer(sidecar):
    import io
    import zipfile

    base = sidecar.url.replace("ws://", "http://").removesuffix("/ws")
    async with aiohttp.ClientSession() as s:
        async with s.get(base + "/module/module.json") as r:
            manifest = await r.json()
        async with s.get(base + "/module/verdict.zip") as r:
            data = await r.read()
    assert manifest["id"] == "verdict" and manifest["socket"] is True
    assert manifest["manifest"] == base + "/module/module.json" and manifest["download"] == base + "/module/verdict.zip"
    assert manifest["compatibility"] == {"minimum": "13", "verified": "14.369", "maximum": "14"}
    archive = zipfile.ZipFile(io.BytesIO(data))
    names = archive.namelist()
    # The installed copy's manifest drives Foundry's update check: its URLs must be absolute too.
    inside = json.loads(archive.read("module.json"))
    assert inside["manifest"] == manifest["manifest"] and inside["download"] == manifest["download"]
    assert "module.json" in names and "lang/en.json" in names
    for entry in manifest["esmodules"] + manifest["styles"]:
        assert entry in names
    assert not any(n.endswith(".d.ts") for n in names)


@pytest.mark.slow
async def test_a_peer_that_stops_reading_never_holds_up_the_table(sidecar):
    import socket as _socket
    import time as _time
    from urllib.parse import urlparse

    u = urlparse(sidecar.url)
    raw = _socket.socket()
    raw.setsockopt(_socket.SOL_SOCKET, _socket.SO_RCVBUF, 4096)
    raw.connect((u.hostname, u.port))
    raw.setblocking(False)
    slow = await websockets.connect(sidecar.url, sock=raw, subprotocols=["verdict.v1"], compression=None, max_queue=1)
    await slow.send(json.dumps({"type": "hello", "table": sidecar.keys.table, "key": sidecar.keys.player}))
    gm = await sidecar.client("gm")
    start = _time.monotonic()
    connections = sidecar.server.app[HUB].tables[sidecar.keys.table].connections
    # ~1.5 KiB broadcasts the slow peer never reads: more than the socket's bounded buffers hold (up to 3,000;
    # once the sidecar has dropped the slow peer, more would prove nothing)
    for i in range(3000):
        await gm.request(m.Roll(id=f"fast-{i}", check=FacetsCheck(pool=2), label="x" * 1000))
        if len(connections) == 1:
            break
    assert len(connections) == 1  # the slow peer was dropped, not waited for
    await gm.request(m.Roll(id="after-the-drop", check=FacetsCheck(pool=2)))
    assert _time.monotonic() - start < 60
    # the slow peer was dropped: told 1013 (try again later) if it reads it in time, else cut off; on
    # reconnect it resyncs from its last seq
    got = 0

    async def closed_code():
        nonlocal got
        try:
            while True:
                await slow.recv()
                got += 1
        except websockets.ConnectionClosed as exc:
            return exc.rcvd.code if exc.rcvd else None

    try:
        code = await asyncio.wait_for(closed_code(), 30)
    except TimeoutError:
        raise AssertionError(f"still open after {got} frames") from None
    assert code in (1013, None)
    await gm.close()
