"""A table's waiting requests are handled as one batch: each sees what the one before it did, none is
heard of before the batch is durable, a failed append leaves no trace, and reads wait for the batch.

Real websocket clients against the real app; the ledger is the real SQLite one, wrapped to hold an
append back (to make requests wait together) or to fail one.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Coroutine
from pathlib import Path
from typing import Any

import pytest

from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.facets import FacetsCheck
from sidecar.server.app import HUB
from sidecar.state.ledger import Action, SqliteLedger
from sidecar.state.table import Table

from ..conftest import Sidecar, serving
from ..wire import refused, state


class HeldLedger(SqliteLedger):
    """The SQLite ledger, with appends that can be held back until released, or made to fail once."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.batches: list[int] = []
        """Actions per append, in order."""
        self.hold: asyncio.Event | None = None
        self.entered = asyncio.Event()
        self.fail: set[int] = set()
        """Appends (counted from 1) that fail as a disk that cannot write would."""

    async def append_actions(self, table_id: str, actions: list[Action]) -> None:
        self.batches.append(len(actions))
        self.entered.set()
        if self.hold is not None:
            await self.hold.wait()
        if len(self.batches) in self.fail:
            raise sqlite3.OperationalError("disk I/O error")
        await super().append_actions(table_id, actions)


@pytest.fixture
async def held(tmp_path: Path) -> AsyncIterator[Sidecar]:
    async with serving(tmp_path, HeldLedger(tmp_path / "verdict.sqlite3")) as sc:
        yield sc


async def arrived(sidecar: Sidecar, request: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
    """Send a request and return once the sidecar has taken it in (to wait at the busy table): requests sent
    one after another this way wait in that order, however slow the machine."""
    from sidecar.server.app import METRICS

    metrics = sidecar.server.app[METRICS]  # type: ignore[union-attr]
    before = sum(metrics.requests.values())
    task = asyncio.create_task(request)
    deadline = asyncio.get_running_loop().time() + 10
    while sum(metrics.requests.values()) <= before:
        assert asyncio.get_running_loop().time() < deadline, "the sidecar never took the request in"
        await asyncio.sleep(0.002)
    await asyncio.sleep(0)  # the frame's handler runs on to the table's queue in the same step
    return task


async def _blocked(sidecar: Sidecar) -> tuple[Any, asyncio.Task[Any]]:
    """A roll whose append is held: the table is busy until ``ledger.hold`` is set."""
    ledger: HeldLedger = sidecar.ledger  # type: ignore[assignment]
    ledger.hold = asyncio.Event()
    ledger.entered.clear()
    first = await sidecar.client("gm", user="gm-first")
    task = asyncio.create_task(first.request(m.Roll(id="first", check=FacetsCheck(pool=2))))
    await asyncio.wait_for(ledger.entered.wait(), 5)
    return first, task


async def test_requests_waiting_together_see_each_others_effects(held: Sidecar) -> None:
    ledger: HeldLedger = held.ledger  # type: ignore[assignment]
    gms = [await held.client("gm", user=f"gm-{i}") for i in range(3)]
    first, task = await _blocked(held)
    # while the table is busy, three GMs ask at once: they wait together, in arrival order
    grant = await arrived(held, gms[0].request(m.Gm(id="grant", op=t.WyrdGrant(actor="Ayla", amount=2))))
    spend = await arrived(held, gms[1].request(m.Gm(id="spend", op=t.WyrdGrant(actor="Ayla", amount=-2))))
    over = await arrived(held, refused(gms[2].request(m.Gm(id="over", op=t.WyrdGrant(actor="Ayla", amount=-1)))))
    assert not grant.done() and not spend.done() and not over.done()  # nobody hears before it is durable
    ledger.hold.set()  # type: ignore[union-attr]
    await task
    # the spend saw the grant (Ayla had 2), the last saw the spend (Ayla had 0)
    assert (await grant).seq + 1 == (await spend).seq
    assert await over == "insufficient_wyrd"
    assert ledger.batches[-2:] == [1, 2]  # the held roll, then the grant and the spend in one append
    assert (await state(gms[2])).actors["Ayla"].wyrd == 0
    for c in [*gms, first]:
        await c.close()


async def test_a_failed_append_refuses_the_whole_batch_and_leaves_no_trace(held: Sidecar) -> None:
    ledger: HeldLedger = held.ledger  # type: ignore[assignment]
    watcher = await held.client("observer")
    gms = [await held.client("gm", user=f"gm-{i}") for i in range(2)]
    first, task = await _blocked(held)
    ledger.fail = {len(ledger.batches) + 1}  # the batch after the held roll
    strain = await arrived(held, refused(gms[0].request(m.Gm(id="s", op=t.StrainSet(actor="Ayla", strain=3)))))
    roll = await arrived(held, refused(gms[1].request(m.Roll(id="r", check=FacetsCheck(pool=3)))))
    ledger.hold.set()  # type: ignore[union-attr]
    rolled = await task
    assert isinstance(await watcher.next(), m.Rolled)  # the held roll was durable, and told
    # the strain and the roll were one batch (the roll prepared on the strain's state): refused as a whole
    assert await strain == "ledger_unavailable" and await roll == "ledger_unavailable"
    assert ledger.batches[-1] == 2
    with pytest.raises(asyncio.TimeoutError):
        await watcher.next(timeout=0.3)  # nobody heard of the refused batch
    after = await state(gms[0])
    assert after.seq == rolled.seq and "Ayla" not in after.actors  # the table went back to the ledger's
    # the same ids again: they were never stored, so they are done now, with the next seqs
    again = await gms[0].request(m.Gm(id="s", op=t.StrainSet(actor="Ayla", strain=3)))
    assert again.seq == rolled.seq + 1
    told = await watcher.next()
    assert isinstance(told, m.EventBroadcast) and told.seq == again.seq
    fresh = Table(held.keys.table, held.ledger)
    fresh.load()
    assert fresh.head == again.seq and fresh.state.actors["Ayla"].strain == 3
    for c in [*gms, first, watcher]:
        await c.close()


async def test_state_verify_and_joins_wait_for_the_batch_in_flight(held: Sidecar) -> None:
    ledger: HeldLedger = held.ledger  # type: ignore[assignment]
    reader = await held.client("player", user="p1")
    first, task = await _blocked(held)
    snap = asyncio.create_task(reader.request(m.State(id="s")))
    # the held roll's check id (random): the table holds it in memory already, not yet durable
    (held_check,) = held.server.app[HUB].tables[held.keys.table].table.state.checks  # type: ignore[union-attr]
    verify = asyncio.create_task(reader.request(m.Verify(id="v", check=held_check)))
    join = asyncio.create_task(held.client("player", user="p2"))
    await asyncio.sleep(0.2)
    # the roll is in the table's memory but not durable: nobody may read it yet
    assert not snap.done() and not verify.done() and not join.done()
    ledger.hold.set()  # type: ignore[union-attr]
    rolled = await task
    assert (await snap).snapshot.seq == rolled.seq
    assert (await verify).found
    late = await join
    assert late.welcome.seq == rolled.seq
    for c in [reader, first, late]:
        await c.close()


async def test_many_players_rolling_at_once_hear_every_action_once_in_seq_order(held: Sidecar) -> None:
    ledger: HeldLedger = held.ledger  # type: ignore[assignment]
    gm = await held.client("gm", user="gm-watch")
    players = [await held.client("player", user=f"p{i}") for i in range(6)]

    async def rolls(c: Any, n: int) -> list[int]:
        return [(await c.request(m.Roll(id=f"{c.new_id()}", check=FacetsCheck(pool=2)))).seq for _ in range(n)]

    mine = await asyncio.gather(*(rolls(p, 8) for p in players))
    head = max(max(s) for s in mine)
    assert head == 6 * 8
    assert max(ledger.batches) > 1  # they did wait together
    heard = []
    while len(heard) < head:
        heard.append((await gm.next()).seq)
    assert heard == list(range(1, head + 1))  # every roll once, in seq order, no gap
    for p, own in zip(players, mine):
        others = []
        while (msg := await _next_or_none(p)) is not None:
            others.append(msg.seq)
        assert sorted(others + own) == list(range(1, head + 1)) and others == sorted(others)
    for c in [gm, *players]:
        await c.close()


async def _next_or_none(c: Any) -> Any:
    try:
        return await c.next(timeout=0.3)
    except TimeoutError:
        return None


async def test_a_refusal_that_came_of_a_failed_batch_is_unsaid(held: Sidecar) -> None:
    """A request refused on the state an earlier request of its batch left is refused as that batch is:
    the earlier one was never stored, so the refusal's reason never held."""
    ledger: HeldLedger = held.ledger  # type: ignore[assignment]
    gms = [await held.client("gm", user=f"gm-{i}") for i in range(2)]
    await gms[0].request(m.Gm(id="grant", op=t.WyrdGrant(actor="Ayla", amount=1)))
    first, task = await _blocked(held)
    ledger.fail = {len(ledger.batches) + 1}
    spend = await arrived(held, refused(gms[0].request(m.Gm(id="a", op=t.WyrdGrant(actor="Ayla", amount=-1)))))
    again = await arrived(held, refused(gms[1].request(m.Gm(id="b", op=t.WyrdGrant(actor="Ayla", amount=-1)))))
    ledger.hold.set()  # type: ignore[union-attr]
    await task
    # without the failure "b" would be refused for want of Wyrd; as it is, neither happened
    assert await spend == "ledger_unavailable" and await again == "ledger_unavailable"
    done = await gms[1].request(m.Gm(id="b", op=t.WyrdGrant(actor="Ayla", amount=-1)))
    assert isinstance(done, m.Done) and (await state(gms[1])).actors["Ayla"].wyrd == 0
    for c in [*gms, first]:
        await c.close()


async def test_a_batch_longer_than_the_tables_memory_keeps_every_event_it_has_not_stored(held: Sidecar) -> None:
    """The table keeps a few recent events in memory and reads older ones from the ledger; a batch's events
    are in memory only until its append, so none of them may be let go before then, however many."""
    from sidecar.server.app import HUB

    ledger: HeldLedger = held.ledger  # type: ignore[assignment]
    gm = await held.client("gm", user="gm-main")
    await gm.request(m.Gm(id="warm", op=t.StrainSet(actor="Warm", strain=1)))
    table = held.server.app[HUB].tables[held.keys.table].table  # type: ignore[union-attr]
    table.recent_kept = 2
    gms = [await held.client("gm", user=f"gm-{i}") for i in range(9)]
    first, task = await _blocked(held)
    asks = []
    for i, c in enumerate(gms[:8]):
        asks.append(await arrived(held, c.request(m.Gm(id=f"s{i}", op=t.StrainSet(actor=f"A{i}", strain=2)))))
    undo = await arrived(held, gms[8].request(m.Gm(id="undo", op=t.Undo(count=7))))  # all but A0
    ledger.hold.set()  # type: ignore[union-attr]
    await task
    await asyncio.gather(*asks)
    assert ledger.batches[-1] == 9 and len((await undo).events[0].event.seqs) == 7
    snap = await state(gm)
    fresh = Table(held.keys.table, held.ledger)
    fresh.load()
    assert snap.actors == fresh.snapshot(fresh_viewer()).actors
    assert snap.actors["A0"].strain == 2 and all(f"A{i}" not in snap.actors for i in range(1, 8))
    for c in [gm, *gms, first]:
        await c.close()


def fresh_viewer() -> Any:
    from sidecar.state.visibility import Viewer

    return Viewer("gm", None)


async def quiet(c: Any, timeout: float = 0.3) -> list[Any]:
    """Every message ``c`` hears until it hears nothing for ``timeout`` seconds (or its socket closes)."""
    out = []
    while True:
        try:
            msg = await c.next(timeout=timeout)
        except TimeoutError:
            return out
        if msg is None:
            return out
        out.append(msg)
