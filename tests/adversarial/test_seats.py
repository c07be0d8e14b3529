"""Seats, as an attacker takes them on raw frames: one user key opens sockets until it is refused, and the
GM still gets in; players with keys of their own fill the sidecar, and the seats kept for GM keys stay
theirs; every refusal is a coded close naming the cap it met."""

from __future__ import annotations

import asyncio
import json

import pytest

from sidecar.state.keys import derive_user_key
from tests.serving import Process, free_port

from .test_frames import CLOSE, TEXT, RawPeer, Small, frame


class Refused(Exception):
    """The upgrade was answered with an HTTP error instead of 101."""

    def __init__(self, status: int, body: bytes) -> None:
        super().__init__(status, body)
        self.status, self.body = status, body


async def hello(
    port: int, table: str, key: str, user: str | None = None, source: str = "127.0.0.1", wait_close: bool = True
):
    """A raw socket from ``source`` that says hello: (the peer, its first reply, the close code when the
    sidecar closed it after that reply, else ``None``; not waited for unless ``wait_close``)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    writer.write(
        b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        b"Sec-WebSocket-Protocol: verdict.v1\r\n\r\n"
    )
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    if status != 101:
        length = int(next(h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")).split(b":")[1])
        body = await reader.readexactly(length)
        writer.close()
        raise Refused(status, body)
    peer = RawPeer(reader, writer)
    said = {"type": "hello", "table": table, "key": key, "user": user}
    peer.send(frame(TEXT, json.dumps(said).encode()))
    while not peer.texts() and not peer.ended.is_set():
        await asyncio.sleep(0.002)
    first = peer.texts()[0] if peer.texts() else {"type": "closed"}  # closed before its hello was read
    if first["type"] == "welcome" or not wait_close:
        return peer, first, None
    await peer.closed(10)
    return peer, first, peer.close_code


def close_reason(peer: RawPeer) -> bytes:
    return next(data[2:] for op, data in peer.received if op == CLOSE)


async def test_one_user_key_is_refused_past_its_cap_and_the_gm_gets_in(tmp_path):
    """The issue's run: `--max-connections 40 --max-per-address 8`, one user key from one address opens
    sockets until refused; then GM keys, with and without a user, get in."""
    async with Small(tmp_path, max_connections=40, max_per_address=8, hello_timeout=60) as s:  # 4 a user
        mallory = derive_user_key(s.ledger.user_secret(s.keys.table), "mallory")
        held, refusal = [], None
        for _ in range(40):
            peer, first, code = await hello(s.port, s.keys.table, mallory, "mallory")
            if first["type"] != "welcome":
                refusal = (first, code, close_reason(peer))
                break
            held.append(peer)
        assert len(held) == 4, len(held)
        assert refusal is not None
        first, code, reason = refusal
        assert first["code"] == "too_many_connections" and "--max-per-user" in first["message"], first
        assert "'mallory' already has 4 connections" in first["message"]
        assert code == 1013 and b"--max-per-user" in reason
        # the cap is per user: another user of the same address and the GM, alone or as a user, get in
        for key, user in ((derive_user_key(s.ledger.user_secret(s.keys.table), "alice"), "alice"),
                          (s.keys.gm, None), (s.keys.gm, "gm")):  # fmt: skip
            peer, first, _ = await hello(s.port, s.keys.table, key, user)
            assert first["type"] == "welcome", first
            held.append(peer)
        # a seat given back is mallory's again
        held[0].abort()
        await held[0].ended.wait()
        for _ in range(100):  # the sidecar sees the end a moment after the peer does
            peer, first, _ = await hello(s.port, s.keys.table, mallory, "mallory")
            if first["type"] == "welcome":
                break
            await asyncio.sleep(0.02)
        assert first["type"] == "welcome", first
        for p in (*held, peer):
            p.abort()


async def test_players_cannot_take_the_seats_kept_for_gm_keys(tmp_path):
    """Players with keys of their own, from many addresses, fill the sidecar: the last `--gm-seats` are
    refused them, naming the reserve, and GM keys take them; only when every seat is someone's who said
    hello is the upgrade refused (503)."""
    async with Small(tmp_path, max_connections=20, hello_timeout=60) as s:  # by default 4 seats are the GM's
        secret = s.ledger.user_secret(s.keys.table)
        held = []
        for i in range(16):
            peer, first, _ = await hello(
                s.port, s.keys.table, derive_user_key(secret, f"p{i}"), f"p{i}", f"127.0.0.{2 + i}"
            )
            assert first["type"] == "welcome", (i, first)
            held.append(peer)
        peer, first, code = await hello(s.port, s.keys.table, derive_user_key(secret, "late"), "late", "127.0.0.99")
        assert first["code"] == "too_many_connections" and "kept for the GM" in first["message"], first
        assert code == 1013 and b"--gm-seats" in close_reason(peer)
        peer, first, code = await hello(s.port, s.keys.table, s.keys.observer, None, "127.0.0.98")  # a guest too
        assert first["code"] == "too_many_connections" and code == 1013
        for i in range(4):
            peer, first, _ = await hello(s.port, s.keys.table, s.keys.gm, f"gm{i}")
            assert first["type"] == "welcome", first
            held.append(peer)
        with pytest.raises(Refused) as refused:
            await hello(s.port, s.keys.table, s.keys.gm)
        assert refused.value.status == 503 and b"too_many_connections" in refused.value.body
        assert b"--max-connections" in refused.value.body
        for p in held:
            p.abort()


@pytest.mark.slow
def test_a_player_flooding_verdict_serve_leaves_the_gm_in(tmp_path):
    """`verdict serve --max-connections 40 --max-per-address 8` (the default cap per user, 4): one user key
    from one address opens raw sockets until refused, then 40 at once; the GM gets in and rolls."""
    server = Process(tmp_path / "data", free_port(), extra=("--max-connections", "40", "--max-per-address", "8"))
    server.start()
    try:
        keys = server.keys()
        mallory = server.user_key("mallory")

        async def run() -> None:
            # one after the other: four are seated, the fifth is told why
            held = []
            for _ in range(40):
                peer, first, code = await hello(server.port, keys.table, mallory, "mallory")
                if first["type"] != "welcome":
                    break
                held.append(peer)
            assert len(held) == 4 and first["code"] == "too_many_connections" and code == 1013, (len(held), first)
            assert "--max-per-user" in first["message"]
            # 40 more at once: each is refused at hello or, while the address is full, closed before it (4408)
            results = await asyncio.gather(*(hello(server.port, keys.table, mallory, "mallory") for _ in range(40)))
            outcomes = {(first.get("code", first["type"]), code) for _, first, code in results}
            assert outcomes <= {("too_many_connections", 1013), ("closed", 4408)}, outcomes
            gm, first, _ = await hello(server.port, keys.table, keys.gm)
            assert first["type"] == "welcome", first
            gm.send(frame(TEXT, b'{"type":"roll","id":"r1","check":{"system":"facets","pool":2}}'))
            await gm.wait(lambda op, data: op == TEXT and b'"rolled"' in data)
            for p in (*held, *(p for p, _, _ in results), gm):
                p.abort()

        asyncio.run(run())
    finally:
        server.stop()


async def test_refused_hellos_whose_peers_never_answer_the_close_hold_no_seat(tmp_path):
    """Wrong keys, one socket after another, each peer leaving the sidecar's close frame unanswered: a
    refused socket gives its seat back at once, so the GM still gets in, however many there were."""
    async with Small(tmp_path, max_connections=12, hello_timeout=60) as s:
        refused = []
        for i in range(40):
            peer, first, _ = await hello(s.port, s.keys.table, f"wrong-{i}", wait_close=False)
            assert first["code"] == "unauthorized", first
            refused.append(peer)
        gm, first, _ = await hello(s.port, s.keys.table, s.keys.gm)
        assert first["type"] == "welcome", first
        # each was closed with 4401 all the same, and cut though it never answered
        for p in refused:
            assert await p.closed(10) and p.close_code == 4401
        for p in (*refused, gm):
            p.abort()
