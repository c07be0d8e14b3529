"""kill -9 while players roll together (so their rolls are batched): nothing anyone heard of, a reply or
another's roll, is missing from the ledger, and what a watcher heard is the ledger's events, in order."""

from __future__ import annotations

import asyncio
import signal

import pytest
import websockets

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from protocol.v1.table import RollEvent
from sidecar.client import Client
from sidecar.state.ledger import SqliteLedger
from sidecar.state.table import _dec

pytestmark = pytest.mark.slow


async def test_kill_9_mid_batches_loses_nothing_anyone_heard(sidecar_process) -> None:  # type: ignore[no-untyped-def]
    proc = sidecar_process
    keys = proc.keys()
    watcher = await Client.connect(proc.url, keys.table, keys.observer)
    players = [await Client.connect(proc.url, keys.table, proc.user_key(f"p{i}"), user=f"p{i}") for i in range(6)]
    acked: list[m.Rolled] = []

    async def burst(c: Client) -> None:
        for _ in range(400):
            try:
                acked.append(await c.request(m.Roll(id=c.new_id(), check=FacetsCheck(pool=3)), timeout=5))
            except (TimeoutError, ConnectionError, websockets.ConnectionClosed):
                return

    tasks = [asyncio.create_task(burst(c)) for c in players]
    while len(acked) < 80:
        await asyncio.sleep(0.005)
    proc.stop(signal.SIGKILL)
    await asyncio.gather(*tasks, return_exceptions=True)
    heard: list[m.Rolled] = []
    while (msg := await watcher.next(timeout=2)) is not None:
        heard.append(msg)
    others: list[m.Rolled] = []
    for p in players:
        while (msg := await p.next(timeout=0.5)) is not None:
            others.append(msg)
    for c in [watcher, *players]:
        await c.close()

    ledger = SqliteLedger(proc.data / "verdict.sqlite3")
    rows = ledger.events(keys.table)
    ledger.close()
    stored = {seq: _dec.decode(data).event for seq, data in rows}
    assert sorted(stored) == list(range(1, len(stored) + 1))  # no gap, no duplicate
    # the watcher heard a prefix of the ledger, in seq order, each roll as stored
    assert [r.seq for r in heard] == list(range(1, len(heard) + 1))
    for r in [*heard, *others, *acked]:
        ev = stored.get(r.seq)
        assert isinstance(ev, RollEvent), f"seq {r.seq} was heard of but is not in the ledger"
        assert (ev.check_id, ev.user) == (r.check, r.user) and r.result == ev.result
