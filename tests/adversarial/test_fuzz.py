"""A seeded fuzzer of frames over JSON and MessagePack, before and after hello.

Every frame gets a coded reply (or a clean close where the protocol says so: a refused hello), the
server writes no traceback, and it stays up for everyone else."""

from __future__ import annotations

import asyncio
import json
import logging
import random
from pathlib import Path

import msgspec
import pytest
import websockets

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
CLIENT_VECTORS = [
    json.loads(p.read_text())
    for p in sorted(VECTORS.glob("*.json"))
    if json.loads(p.read_text()).get("type") in {t.__struct_config__.tag for t in m.CLIENT_TYPES}
]
KNOWN_CODES_OK = {"pong", "rolled", "followed", "done", "state", "verified", "odds_result", "user_key", "welcome"}
FIELD_NAMES = [
    "type",
    "id",
    "check",
    "system",
    "pool",
    "dice",
    "user",
    "key",
    "table",
    "op",
    "action",
    "mode",
    "label",
    "since",
    "protocol",
    "rank",
    "cl",
    "group",
    "seqs",
    "count",
]

SHAPES: list[object] = [
    {"type": [1]},
    {"type": {}},
    {"type": 1},
    {"type": None},
    {"type": True},
    {"type": "roll", "id": ["x"]},
    {"type": "ping", "id": "deep", "x": json.loads("[" * 900 + "]" * 900)},
    {"type": "roll", "id": "big", "check": {"system": "facets", "pool": 2**70}},
    {"type": "roll", "id": "u64", "check": {"system": "facets", "pool": 2**63 + 5}},
    {"type": "roll", "id": "neg", "check": {"system": "challenge", "cl": -(2**64)}},
    {"type": "gm", "id": "g", "op": {"op": "strain_set", "actor": "A", "strain": 2**64}},
    {"type": "roll", "id": "long", "label": "x" * 5000, "check": {"system": "facets", "pool": 1}},
    {"type": "gm", "id": "t", "op": {"op": "complication_add", "scene": "S", "text": "y" * 5000}},
    [],
    1,
    "str",
    None,
    {"type": "hello", "table": 1, "key": None},
]


def rand_value(rng: random.Random, depth: int = 0) -> object:
    kind = rng.randrange(10 if depth < 4 else 6)
    if kind == 0:
        return rng.choice([0, -1, 1, 2**31, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**30, rng.randint(-9, 99)])
    if kind == 1:
        return rng.choice(
            [
                "",
                "roll",
                "hello",
                "facets",
                "\u0000",
                "\ud7ff" * 3,
                "é" * rng.randint(0, 40),
                "x" * rng.choice([1, 1100]),
            ]
        )
    if kind == 2:
        return rng.choice([True, False, None])
    if kind == 3:
        return rng.choice([0.5, -1e308, 1e308, 3.0])
    if kind in (4, 5):
        return rng.choice(FIELD_NAMES)
    if kind in (6, 7):
        return [rand_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(FIELD_NAMES): rand_value(rng, depth + 1) for _ in range(rng.randint(0, 5))}


def mutate(rng: random.Random, obj: object) -> object:
    if isinstance(obj, dict) and obj:
        obj = dict(obj)
        key = rng.choice(list(obj))
        action = rng.randrange(4)
        if action == 0:
            del obj[key]
        elif action == 1:
            obj[key] = rand_value(rng)
        elif action == 2:
            obj[key] = mutate(rng, obj[key])
        else:
            obj[rng.choice(FIELD_NAMES)] = rand_value(rng)
        return obj
    if isinstance(obj, list) and obj:
        obj = list(obj)
        obj[rng.randrange(len(obj))] = rand_value(rng)
        return obj
    return rand_value(rng)


def frames(seed: int, n: int) -> list[object]:
    rng = random.Random(seed)
    out: list[object] = list(SHAPES)
    while len(out) < n:
        base = rng.choice(CLIENT_VECTORS)
        obj: object = base
        for _ in range(rng.randint(1, 3)):
            obj = mutate(rng, obj)
        if rng.random() < 0.1:
            obj = rand_value(rng)
        out.append(obj)
    return out


def encode(obj: object, msgpack: bool, rng: random.Random) -> str | bytes:
    """Mostly well-formed frames of the socket's encoding; some of the other one, some broken bytes."""
    r = rng.random()
    try:
        good = msgspec.msgpack.encode(obj) if msgpack else json.dumps(obj)
    except (OverflowError, ValueError, TypeError):
        good = json.dumps(obj) if msgpack else msgspec.msgpack.encode({"type": "ping"})
    if r < 0.05:  # the wrong frame type for this subprotocol
        return good.decode("latin-1") if isinstance(good, bytes) else good.encode()
    if r < 0.1:
        raw = good if isinstance(good, bytes) else good.encode()
        raw = raw[: rng.randrange(len(raw) + 1)]
        return raw if msgpack else raw.decode("utf-8", "replace")
    return good


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
