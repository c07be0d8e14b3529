"""Frames that aiohttp folds out of sight are charged: a socket that never says hello and streams empty
continuation frames (6 bytes each, every message finished well inside the frame timeout) is cut within its
budget (4429), and the GM's rolls are answered meanwhile, against a real `verdict serve`."""

from __future__ import annotations

import asyncio
import statistics
import time
import urllib.request

import pytest

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar.client import Client
from tests.serving import Process, free_port

from .test_frames import CONTINUATION, PING, PONG, TEXT, RawPeer, Small, frame


async def metric(port: int, name: str) -> float:
    def read() -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
            return str(r.read().decode())

    for line in (await asyncio.to_thread(read)).splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


RATE, BURST = 5, 10


async def test_continuations_between_pings_are_charged_before_hello(tmp_path):
    """Ten empty continuations and a ping a round, each round's pong awaited: the continuations cost what
    the ping costs, so the socket is cut once the rounds pass its budget (a burst, a burst in debt, and
    what its rate refilled meanwhile), not left to stream them until the hello timeout."""
    async with Small(tmp_path, rate=RATE, burst=BURST, hello_timeout=120, frame_timeout=120) as s:
        p = await RawPeer.open(s.port)
        began = time.monotonic()
        rounds = 0
        while not p.ended.is_set():
            assert rounds < 1000, "a thousand rounds of continuations and the socket is still up"
            pongs = p.count(PONG)
            p.send(frame(TEXT, b"", fin=False) + frame(CONTINUATION, b"", fin=False) * 9 + frame(PING, b"%d" % rounds))
            rounds += 1
            while p.count(PONG) == pongs and not p.ended.is_set():
                await asyncio.sleep(0.002)
            # each message is finished before the next begins: the frame timeout never runs long
            p.send(frame(CONTINUATION, b"", fin=True))
        took = time.monotonic() - began
        assert p.close_code == 4429, p.close_code
        charged = rounds * 11  # ten fragments (a message's last is charged when handled) and a ping a round
        budget = 2 * BURST + RATE * took + 11  # ... a round's worth more for the round that was cut
        print(f"{rounds} rounds of 10 continuations and a ping: cut with 4429 after {took:.2f} s")
        assert charged - 11 <= budget, (rounds, took)
        assert await metric(s.port, 'verdict_errors_total{code="frame_flood"}') == 1
        gm = await Client.connect(s.url, s.keys.table, s.keys.gm)
        assert isinstance(await gm.request(m.Ping(id="after")), m.Pong)
        await gm.close()


@pytest.mark.slow
def test_a_continuation_flood_before_hello_is_cut_and_the_gm_rolls_on(tmp_path):
    """`verdict serve` at its default budgets; a socket that never says hello writes empty continuation
    frames as fast as the kernel takes them, a message finished every ten thousand, and reconnects when
    cut, while the GM rolls. Every socket of the flood is cut with 4429, none lives to the hello timeout,
    and every roll of the GM's is answered."""
    log = tmp_path / "server.log"
    server = Process(tmp_path / "data", free_port(), extra=("--hello-timeout", "60"), log=log)
    server.start()
    try:
        keys = server.keys()
        burst = frame(TEXT, b"", fin=False) + frame(CONTINUATION, b"", fin=False) * 10_000 + frame(CONTINUATION, b"")

        async def run() -> None:
            gm = await Client.connect(server.url, keys.table, keys.gm, user="gm")
            stop = asyncio.Event()
            codes: list[int | None] = []

            async def flood() -> None:
                while not stop.is_set():
                    p = await RawPeer.open(server.port)
                    try:
                        while not p.ended.is_set() and not stop.is_set() and not p.writer.is_closing():
                            p.send(burst)
                            await p.writer.drain()
                    except ConnectionError:
                        pass
                    if stop.is_set() and not p.ended.is_set():
                        p.abort()
                        break
                    await p.ended.wait()
                    codes.append(p.close_code)

            async def rolls() -> list[float]:
                took = []
                for i in range(60):
                    start = time.perf_counter()
                    roll = await gm.request(m.Roll(id=f"r{i}", check=FacetsCheck(pool=2)), timeout=30)
                    took.append(time.perf_counter() - start)
                    assert isinstance(roll, m.Rolled), roll
                    await asyncio.sleep(0.06)  # within the GM's own rate
                return took

            attacker = asyncio.create_task(flood())
            try:
                took = await rolls()
            finally:
                stop.set()
                await attacker
            print(
                f"GM rolls under a reconnecting continuation flood ({len(codes)} sockets cut): "
                f"median {statistics.median(took) * 1000:.1f} ms, max {max(took) * 1000:.1f} ms"
            )
            # each cut by the frame budget: most hear 4429; a peer still writing may get a reset before it. The
            # last one may be cut (and counted) as the flood stops, before it has heard its close.
            cut = await metric(server.port, 'verdict_errors_total{code="frame_flood"}')
            assert len(codes) > 0 and len(codes) <= cut <= len(codes) + 1, (cut, len(codes))
            assert 4429 in codes and set(codes) <= {4429, None}, codes
            await gm.close()

        asyncio.run(run())
    finally:
        server.stop()
    said = log.read_bytes()
    assert b"Traceback" not in said
    assert b"frame_flood" in said and len(said) < 50_000, len(said)
