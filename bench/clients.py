"""Client processes for the benchmarks (never imported by the server side).

    python -m bench.clients rtt  URL --table=TABLE --key=KEY --count N --warmup W
    python -m bench.clients load URL --plan FILE --index I --of P --duration S [--route table] [--pace S]
    python -m bench.clients idle URL --plan FILE --index I --of P

Every kind speaks the same frames to Verdict and to the echo anchor: a ``hello`` first, then compact
JSON ``roll`` requests for a 5-die ``facets`` check, each with a fresh ``id``. A reply is recognised by
its ``id`` appearing in the frame (Verdict's ``rolled`` echoes it; the echo anchor's reply begins
with the request), so the client does the same small work against both and the difference is the
server's. ``load`` and ``idle`` print ``ready`` once connected, wait for a line on stdin (``go`` or
``stop``), and end with one JSON line of results. Every socket names its table in its URL
(``/ws?table=ID``), as the Python client does.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp
from websockets.typing import Subprotocol

from sidecar.client import table_url

from .common import raise_nofile
from .routing import pick, request_uri

ROLL = '{"type":"roll","id":"%s","check":{"system":"facets","pool":5}}'
ERROR = '{"type":"error"'


def hello(table: str, key: str, user: str) -> str:
    return json.dumps({"type": "hello", "table": table, "key": key, "protocol": 1, "client": "bench", "user": user})


async def rtt(url: str, table: str, key: str, count: int, warmup: int) -> dict[str, Any]:
    """Round trips one after another on one connection, through the websockets client library."""
    from websockets.asyncio.client import connect

    async with connect(
        table_url(url, table), subprotocols=[Subprotocol("verdict.v1")], compression=None, max_size=2**22
    ) as ws:
        await ws.send(hello(table, key, "rtt"))
        welcome = await ws.recv(decode=True)
        if welcome.startswith(ERROR):
            raise SystemExit(f"refused: {welcome}")
        prefix = uuid.uuid4().hex[:8]
        lat: list[float] = []
        size = 0
        errors = 0
        for i in range(warmup + count):
            rid = f"{prefix}-{i}"
            frame = ROLL % rid
            t0 = time.perf_counter()
            await ws.send(frame)
            while True:
                reply = await ws.recv(decode=True)
                if rid in reply:
                    break
            dt = time.perf_counter() - t0
            if reply.startswith(ERROR):
                errors += 1
            if i >= warmup:
                lat.append(dt * 1e6)
                size = len(reply)
        return {"latencies_us": lat, "reply_size": size, "errors": errors}


class Conn:
    """One load connection: one request in flight at a time."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, prefix: str) -> None:
        self.ws = ws
        self.prefix = prefix
        self.n = 0
        self.rid = ""
        self.sent = 0.0
        self.done: asyncio.Future[str] | None = None
        self.received = 0

    async def read(self) -> None:
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                continue
            self.received += 1
            data: str = msg.data
            if self.done is not None and not self.done.done() and self.rid in data:
                self.done.set_result(data)
        if self.done is not None and not self.done.done():
            self.done.set_exception(ConnectionError("closed"))


async def _connect(session: aiohttp.ClientSession, url: str, table: str, key: str, user: str) -> Conn:
    ws = await session.ws_connect(
        table_url(url, table), protocols=("verdict.v1",), compress=0, autoping=True, max_msg_size=2**22
    )
    await ws.send_str(hello(table, key, user))
    first = await ws.receive(timeout=30)
    if first.type != aiohttp.WSMsgType.TEXT or first.data.startswith(ERROR):
        raise ConnectionError(f"refused: {first.data!r}")
    return Conn(ws, uuid.uuid4().hex[:8])


def _mine(plan: dict[str, Any], index: int, of: int) -> list[tuple[str, str, str, int]]:
    """This process's share of the plan's connections: (table, key, user, number among all)."""
    conns = [(t, k, u) for t, keys in plan["tables"] for k, u in keys]
    return [(*c, i) for i, c in enumerate(conns)][index::of]


async def _connect_all(
    url: str, mine: list[tuple[str, str, str, int]], route: str = "round-robin"
) -> tuple[aiohttp.ClientSession, list[Conn], int]:
    """Open this process's connections; ``url`` may list several servers (comma-separated): the
    connections go to them in turn, as a round-robin balancer would send them, or (``route`` "table")
    each to the one the proxy picks for its table (:mod:`bench.routing`)."""
    urls = url.split(",")
    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
    gate = asyncio.Semaphore(64)
    failures = 0

    async def one(t: str, k: str, u: str, i: int) -> Conn | None:
        nonlocal failures
        async with gate:
            try:
                target = pick(urls, request_uri(t)) if route == "table" else urls[i % len(urls)]
                return await _connect(session, target, t, k, u)
            except (TimeoutError, aiohttp.ClientError, ConnectionError, OSError):
                failures += 1
                return None

    conns = [c for c in await asyncio.gather(*(one(*x) for x in mine)) if c is not None]
    return session, conns, failures


async def _line() -> str:
    line: str = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    return line.strip()


async def load(
    url: str,
    plan: dict[str, Any],
    index: int,
    of: int,
    duration: float,
    route: str = "round-robin",
    pace: float = 0.0,
) -> dict[str, Any]:
    session, conns, failures = await _connect_all(url, _mine(plan, index, of), route)
    readers = [asyncio.create_task(c.read()) for c in conns]
    print("ready", flush=True)
    await _line()
    lat: list[float] = []
    errors = 0
    timeouts = 0
    start = time.perf_counter()
    end = start + duration

    async def drive(c: Conn, phase: float) -> None:
        nonlocal errors, timeouts
        loop = asyncio.get_running_loop()
        due = start + phase
        first = True
        # Every connection rolls at least once, so a window shorter than the wait for the loop still measures.
        while first or time.perf_counter() < end:
            first = False
            if pace:  # one roll every `pace` seconds, not one as soon as the last is answered
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                due += pace
                if time.perf_counter() >= end:
                    break
            c.n += 1
            c.rid = f"{c.prefix}-{c.n}"
            c.done = loop.create_future()
            t0 = time.perf_counter()
            try:
                await c.ws.send_str(ROLL % c.rid)
                reply = await asyncio.wait_for(c.done, 10.0)
            except TimeoutError:
                timeouts += 1
                continue
            except (ConnectionError, aiohttp.ClientError, RuntimeError):
                errors += 1
                return
            lat.append((time.perf_counter() - t0) * 1e6)
            if reply.startswith(ERROR):
                errors += 1

    await asyncio.gather(*(drive(c, pace * i / max(1, len(conns))) for i, c in enumerate(conns)))
    elapsed = time.perf_counter() - start
    received = sum(c.received for c in conns)
    for c in conns:
        await c.ws.close()
    await asyncio.gather(*readers, return_exceptions=True)
    await session.close()
    return {
        "connections": len(conns),
        "connect_failures": failures,
        "completed": len(lat),
        "elapsed": elapsed,
        "latencies_us": [round(x) for x in lat],
        "errors": errors,
        "timeouts": timeouts,
        "received": received,
    }


async def idle(url: str, plan: dict[str, Any], index: int, of: int) -> dict[str, Any]:
    session, conns, failures = await _connect_all(url, _mine(plan, index, of))
    readers = [asyncio.create_task(c.read()) for c in conns]
    print("ready", flush=True)
    await _line()
    for c in conns:
        await c.ws.close()
    await asyncio.gather(*readers, return_exceptions=True)
    await session.close()
    return {"connections": len(conns), "connect_failures": failures}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.clients")
    p.add_argument("kind", choices=("rtt", "load", "idle"))
    p.add_argument("url")
    p.add_argument("args", nargs="*")
    p.add_argument("--count", type=int, default=2000)
    p.add_argument("--warmup", type=int, default=200)
    p.add_argument("--plan", type=Path)
    p.add_argument("--index", type=int, default=0)
    p.add_argument("--of", type=int, default=1)
    p.add_argument("--duration", type=float, default=10.0)
    p.add_argument("--route", choices=("round-robin", "table"), default="round-robin")
    p.add_argument("--pace", type=float, default=0.0, help="seconds between a connection's rolls (0: closed loop)")
    p.add_argument("--table", default=None)
    p.add_argument("--key", default=None, help="as --key=KEY: a key may begin with '-'")
    a = p.parse_args(argv)
    raise_nofile()
    if a.kind == "rtt":
        table, key = (a.table, a.key) if a.key is not None else a.args
        out = asyncio.run(rtt(a.url, table, key, a.count, a.warmup))
    else:
        plan = json.loads(a.plan.read_text())
        if a.kind == "load":
            out = asyncio.run(load(a.url, plan, a.index, a.of, a.duration, a.route, a.pace))
        else:
            out = asyncio.run(idle(a.url, plan, a.index, a.of))
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
