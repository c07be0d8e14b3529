"""Hostile clients against `verdict serve` with its default limits: ``python -m bench.hostile``.

Figures: the server's RSS before and after the seeded frame fuzzer of the adversarial tests (JSON and
MessagePack, thousands of frames), and the time of a GM's rolls (worst and p99) while other clients flood
it with odds of large checks, rolls with long labels and reconnects, each at the most its limits allow.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

import msgspec
import websockets
from websockets.typing import Subprotocol

from protocol.v1 import messages as m
from protocol.v1.boons import BoonsCheck
from protocol.v1.facets import FacetsCheck
from sidecar.client import Client, RequestFailed
from sidecar.state.ledger import TableKeys
from tests.adversarial.fuzzing import encode, frames
from tests.serving import Process, free_port


def _rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


async def _fuzz(url: str, keys: TableKeys, msgpack: bool, n: int) -> int:
    rng = random.Random(7 + msgpack)
    sent = 0
    ws = await websockets.connect(
        url, subprotocols=[Subprotocol("verdict.v1+msgpack" if msgpack else "verdict.v1")], compression=None
    )
    hello = {"type": "hello", "table": keys.table, "key": keys.gm, "user": "fuzz"}
    await ws.send(msgspec.msgpack.encode(hello) if msgpack else json.dumps(hello))
    await ws.recv()
    for obj in frames(seed=100 + msgpack, n=n):
        await ws.send(encode(obj, msgpack, rng))
        sent += 1
        try:
            while True:  # drain without waiting on frames that get no reply
                await asyncio.wait_for(ws.recv(), 0.002)
        except TimeoutError:
            pass
    await ws.close()
    return sent


async def _load(
    url: str, keys: TableKeys, user_keys: dict[str, str], seconds: float, flood: bool = True
) -> dict[str, float]:
    stop = asyncio.Event()
    counts = {"odds": 0, "rolls": 0, "refused": 0, "reconnects": 0}

    async def odds_flood(user: str, k: int) -> None:
        n = 0
        while not stop.is_set():
            try:
                c = await Client.connect(url, keys.table, user_keys[user], user=user)
            except RequestFailed:  # the hello itself was refused for the rate
                counts["refused"] += 1
                await asyncio.sleep(0.05)
                continue
            counts["reconnects"] += 1
            for _ in range(50):
                n += 1
                check = BoonsCheck(
                    ability=5, boon=5, bane=5, trial=4, crisis=1, threshold=50 + k * 10**6 + n, time_unit="h", limit=40
                )
                try:
                    await c.request(m.Odds(id=c.new_id(), check=check))
                    counts["odds"] += 1
                except RequestFailed:
                    counts["refused"] += 1
                    await asyncio.sleep(0.01)
                if stop.is_set():
                    break
            await c.close()

    async def roll_flood(user: str) -> None:
        c = await Client.connect(url, keys.table, user_keys[user], user=user)
        while not stop.is_set():
            try:
                await c.request(m.Roll(id=c.new_id(), check=FacetsCheck(pool=4), label="x" * 1000))
                counts["rolls"] += 1
            except RequestFailed:
                counts["refused"] += 1
                await asyncio.sleep(0.01)
        await c.close()

    tasks = [asyncio.create_task(odds_flood(f"o{k}", k)) for k in range(4 if flood else 0)]
    tasks += [asyncio.create_task(roll_flood(f"r{k}")) for k in range(2 if flood else 0)]
    gm = await Client.connect(url, keys.table, keys.gm, user="gm")
    await asyncio.sleep(0.5)
    times = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.perf_counter()
        await gm.request(m.Roll(id=gm.new_id(), check=FacetsCheck(pool=2)))
        times.append(time.perf_counter() - t0)
        await asyncio.sleep(0.05)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    await gm.close()
    times.sort()
    return {
        "n": len(times),
        "p50": statistics.median(times),
        "p99": times[max(0, int(len(times) * 0.99) - 1)],
        "max": times[-1],
        **counts,
    }


def main() -> None:
    data = Path(tempfile.mkdtemp(prefix="verdict-hostile-"))
    print(f"data and server log in {data}")
    server = Process(data, free_port(), log=data / "server.log")
    server.start()
    try:
        keys = server.keys()
        user_keys = {user: server.user_key(user) for user in [f"o{k}" for k in range(4)] + ["r0", "r1"]}
        url = server.url
        assert server.proc is not None
        pid = server.proc.pid
        rss0 = _rss(pid)
        sent = 0
        for msgpack in (False, True):
            sent += asyncio.run(_fuzz(url, keys, msgpack, 3000))
        rss1 = _rss(pid)
        quiet = asyncio.run(_load(url, keys, user_keys, 3.0, flood=False))
        load = asyncio.run(_load(url, keys, user_keys, 10.0))
        rss2 = _rss(pid)
        alive = server.proc.poll() is None
    finally:
        server.stop()
    print(
        f"RSS: {rss0 / 2**20:.1f} MiB at start, {rss1 / 2**20:.1f} MiB after {sent:,} fuzzed frames, "
        f"{rss2 / 2**20:.1f} MiB after the load; server alive: {alive}"
    )
    print(
        f"GM roll alone ({quiet['n']} rolls over 3 s): p50 {quiet['p50'] * 1000:.1f} ms, p99 {quiet['p99'] * 1000:.1f} ms, "
        f"worst {quiet['max'] * 1000:.1f} ms"
    )
    print(
        f"GM roll under load ({load['n']} rolls over 10 s): p50 {load['p50'] * 1000:.1f} ms, p99 {load['p99'] * 1000:.1f} ms, "
        f"worst {load['max'] * 1000:.1f} ms; flood answered {load['odds']:,} odds and {load['rolls']:,} rolls, "
        f"refused {load['refused']:,} requests, {load['reconnects']} connections"
    )


if __name__ == "__main__":
    main()
