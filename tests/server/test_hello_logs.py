"""What a refused hello or origin leaves in `verdict serve`'s output: one line per source per minute,
saying what was wrong and what to do, however many were refused."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import structlog
import websockets

from tests.serving import Process, free_port


def lines(log: Path, event: str) -> list[dict]:
    out = []
    for line in log.read_text().splitlines():
        try:
            said = json.loads(line)
        except ValueError:
            continue  # the banner, the keys
        if said.get("event") == event:
            out.append(said)
    return out


async def refused_hello(url: str, table: str, key: str, user: str | None = None, source: str = "127.0.0.1") -> int:
    async with websockets.connect(url, subprotocols=["verdict.v1"], local_addr=(source, 0)) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "hello", "table": table, "key": key, "user": user}))
        reply = json.loads(await ws.recv())
        assert reply["code"] in ("unauthorized", "user_key_required"), reply
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await ws.recv()
        assert closed.value.rcvd is not None
        return closed.value.rcvd.code


@pytest.mark.slow
def test_refused_hellos_and_origins_are_logged_once_per_source_with_what_to_do(tmp_path):
    log = tmp_path / "server.log"
    server = Process(tmp_path / "data", free_port(), log=log)
    server.start()
    try:
        keys = server.keys()

        async def run() -> None:
            # an unknown table, 50 times from one address, then once from two others
            codes = [await refused_hello(server.url, "no-such-table", keys.gm) for _ in range(50)]
            codes += [await refused_hello(server.url, "no-such-table", keys.gm, source=f"127.0.0.{i}") for i in (2, 3)]
            assert set(codes) == {4401}
            # a wrong key for a table that is, from a fourth address; a table-wide key naming a user, a fifth
            await refused_hello(server.url, keys.table, "not-the-key", source="127.0.0.4")
            await refused_hello(server.url, keys.table, keys.player, user="alice", source="127.0.0.5")
            # a refused origin, 50 times from one address
            for _ in range(50):
                with pytest.raises(websockets.InvalidStatus) as refused:
                    await websockets.connect(
                        server.url,
                        subprotocols=["verdict.v1"],  # type: ignore[list-item]
                        origin="https://foundry.example.org",  # type: ignore[arg-type]
                        local_addr=("127.0.0.6", 0),
                    )
                assert refused.value.response.status_code == 403
            # a roll after them: the log is written in order, so every line above is in it by now
            async with websockets.connect(server.url, subprotocols=["verdict.v1"]) as ws:  # type: ignore[list-item]
                await ws.send(json.dumps({"type": "hello", "table": keys.table, "key": keys.gm}))
                assert json.loads(await ws.recv())["type"] == "welcome"

        asyncio.run(run())
    finally:
        server.stop()
    hellos = lines(log, "hello_refused")
    by_source = {line["remote"]: line for line in hellos}
    assert len(hellos) == len(by_source) == 5, hellos  # one line per source, not one per refusal
    unknown = by_source["127.0.0.1"]
    assert unknown["why"] == "unknown table 'no-such-table'"
    assert "Table id" in unknown["to_do"] and "verdict table list" in unknown["to_do"]
    assert by_source["127.0.0.2"]["why"] == by_source["127.0.0.3"]["why"] == unknown["why"]
    wrong = by_source["127.0.0.4"]
    assert wrong["why"] == f"wrong key for table {keys.table!r}" and "GM key" in wrong["to_do"], wrong
    assert "not-the-key" not in json.dumps(hellos)  # a key, right or wrong, is never logged
    assert "verdict table user-key" in by_source["127.0.0.5"]["to_do"] and "'alice'" in by_source["127.0.0.5"]["why"]
    (origin,) = lines(log, "origin_refused")
    assert origin["remote"] == "127.0.0.6" and "--allow-origin https://foundry.example.org" in origin["to_do"]


def test_refusals_from_many_sources_are_a_few_lines_and_a_count():
    """A flood from many addresses: a line for each of the first sources of the minute, up to the cap over
    all of them, then nothing; the next line written says how many were left out meanwhile."""
    from sidecar.server.limits import PerSource

    told = PerSource(interval=3600, lines=10, max_names=50)
    written = [told.due("hello_refused", f"203.0.113.{i}") for i in range(200)]
    assert written == [True] * 10 + [False] * 190
    assert not told.due("hello_refused", "203.0.113.1")  # once per source per interval, cap or not
    assert told.left_out == 191 and len(told.last) == 10
    told.window -= 3600  # the next minute: a new line says what the last one left out
    assert told.due("hello_refused", "198.51.100.7")
    with structlog.testing.capture_logs() as said:
        told.warning("hello_refused", "198.51.100.7", why="unknown table 'x'")
    assert told.left_out == 0 and said[0]["left_out"] == 191 and said[0]["remote"] == "198.51.100.7"
    for i in range(100):  # the sources remembered stay bounded, the oldest forgotten first
        told.window -= 3600
        told.due("hello_refused", f"192.0.2.{i}")
    assert len(told.last) <= 50 and ("hello_refused", "192.0.2.99") in told.last
