"""A seeded fuzzer of frames over JSON and MessagePack, before and after hello.

Every frame gets a coded reply (or a clean close where the protocol says so: a refused hello), the
server writes no traceback, and it stays up for everyone else."""

from __future__ import annotations

import asyncio
import json
import logging
import random

import msgspec
import pytest
import websockets

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck

from .fuzzing import encode, frames

KNOWN_CODES_OK = {"pong", "rolled", "followed", "done", "state", "verified", "odds_result", "user_key", "welcome"}


async def _open(url: str, msgpack: bool):
    return await websockets.connect(
        url, subprotocols=["verdict.v1+msgpack" if msgpack else "verdict.v1"], compression=None, max_size=2**22
    )


def _decode(frame, msgpack: bool) -> dict:
    return msgspec.msgpack.decode(frame) if msgpack else json.loads(frame)


async def _hello(ws, sidecar, msgpack: bool) -> None:
    hello = {"type": "hello", "table": sidecar.keys.table, "key": sidecar.keys.gm, "user": "fuzz-gm"}
    await ws.send(msgspec.msgpack.encode(hello) if msgpack else json.dumps(hello))
    assert _decode(await ws.recv(), msgpack)["type"] == "welcome"


async def _answered(ws, msgpack: bool, marker: str) -> list[dict]:
    """Send a ping after the frame; everything up to its pong is the frame's answer."""
    ping = {"type": "ping", "id": marker}
    await ws.send(msgspec.msgpack.encode(ping) if msgpack else json.dumps(ping))
    got = []
    while True:
        msg = _decode(await ws.recv(), msgpack)
        if msg == {"type": "pong", "id": marker}:
            return got
        got.append(msg)


@pytest.mark.parametrize("msgpack", [False, True], ids=["json", "msgpack"])
async def test_fuzzed_frames_get_coded_replies(sidecar, msgpack, caplog, capsys):
    caplog.set_level(logging.WARNING)
    rng = random.Random(11 + msgpack)
    corpus = frames(seed=1100 + msgpack, n=500)
    codes: dict[str, int] = {}

    # before hello: every frame is refused with a code; a bad hello may close the socket, cleanly
    ws = await _open(sidecar.url, msgpack)
    for obj in corpus[:150]:
        await ws.send(encode(obj, msgpack, rng))
        try:
            reply = _decode(await ws.recv(), msgpack)
        except websockets.ConnectionClosed as exc:
            assert exc.rcvd is not None and exc.rcvd.code in (4400, 4401), (obj, exc)
            ws = await _open(sidecar.url, msgpack)
            continue
        assert reply["type"] in ("error", "welcome"), (obj, reply)
        if reply["type"] == "welcome":  # a mutated hello that is still a good hello
            await ws.close()
            ws = await _open(sidecar.url, msgpack)
            continue
        assert reply["code"] and reply["message"], reply
        codes[reply["code"]] = codes.get(reply["code"], 0) + 1
        if reply["code"] in ("unauthorized", "unsupported_protocol", "user_key_required"):
            with pytest.raises(websockets.ConnectionClosed) as e:
                await ws.recv()
            assert e.value.rcvd is not None and e.value.rcvd.code in (4400, 4401)
            ws = await _open(sidecar.url, msgpack)
    await ws.close()

    # after hello: the socket stays up through every frame
    ws = await _open(sidecar.url, msgpack)
    await _hello(ws, sidecar, msgpack)
    for i, obj in enumerate(corpus):
        await ws.send(encode(obj, msgpack, rng))
        for reply in await _answered(ws, msgpack, f"mark-{i}"):
            if reply["type"] == "error":
                assert reply["code"] != "internal_error", (obj, reply)
                assert reply["message"]
                codes[reply["code"]] = codes.get(reply["code"], 0) + 1
            else:
                assert reply["type"] in KNOWN_CODES_OK or reply["type"] == "event", (obj, reply)
    await ws.close()

    # the server lives, and wrote no traceback
    gm = await sidecar.client("gm")
    assert (await gm.request(m.Roll(id="after", check=FacetsCheck(pool=2)))).result is not None
    await gm.close()
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err and "request_failed" not in out.out + out.err
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    for code in ("invalid_message", "bad_frame", "unknown_type", "text_too_long"):
        assert codes.get(code), codes  # the corpus reaches each kind of refusal


async def test_unknown_subprotocols_are_refused(sidecar):
    with pytest.raises(websockets.InvalidStatus) as e:
        await websockets.connect(sidecar.url, subprotocols=["chat"])
    assert e.value.response.status_code == 400 and b"unsupported_subprotocol" in e.value.response.body


@pytest.mark.parametrize("msgpack", [False, True], ids=["json", "msgpack"])
async def test_the_wrong_frame_type_is_refused_and_the_socket_stays_up(sidecar, msgpack):
    ws = await _open(sidecar.url, msgpack)
    await _hello(ws, sidecar, msgpack)
    await ws.send(json.dumps({"type": "ping", "id": "x"}) if msgpack else b'{"type":"ping","id":"x"}')
    reply = _decode(await ws.recv(), msgpack)
    assert reply["code"] == "bad_frame" and ("binary" in reply["message"] or "text" in reply["message"])
    assert await _answered(ws, msgpack, "still-up") == []
    await ws.close()


@pytest.mark.parametrize("msgpack", [False, True], ids=["json", "msgpack"])
async def test_fuzzed_frames_while_rate_limited(tmp_path, msgpack, capsys):
    """The refusal path (a rate-limited frame still names its id) meets every shape of frame too."""
    from aiohttp.test_utils import TestServer

    from sidecar.server.app import Settings, create_app
    from sidecar.state.ledger import SqliteLedger
    from tests.conftest import free_port

    ledger = SqliteLedger(tmp_path / "v.sqlite3")
    keys = ledger.create_table("t")
    server = TestServer(
        create_app(Settings(data=tmp_path, rate=2, burst=2), ledger), host="127.0.0.1", port=free_port()
    )
    await server.start_server()
    url = f"ws://127.0.0.1:{server.port}/ws"
    rng = random.Random(5)
    ws = await _open(url, msgpack)
    hello = {"type": "hello", "table": keys.table, "key": keys.gm}
    await ws.send(msgspec.msgpack.encode(hello) if msgpack else json.dumps(hello))
    assert _decode(await ws.recv(), msgpack)["type"] == "welcome"
    corpus = frames(seed=77 + msgpack, n=200)
    for obj in corpus:
        await ws.send(encode(obj, msgpack, rng))
    codes = []
    for _ in corpus:  # every frame gets exactly one answer; almost all are refusals for the rate
        reply = _decode(await asyncio.wait_for(ws.recv(), 5), msgpack)
        codes.append(reply.get("code", reply["type"]))
    assert codes.count("rate_limited") > 150 and "internal_error" not in codes
    await ws.close()
    await server.close()
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
