"""A server for the benchmarks, in its own process: Verdict's app, or the bare aiohttp echo anchor.

    python -m bench.serve verdict --data DIR --tables N [--ledger postgresql://...]
    python -m bench.serve echo --reply-size BYTES

Listens on 127.0.0.1 on a free port and prints one JSON line: ``{"port": P, "pid": ..., "tables":
[[table, gm_key, player_key, {user: user_key}], ...]}``; then serves until stdin closes or SIGTERM.

Verdict runs as ``verdict serve`` builds it (:func:`sidecar.server.app.create_app`, the same
websocket settings), with two differences a benchmark needs: the rate limits and connection caps are
lifted (one client doing round trips back to back would exceed 20/s; a thousand connections come from
one address), and logging is at WARNING, so the per-join log line does not go to a pipe nobody reads.

The echo anchor does the least a server of this shape can: the first frame joins a group (its
``table``), every later frame is answered with a frame of ``--reply-size`` bytes that begins with the
request (so the client can find its reply) and the same frame goes to everyone else in the group.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import stat
import sys
from pathlib import Path

import structlog
from aiohttp import WSMsgType, web

from .common import raise_nofile, run_on_loop

TableInfo = tuple[str, str, str, dict[str, str]]
"""A table as the first line lists it: its id, the GM key, the table-wide player key, the per-user player keys."""


async def serve_verdict(
    data: Path, tables: int, ledger_url: str | None = None
) -> tuple[web.AppRunner, list[TableInfo]]:
    from sidecar.server.app import Settings, create_app
    from sidecar.state.ledger import SqliteLedger, open_ledger

    data.mkdir(parents=True, exist_ok=True)
    # SQLite in data (committing as BENCH_COMMIT says: thread, the default, or loop), or a shared PostgreSQL ledger
    commit = os.environ.get("BENCH_COMMIT")
    ledger = (
        SqliteLedger(data / "verdict.sqlite3", commit=commit)
        if commit and not ledger_url
        else open_ledger(ledger_url, data)
    )
    keys = [ledger.create_table(f"bench-{i}") for i in range(tables)]
    settings = Settings(
        host="127.0.0.1",
        port=0,
        data=data,
        rate=1e9,
        burst=1e9,
        max_connections=1_000_000,
        max_per_address=1_000_000,
        hello_timeout=600.0,
    )
    app = create_app(settings, ledger)
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    from sidecar.state.keys import derive_user_key

    # A player rolls as a user with that user's own key (the table-wide player key binds to no user).
    users = {}
    for k in keys:
        secret = ledger.user_secret(k.table)
        users[k.table] = (
            {f"player-{j}": derive_user_key(secret, f"player-{j}") for j in range(1, USER_KEYS + 1)} if secret else {}
        )
    return runner, [(k.table, k.gm, k.player, users[k.table]) for k in keys]


USER_KEYS = 15
"""Per-user player keys made per table (``player-1`` ...): enough for tables of up to 16."""


async def echo(request: web.Request) -> web.WebSocketResponse:
    groups: dict[str, set[web.WebSocketResponse]] = request.app[GROUPS]
    size: int = request.app[SIZE]
    # The settings Verdict uses: no permessage-deflate, the same heartbeat and subprotocols.
    ws = web.WebSocketResponse(protocols=("verdict.v1", "verdict.v1+msgpack"), compress=False, heartbeat=30.0)
    await ws.prepare(request)
    group: set[web.WebSocketResponse] | None = None
    try:
        async for frame in ws:
            if frame.type != WSMsgType.TEXT:
                continue
            if group is None:
                group = groups.setdefault(json.loads(frame.data).get("table", ""), set())
                group.add(ws)
                await ws.send_str('{"type":"welcome"}')
                continue
            data = frame.data
            reply = data + " " * (size - len(data)) if size > len(data) else data
            await ws.send_str(reply)
            for other in list(group):
                if other is not ws:
                    try:
                        await other.send_str(reply)
                    except (ConnectionError, RuntimeError):
                        pass
    finally:
        if group is not None:
            group.discard(ws)
    return ws


GROUPS = web.AppKey("groups", dict)
SIZE = web.AppKey("size", int)


async def serve_echo(size: int) -> web.AppRunner:
    app = web.Application()
    app[GROUPS] = {}
    app[SIZE] = size
    app.router.add_get("/ws", echo)
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    return runner


async def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.serve")
    p.add_argument("kind", choices=("verdict", "echo"))
    p.add_argument("--data", type=Path, default=None)
    p.add_argument("--tables", type=int, default=1)
    p.add_argument("--reply-size", type=int, default=0)
    p.add_argument("--ledger", default=None, help="a PostgreSQL ledger (default: SQLite in --data)")
    args = p.parse_args(argv)
    raise_nofile()
    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
    )
    if args.kind == "verdict":
        if args.data is None:
            p.error("verdict needs --data")
        runner, tables = await serve_verdict(args.data, args.tables, args.ledger)
    else:
        from sidecar.server.app import tune_gc

        tune_gc()  # the collector set as Verdict's server sets it, so the ratios stay fair
        runner, tables = await serve_echo(args.reply_size), []
    site = web.TCPSite(runner, "127.0.0.1", 0, backlog=4096)
    await site.start()
    port: int = runner.addresses[0][1]  # the one site's socket: (host, port)
    print(json.dumps({"port": port, "pid": os.getpid(), "tables": tables}), flush=True)

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    # The parent holds our stdin; when it goes away (even killed), so do we.
    if stat.S_ISFIFO(os.fstat(sys.stdin.fileno()).st_mode):
        await loop.connect_read_pipe(lambda: _Closed(stop), sys.stdin)
    await stop.wait()
    await runner.cleanup()


class _Closed(asyncio.Protocol):
    def __init__(self, stop: asyncio.Event) -> None:
        self.stop = stop

    def connection_lost(self, exc: Exception | None) -> None:
        self.stop.set()


if __name__ == "__main__":
    if os.environ.get("BENCH_PROFILE"):  # for looking into the server: a cProfile dump at exit
        import cProfile
        import time

        # The loop thread's CPU time, not the wall clock: on a busy machine the wall clock charges
        # whatever function was running with the time the process waited for a core.
        # BENCH_PROFILE_TIMER=wall profiles with the wall clock instead.
        wall = os.environ.get("BENCH_PROFILE_TIMER") == "wall"
        profile = cProfile.Profile() if wall else cProfile.Profile(time.thread_time)
        try:
            profile.runcall(run_on_loop, main())
        finally:
            profile.dump_stats(os.environ["BENCH_PROFILE"])
    else:  # Verdict and the echo on the same loop (BENCH_LOOP, else verdict serve's), so the ratios stay fair
        run_on_loop(main())
