"""Nothing is lost: restarts, retries across restarts, kill -9 in a burst, clean shutdown."""

from __future__ import annotations

import asyncio
import signal

import pytest
import websockets

from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.boons import BoonsCheck
from protocol.v1.facets import FacetsCheck
from protocol.v1.table import RollEvent
from sidecar.client import Client
from sidecar.state.ledger import SqliteLedger
from sidecar.state.table import _dec

pytestmark = pytest.mark.slow


async def connect(proc, role="gm", user="u1", since=None):
    keys = proc.keys()
    key = _user_keys.get((keys.table, user)) if role == "player" else getattr(keys, role)
    if key is None:
        key = _user_keys[keys.table, user] = proc.user_key(user)
    return await Client.connect(proc.url, keys.table, key, user=user, since=since)


_user_keys: dict[tuple[str, str], str] = {}


async def test_extended_progress_survives_a_restart(sidecar_process):
    gm = await connect(sidecar_process)
    done = await gm.request(m.Gm(id="x", op=t.ExtendedStart(name="Vault", threshold=4, time_unit="hour", trial=1)))
    xid = done.events[0].event.extended
    r = await gm.request(m.Roll(id="a", check=BoonsCheck(ability=1, trial=1, dice=[4, 1]), extended=xid))
    assert r.result.extended.progress == 2
    await gm.close()
    sidecar_process.stop()
    sidecar_process.start()
    gm = await connect(sidecar_process)
    assert gm.welcome.snapshot.extended[xid].progress == 2
    r = await gm.request(m.Roll(id="b", check=BoonsCheck(ability=1, trial=1, dice=[4, 1]), extended=xid))
    assert (r.result.extended.progress, r.result.extended.attempts, r.result.extended.status) == (4, 2, "complete")
    await gm.close()


async def test_a_request_retried_across_a_restart_does_not_roll_twice(sidecar_process):
    p = await connect(sidecar_process, "player", "p1")
    first = await p.request(m.Roll(id="retry-me", check=FacetsCheck(pool=6)))
    await p.close()
    sidecar_process.stop()
    sidecar_process.start()
    p = await connect(sidecar_process, "player", "p1")
    again = await p.request(m.Roll(id="retry-me", check=FacetsCheck(pool=6)))
    assert again == first
    await p.close()
    sidecar_process.stop()
    ledger = SqliteLedger(sidecar_process.data / "verdict.sqlite3")
    assert len(ledger.events(sidecar_process.keys().table)) == 1
    ledger.close()


async def test_kill_9_in_a_burst_loses_no_acknowledged_roll_and_duplicates_none(sidecar_process):
    clients = [await connect(sidecar_process, "player", f"p{i}") for i in range(4)]
    acked: list[m.Rolled] = []

    async def burst(c: Client, n: int) -> None:
        for i in range(n):
            try:
                acked.append(await c.request(m.Roll(id=f"{c.new_id()}-{i}", check=FacetsCheck(pool=3)), timeout=5))
            except (TimeoutError, ConnectionError, websockets.ConnectionClosed):
                return

    tasks = [asyncio.create_task(burst(c, 400)) for c in clients]
    while len(acked) < 60:
        await asyncio.sleep(0.005)
    sidecar_process.stop(signal.SIGKILL)
    await asyncio.gather(*tasks, return_exceptions=True)
    for c in clients:
        await c.close()
    ledger = SqliteLedger(sidecar_process.data / "verdict.sqlite3")
    rows = ledger.events(sidecar_process.keys().table)
    ledger.close()
    seqs = [s for s, _ in rows]
    assert seqs == list(range(1, len(seqs) + 1))  # no gap, no duplicate
    acked_seqs = {r.seq for r in acked}
    assert len(acked_seqs) == len(acked)
    assert acked_seqs <= set(seqs), "an acknowledged roll is missing from the ledger"


async def test_sigterm_closes_sockets_with_1001(sidecar_process):
    c = await connect(sidecar_process)
    sidecar_process.stop(signal.SIGTERM)
    await asyncio.wait_for(c.ws.wait_closed(), 10)
    assert c.ws.close_code == 1001


# --------------------------------------------------------------------------------------------------------------
# kill -9 while players roll together (so their rolls are batched): nothing anyone heard of, a reply or another's
# roll, is missing from the ledger, and what a watcher heard is the ledger's events, in order.
# --------------------------------------------------------------------------------------------------------------


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
