"""What a peer's frames may cost, on raw frames written byte for byte: a message kept unfinished by pings
is cut at the frame timeout, the bytes held for unfinished messages are bounded per process, control
frames are charged as data frames are, and text that is not UTF-8 (or not Unicode) gets `bad_frame`."""

from __future__ import annotations

import asyncio
import json
import os
import struct
import subprocess
import time
import urllib.request

import pytest
from aiohttp.test_utils import TestServer

from protocol.v1 import messages as m
from sidecar.client import Client
from sidecar.server.app import LIVE, Settings, create_app
from sidecar.state.ledger import SqliteLedger
from tests.serving import ROOT, free_port, serve_command, wait_listening

TEXT, BINARY, CONTINUATION, CLOSE, PING, PONG = 0x1, 0x2, 0x0, 0x8, 0x9, 0xA


def frame(opcode: int, payload: bytes = b"", fin: bool = True) -> bytes:
    """A client frame: masked (with a zero mask, so the payload is as written)."""
    head = bytes([(0x80 if fin else 0) | opcode])
    n = len(payload)
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 1 << 16:
        head += bytes([0x80 | 126]) + struct.pack("!H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", n)
    return head + b"\x00\x00\x00\x00" + payload


class RawPeer:
    """A websocket peer on a bare TCP connection: it writes frames as given and reads the server's."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.received: list[tuple[int, bytes]] = []
        self.close_code: int | None = None
        self.ended = asyncio.Event()
        self.task = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, port: int, table: str | None = None, key: str | None = None) -> RawPeer:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            b"Sec-WebSocket-Protocol: verdict.v1\r\n\r\n"
        )
        head = await reader.readuntil(b"\r\n\r\n")
        assert b" 101 " in head.split(b"\r\n")[0], head
        self = cls(reader, writer)
        if table is not None:
            self.send(frame(TEXT, json.dumps({"type": "hello", "table": table, "key": key}).encode()))
            await self.wait(lambda op, data: op == TEXT and b'"welcome"' in data)
        return self

    async def _read(self) -> None:
        try:
            while True:
                b0, b1 = await self.reader.readexactly(2)
                n = b1 & 0x7F
                if n == 126:
                    (n,) = struct.unpack("!H", await self.reader.readexactly(2))
                elif n == 127:
                    (n,) = struct.unpack("!Q", await self.reader.readexactly(8))
                data = await self.reader.readexactly(n)
                op = b0 & 0x0F
                self.received.append((op, data))
                if op == CLOSE:
                    self.close_code = struct.unpack("!H", data[:2])[0] if len(data) >= 2 else 1005
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.ended.set()

    def send(self, data: bytes) -> None:
        if not self.writer.is_closing():
            self.writer.write(data)

    def count(self, opcode: int) -> int:
        return sum(op == opcode for op, _ in self.received)

    def texts(self) -> list[dict]:
        return [json.loads(data) for op, data in self.received if op == TEXT]

    async def wait(self, pred, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not any(pred(op, data) for op, data in self.received):
            assert not self.ended.is_set(), f"the connection ended first ({self.close_code})"
            assert time.monotonic() < deadline, "the frame never arrived"
            await asyncio.sleep(0.005)

    async def closed(self, timeout: float) -> bool:
        """Whether the server closes the connection within ``timeout`` seconds."""
        try:
            await asyncio.wait_for(self.ended.wait(), timeout)
        except TimeoutError:
            return False
        return True

    def abort(self) -> None:
        self.writer.transport.abort()


class Small:
    """A real sidecar in this process with the limits given."""

    def __init__(self, tmp_path, **limits) -> None:
        self.ledger = SqliteLedger(tmp_path / "v.sqlite3")
        self.keys = self.ledger.create_table("t")
        self.app = create_app(Settings(data=tmp_path, **limits), self.ledger)
        self.server = TestServer(self.app, host="127.0.0.1", port=free_port())

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    async def peer(self, key: str | None = None) -> RawPeer:
        return await RawPeer.open(self.port, self.keys.table, key or self.keys.player)

    async def metric(self, name: str) -> float:
        def read() -> str:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=5) as r:
                return r.read().decode()

        for line in (await asyncio.to_thread(read)).splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        raise AssertionError(f"no metric {name}")

    async def __aenter__(self) -> Small:
        await self.server.start_server()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.server.close()


async def test_a_message_kept_unfinished_by_pings_is_cut_at_the_frame_timeout(tmp_path):
    async with Small(tmp_path, frame_timeout=0.8) as s:
        peers = [await s.peer() for _ in range(10)]
        started = time.monotonic()
        for p in peers:
            p.send(frame(TEXT, b'{"type":"ping","id":"', fin=False))  # the first fragment, never the last
        stop = asyncio.Event()

        async def keep_pinging(p: RawPeer) -> None:
            while not stop.is_set() and not p.ended.is_set():
                p.send(frame(PING, b"still here"))
                await asyncio.sleep(0.1)

        pingers = [asyncio.create_task(keep_pinging(p)) for p in peers]
        try:
            closed = await asyncio.gather(*(p.closed(10) for p in peers))
        finally:
            stop.set()
            await asyncio.gather(*pingers)
        took = time.monotonic() - started
        assert all(closed), f"{closed.count(False)} of {len(peers)} sockets kept open by pings"
        assert {p.close_code for p in peers} == {4408}
        assert all(p.count(PONG) >= 1 for p in peers)  # the pings were answered meanwhile
        print(f"10 sockets holding a fragment open with pings every 0.1 s: all cut after {took:.2f} s (timeout 0.8 s)")
        assert took < 0.8 + 3
        gm = await Client.connect(s.url, s.keys.table, s.keys.gm)
        assert isinstance(await gm.request(m.Ping(id="alive")), m.Pong)
        await gm.close()


async def test_a_whole_fragmented_message_is_handled(tmp_path):
    """Fragments are legal: a message sent in three pieces with pings between them is one request."""
    async with Small(tmp_path, frame_timeout=5) as s:
        p = await s.peer()
        p.send(frame(TEXT, b'{"type":"pi', fin=False))
        p.send(frame(PING, b"x"))
        p.send(frame(CONTINUATION, b'ng","id":"in-', fin=False))
        p.send(frame(PING, b"y"))
        p.send(frame(CONTINUATION, b'pieces"}'))
        await p.wait(lambda op, data: op == TEXT and b'"in-pieces"' in data)
        assert p.texts()[-1] == {"type": "pong", "id": "in-pieces"}
        assert p.count(PONG) == 2 and not p.ended.is_set()
        assert await s.metric("verdict_unfinished_message_bytes") == 0
        p.abort()


async def test_bytes_held_for_unfinished_messages_are_bounded_per_process(tmp_path):
    bound = 256 * 1024
    async with Small(tmp_path, frame_timeout=60, max_unfinished_bytes=bound, rate=1e6, burst=1e6) as s:
        piece = b"x" * (60 * 1024)
        honest = await s.peer()
        peers, cut = [], []
        for _ in range(8):  # 8 x 60 KiB begun and never finished, one after the other: more than it holds
            p = await s.peer()
            p.send(frame(TEXT, b'{"type":"ping","id":"' + piece, fin=False))
            peers.append(p)
            cut.append(await _cut(p))
        # the sockets whose fragments would take the process over the bound are cut, the others stay
        held = await s.metric("verdict_unfinished_message_bytes")
        assert cut == [False] * 4 + [True] * 4 and held == 4 * (len(piece) + len(b'{"type":"ping","id":"')), (cut, held)
        assert {p.close_code for p in peers[4:]} == {1009}, [p.close_code for p in peers]
        # requests sent whole meanwhile are handled: a message in hand is never held
        for i in range(20):
            honest.send(frame(TEXT, b'{"type":"ping","id":"honest-%d","pad":"' % i + b"y" * 4096 + b'"}'))
            await honest.wait(lambda op, data, i=i: op == TEXT and b'"honest-%d"' % i in data)
        assert not honest.ended.is_set()
        # one that keeps within it finishes and is answered
        peers[0].send(frame(CONTINUATION, b'"}'))
        await peers[0].wait(lambda op, data: op == TEXT and b'"error"' in data)  # a 60 KiB id: too long, but read
        assert await s.metric("verdict_unfinished_message_bytes") == held * 3 / 4
        print(f"8 x 60 KiB fragments left open at a bound of 256 KiB: 4 cut with 1009, {held:.0f} bytes held")
        for p in (*peers, honest):
            p.abort()
        deadline = time.monotonic() + 10
        while await s.metric("verdict_unfinished_message_bytes"):  # released when their sockets end
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)


async def _cut(p: RawPeer) -> bool:
    """Whether the server has cut ``p`` off: a ping is answered, or the connection ends."""
    pongs = p.count(PONG)
    p.send(frame(PING, b"cut?"))
    deadline = time.monotonic() + 10
    while p.count(PONG) == pongs and not p.ended.is_set():
        assert time.monotonic() < deadline
        await asyncio.sleep(0.005)
    return p.ended.is_set()


async def test_a_ping_flood_is_cut_after_the_budget(tmp_path):
    async with Small(tmp_path, rate=5, burst=10) as s:
        pinger, ponger = await s.peer(), await s.peer()
        pinger.send(b"".join(frame(PING, b"%d" % i) for i in range(2000)))
        ponger.send(b"".join(frame(PONG, b"%d" % i) for i in range(2000)))
        assert await pinger.closed(10) and await ponger.closed(10)
        assert pinger.close_code == 4429 and ponger.close_code == 4429
        # its burst, and as much again in debt (a keepalive ping is answered when requests took the budget)
        assert pinger.count(PONG) <= 2 * 10, pinger.count(PONG)
        print(f"2000 pings at a burst of 10: {pinger.count(PONG)} answered, then closed with 4429")
        # others are served meanwhile, and a peer that pings now and then is never cut
        calm = await s.peer()
        for i in range(8):
            calm.send(frame(PING, b"calm"))
            await calm.wait(lambda op, data, n=i + 1: sum(o == PONG for o, _ in calm.received) >= n)
        assert not calm.ended.is_set()
        calm.abort()


async def test_text_that_is_not_utf8_gets_bad_frame_and_the_socket_stays(tmp_path):
    async with Small(tmp_path) as s:
        p = await s.peer(s.keys.gm)
        p.send(frame(TEXT, b'{"type":"ping","id":"\xff\xfe"}'))
        await p.wait(lambda op, data: op == TEXT and b'"error"' in data)
        err = p.texts()[-1]
        assert err["code"] == "bad_frame" and "UTF-8" in err["message"], err
        p.send(frame(TEXT, b'{"type":"ping","id":"\\ud800"}'))  # a lone surrogate: JSON's grammar, not Unicode
        await p.wait(lambda op, data: op == TEXT and b"surrogate" in data)
        err = p.texts()[-1]
        assert err["code"] == "bad_frame" and "\\ud800" in err["message"] and "`id`" in err["message"], err
        p.send(frame(TEXT, b'{"type":"ping","id":"after"}'))
        await p.wait(lambda op, data: op == TEXT and b'"after"' in data)
        assert p.texts()[-1] == {"type": "pong", "id": "after"} and not p.ended.is_set()
        p.abort()


@pytest.mark.slow
def test_a_log_on_a_full_disk_never_breaks_a_reply(tmp_path):
    """`verdict serve` whose log (stderr) is on a full disk: every write of a log line fails (ENOSPC)."""
    port = free_port()
    data = tmp_path / "data"
    with open("/dev/full", "wb") as full:
        proc = subprocess.Popen(
            serve_command(port, data),
            stdout=subprocess.PIPE,
            stderr=full,
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    try:
        wait_listening(port, proc)
        fields = dict(line.split(" ", 1) for line in (data / "default-table.keys").read_text().splitlines())

        async def requests() -> None:
            p = await RawPeer.open(port, fields["table"], fields["gm"])  # its `joined` line fails to be written
            p.send(frame(TEXT, b'{"type":"nope","id":"1"}'))
            p.send(frame(TEXT, b"not json"))
            p.send(frame(TEXT, b'{"type":"ping","id":"2"}'))
            await p.wait(lambda op, data: op == TEXT and b'"pong"' in data)
            assert [f["type"] for f in p.texts()] == ["welcome", "error", "error", "pong"]
            assert not p.ended.is_set()
            p.abort()

        asyncio.run(requests())
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(timeout=15)
        assert proc.stdout is not None
        proc.stdout.close()


async def test_frames_split_anywhere_are_read_whole_and_nothing_stays_held(tmp_path):
    """The frame headers are read as the bytes come, in whatever pieces TCP makes of them: frames of every
    length form (7-bit, 16-bit, 64-bit), fragments and pings between them, cut at random places, the first
    ones in the same write as the upgrade request."""
    import random

    rng = random.Random(21)
    async with Small(tmp_path, frame_timeout=30, rate=1e6, burst=1e6) as s:
        hello = json.dumps({"type": "hello", "table": s.keys.table, "key": s.keys.player}).encode()
        stream = frame(TEXT, hello)
        expected = []
        for i in range(60):
            rid = f"r{i}-" + "p" * rng.choice((0, 100, 200, 1000, 70_000))  # 70,000: a 64-bit length
            body = json.dumps({"type": "ping", "id": rid}).encode()
            expected.append(rid if len(body) <= 64 * 1024 else None)
            if rng.random() < 0.5:
                stream += frame(TEXT, body)
            else:
                cuts = sorted(rng.sample(range(1, len(body)), 2))
                parts = [body[: cuts[0]], body[cuts[0] : cuts[1]], body[cuts[1] :]]
                stream += frame(TEXT, parts[0], fin=False) + frame(PING, b"between")
                stream += frame(CONTINUATION, parts[1], fin=False) + frame(PONG, b"")
                stream += frame(CONTINUATION, parts[2])
        stream += frame(TEXT, b'{"type":"ping","id":"last"}')
        expected.append("last")
        reader, writer = await asyncio.open_connection("127.0.0.1", s.port)
        upgrade = (
            b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            b"Sec-WebSocket-Protocol: verdict.v1\r\n\r\n"
        )
        first = rng.randrange(1, 200)
        writer.write(upgrade + stream[:first])
        await reader.readuntil(b"\r\n\r\n")
        peer = RawPeer(reader, writer)
        at = first
        while at < len(stream):
            step = rng.choice((1, 2, 3, 7, 13, 100, 4096))
            peer.send(stream[at : at + step])
            at += step
            await writer.drain()
            if rng.random() < 0.05:
                await asyncio.sleep(0.001)
        await peer.wait(lambda op, data: op == TEXT and b'"last"' in data, timeout=30)
        replies = peer.texts()[1:]
        assert [r.get("id") for r in replies if r["type"] == "pong"] == [e for e in expected if e is not None]
        assert [r["code"] for r in replies if r["type"] == "error"] == ["frame_too_large"] * expected.count(None)
        assert not peer.ended.is_set()
        assert await s.metric("verdict_unfinished_message_bytes") == 0
        (sock,) = [x for x in s.app[LIVE]]
        assert sock.unfinished_for(time.monotonic()) == 0  # nothing left begun: the headers were read in step
        peer.abort()


async def test_a_fragment_in_the_upgrades_own_write_is_timed_too(tmp_path):
    async with Small(tmp_path, frame_timeout=0.6) as s:
        reader, writer = await asyncio.open_connection("127.0.0.1", s.port)
        writer.write(
            b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            b"Sec-WebSocket-Protocol: verdict.v1\r\n\r\n" + frame(TEXT, b'{"type":', fin=False)
        )
        await reader.readuntil(b"\r\n\r\n")
        peer = RawPeer(reader, writer)
        for _ in range(100):
            if peer.ended.is_set():
                break
            peer.send(frame(PING, b"."))
            await asyncio.sleep(0.1)
        assert await peer.closed(10) and peer.close_code == 4408


async def test_a_msgpack_string_that_is_not_utf8_is_named(tmp_path, raw):
    async with Small(tmp_path) as s:
        r = await raw.join(s, s.keys.gm, msgpack=True)
        await r.ws.send(b"\x82\xa4type\xa4ping\xa2id\xa2\xff\xfe")  # {"type": "ping", "id": <2 bytes, not UTF-8>}
        err = await r.wait(lambda f: f.get("type") == "error")
        assert err["code"] == "bad_frame" and "UTF-8" in err["message"]
        await r.ws.send(b"\x82\xa4type\xa4ping\xa2id\xa5after")
        assert await r.wait(lambda f: f.get("id") == "after") == {"type": "pong", "id": "after"}
        await r.close()


async def test_a_keepalive_ping_of_a_client_spending_its_budget_on_requests_is_answered(tmp_path):
    async with Small(tmp_path, rate=5, burst=10) as s:
        p = await s.peer()
        for round_ in range(3):
            # requests beyond the budget: the last are refused (rate_limited), then a keepalive ping
            p.send(b"".join(frame(TEXT, b'{"type":"ping","id":"r%d-%d"}' % (round_, i)) for i in range(15)))
            p.send(frame(PING, b"keepalive %d" % round_))
            await p.wait(lambda op, data, r=round_: op == PONG and data == b"keepalive %d" % r)
            assert any(f.get("code") == "rate_limited" for f in p.texts())
        assert not p.ended.is_set()
        p.abort()
