"""A table's waiting requests are handled as one batch: each sees what the one before it did, none is
heard of before the batch is durable, a failed append leaves no trace, and reads wait for the batch.

Real websocket clients against the real app; the ledger is the real SQLite one, wrapped to hold an
append back (to make requests wait together) or to fail one.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Coroutine
from pathlib import Path
from typing import Any

import pytest
import websockets

from protocol.v1 import challenge as challenge_t
from protocol.v1 import feats as feats_t
from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.facets import FacetsCheck
from sidecar.server.app import HUB
from sidecar.state import hearing
from sidecar.state.ledger import Action, SqliteLedger
from sidecar.state.table import RECENT_KEPT, Table
from sidecar.state.visibility import Viewer

from ..conftest import Sidecar, serving
from ..wire import gm_op, refused, state


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
    grant = await arrived(held, gms[0].request(m.Gm(id="grant", op=feats_t.WyrdGrant(actor="Ayla", amount=2))))
    spend = await arrived(held, gms[1].request(m.Gm(id="spend", op=feats_t.WyrdGrant(actor="Ayla", amount=-2))))
    over = await arrived(held, refused(gms[2].request(m.Gm(id="over", op=feats_t.WyrdGrant(actor="Ayla", amount=-1)))))
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
    strain = await arrived(
        held, refused(gms[0].request(m.Gm(id="s", op=challenge_t.StrainSet(actor="Ayla", strain=3))))
    )
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
    again = await gms[0].request(m.Gm(id="s", op=challenge_t.StrainSet(actor="Ayla", strain=3)))
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
        others = [msg.seq for msg in await quiet(p)]
        assert sorted(others + own) == list(range(1, head + 1)) and others == sorted(others)
    for c in [gm, *players]:
        await c.close()


async def test_a_refusal_that_came_of_a_failed_batch_is_unsaid(held: Sidecar) -> None:
    """A request refused on the state an earlier request of its batch left is refused as that batch is:
    the earlier one was never stored, so the refusal's reason never held."""
    ledger: HeldLedger = held.ledger  # type: ignore[assignment]
    gms = [await held.client("gm", user=f"gm-{i}") for i in range(2)]
    await gms[0].request(m.Gm(id="grant", op=feats_t.WyrdGrant(actor="Ayla", amount=1)))
    first, task = await _blocked(held)
    ledger.fail = {len(ledger.batches) + 1}
    spend = await arrived(held, refused(gms[0].request(m.Gm(id="a", op=feats_t.WyrdGrant(actor="Ayla", amount=-1)))))
    again = await arrived(held, refused(gms[1].request(m.Gm(id="b", op=feats_t.WyrdGrant(actor="Ayla", amount=-1)))))
    ledger.hold.set()  # type: ignore[union-attr]
    await task
    # without the failure "b" would be refused for want of Wyrd; as it is, neither happened
    assert await spend == "ledger_unavailable" and await again == "ledger_unavailable"
    done = await gms[1].request(m.Gm(id="b", op=feats_t.WyrdGrant(actor="Ayla", amount=-1)))
    assert isinstance(done, m.Done) and (await state(gms[1])).actors["Ayla"].wyrd == 0
    for c in [*gms, first]:
        await c.close()


async def test_a_batch_longer_than_the_tables_memory_keeps_every_event_it_has_not_stored(held: Sidecar) -> None:
    """The table keeps a few recent events in memory and reads older ones from the ledger; a batch's events
    are in memory only until its append, so none of them may be let go before then, however many."""
    from sidecar.server.app import HUB

    ledger: HeldLedger = held.ledger  # type: ignore[assignment]
    gm = await held.client("gm", user="gm-main")
    await gm.request(m.Gm(id="warm", op=challenge_t.StrainSet(actor="Warm", strain=1)))
    table = held.server.app[HUB].tables[held.keys.table].table  # type: ignore[union-attr]
    table.recent_kept = 2
    gms = [await held.client("gm", user=f"gm-{i}") for i in range(9)]
    first, task = await _blocked(held)
    asks = []
    for i, c in enumerate(gms[:8]):
        asks.append(await arrived(held, c.request(m.Gm(id=f"s{i}", op=challenge_t.StrainSet(actor=f"A{i}", strain=2)))))
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


async def quiet(c: Any) -> list[Any]:
    """Every message the table has told ``c`` so far (up to its socket's close). A ``state`` request waits for the
    table's lock, which a batch holds until everyone is told: its reply comes after all the batch sent ``c``."""
    with contextlib.suppress(websockets.ConnectionClosed):
        await c.request(m.State(id=c.new_id()), timeout=60)
    out = []
    while not c.inbox.empty() and (msg := c.inbox.get_nowait()) is not None:
        out.append(msg)
    return out


# --------------------------------------------------------------------------------------------------------------
# Request ids as idempotency keys when requests are batched: the same id twice in one batch, the same id again
# after its batch failed, and a requester whose socket closes while its batch is in flight (on the ``held``
# sidecar, its appends held back or made to fail).
# --------------------------------------------------------------------------------------------------------------


async def test_the_same_id_twice_in_one_batch_is_one_action(held: Sidecar) -> None:
    ledger: HeldLedger = held.ledger  # type: ignore[assignment]
    watcher = await held.client("observer")
    a = await held.client("player", user="p1")
    b = await held.client("player", user="p1")  # the same player on a second socket
    first, task = await _blocked(held)
    one = await arrived(held, a.request(m.Roll(id="same", check=FacetsCheck(pool=3))))
    two = await arrived(held, b.request(m.Roll(id="same", check=FacetsCheck(pool=3))))
    assert not one.done() and not two.done()
    ledger.hold.set()  # type: ignore[union-attr]
    held_roll = await task
    r1, r2 = await one, await two
    assert r1 == r2 and r1.seq == held_roll.seq + 1
    events = ledger.events(held.keys.table)
    assert [s for s, _ in events] == [held_roll.seq, r1.seq]
    heard = [x.seq for x in await quiet(watcher)]
    assert heard == [held_roll.seq, r1.seq]  # each once, in order
    for c in [watcher, a, b, first]:
        await c.close()


async def test_the_same_id_after_its_batch_failed_is_done_once(held: Sidecar) -> None:
    ledger: HeldLedger = held.ledger  # type: ignore[assignment]
    watcher = await held.client("observer")
    gm = await held.client("gm", user="gm-1")
    gm2 = await held.client("gm", user="gm-1")  # the same GM user on a second socket
    first, task = await _blocked(held)
    ledger.fail = {len(ledger.batches) + 1}
    op = feats_t.WyrdGrant(actor="Ayla", amount=1)
    one = await arrived(held, refused(gm.request(m.Gm(id="g", op=op))))
    # the same id, waiting behind the first: once that is refused, it is a new request in the next turn
    two = await arrived(held, gm2.request(m.Gm(id="g", op=op)))
    ledger.hold.set()  # type: ignore[union-attr]
    held_roll = await task
    assert await one == "ledger_unavailable"
    done = await two
    assert done.seq == held_roll.seq + 1
    again = await gm.request(m.Gm(id="g", op=op))  # the first socket retries: answered, not done again
    assert again == done
    fresh = Table(held.keys.table, held.ledger)
    fresh.load()
    assert fresh.head == done.seq and fresh.state.actors["Ayla"].wyrd == 1
    heard = [x.seq for x in await quiet(watcher)]
    assert heard == [held_roll.seq, done.seq]
    for c in [watcher, gm, gm2, first]:
        await c.close()


async def test_a_requester_gone_mid_batch_is_done_once_and_answered_on_retry(held: Sidecar) -> None:
    ledger: HeldLedger = held.ledger  # type: ignore[assignment]
    watcher = await held.client("observer")
    p1 = await held.client("player", user="p1")
    p2 = await held.client("player", user="p2")
    first, task = await _blocked(held)
    gone = await arrived(held, p1.request(m.Roll(id="r", check=FacetsCheck(pool=2))))
    stays = await arrived(held, p2.request(m.Roll(id="r2", check=FacetsCheck(pool=2))))
    # the requester leaves while its request waits in the batch (its socket cut: the server is not reading it)
    p1.ws.transport.abort()
    ledger.hold.set()  # type: ignore[union-attr]
    held_roll = await task
    mine = await stays
    await asyncio.gather(gone, return_exceptions=True)
    events = ledger.events(held.keys.table)
    assert len(events) == 3 and ledger.batches[-1] == 2  # both rolls, one batch, durable
    heard = [x.seq for x in await quiet(watcher)]
    assert heard == [held_roll.seq, held_roll.seq + 1, held_roll.seq + 2]
    back = await held.client("player", user="p1", since=held_roll.seq)
    assert back.welcome is not None and [e.seq for e in back.welcome.events] == [held_roll.seq + 1, held_roll.seq + 2]
    again = await back.request(m.Roll(id="r", check=FacetsCheck(pool=2)))
    assert again.seq in (held_roll.seq + 1, held_roll.seq + 2) and again.seq != mine.seq and again.user == "p1"
    assert len(ledger.events(held.keys.table)) == 3  # answered from the ledger, not rolled again
    for c in [watcher, p2, back, first]:
        await c.close()


# --------------------------------------------------------------------------------------------------------------
# Secrets in one batch: a player's `self` roll (whose own projection is made from then on), a hidden complication,
# and an undo of it, handled together. Each viewer hears what a fresh read of the ledger shows them, and no more:
# nobody but the roller and the GM hears of the self roll, no player of the complication or of its undo; every
# snapshot is the one a fresh load gives that viewer (on the ``held`` sidecar, to make requests wait together).
# --------------------------------------------------------------------------------------------------------------


async def test_secrets_in_one_batch_reach_only_their_viewers(held: Sidecar) -> None:
    ledger: HeldLedger = held.ledger  # type: ignore[assignment]
    p1 = await held.client("player", user="p1")
    p2 = await held.client("player", user="p2")
    watcher = await held.client("observer")
    gm = await held.client("gm", user="gm-1")
    gm2 = await held.client("gm", user="gm-2")
    await p2.request(m.Roll(id="warm", check=FacetsCheck(pool=1)))  # the players' shared view exists
    await state(p2)
    for c in (p1, watcher, gm, gm2):
        await quiet(c)
    first, task = await _blocked(held)
    own = await arrived(held, p1.request(m.Roll(id="own", check=FacetsCheck(pool=3), mode="self")))
    add = await arrived(
        held,
        gm.request(m.Gm(id="hide", op=challenge_t.ComplicationAdd(scene="Hall", text="the floor gives", hidden=True))),
    )
    undo = await arrived(held, gm2.request(m.Gm(id="undo", op=t.Undo(count=1))))
    ledger.hold.set()  # type: ignore[union-attr]
    held_roll = await task
    mine, added, undone = await own, await add, await undo
    assert ledger.batches[-1] == 3
    assert mine.result is not None and undone.events[0].event.seqs == [added.seq]

    p2_heard = await quiet(p2)
    watcher_heard = await quiet(watcher)
    for heard in (p2_heard, watcher_heard):
        # the held GM roll only: not the self roll, not the hidden complication, not its undo
        assert [x.seq for x in heard] == [held_roll.seq], heard
    gm_heard = await quiet(gm)
    assert [x.seq for x in gm_heard] == [held_roll.seq, undone.seq]  # a `self` roll is the roller's alone

    fresh = Table(held.keys.table, held.ledger)
    fresh.load()
    for c, viewer in ((p1, Viewer("player", "p1")), (p2, Viewer("player", "p2")), (gm, Viewer("gm", "gm-1"))):
        assert await state(c) == hearing.snapshot(fresh, viewer)
    assert "Hall" not in (await state(p2)).scenes or not (await state(p2)).scenes["Hall"].complications
    for c in [p1, p2, watcher, gm, gm2, first]:
        await c.close()


# --------------------------------------------------------------------------------------------------------------
# An undo batched behind other actions, on a table longer than the events it keeps in memory. An ``undone``
# rebuilds every projection from the table's history (``Table.stored``). Once a table holds more events than its
# recent window, that history comes from the ledger, which does not yet hold the actions of the batch applied
# before the undo: the rebuild dropped them from the table's state (on the ``held`` sidecar, to make requests wait
# together).
# --------------------------------------------------------------------------------------------------------------


async def test_an_undo_batched_behind_other_actions_keeps_them_on_a_long_table(held: Sidecar) -> None:
    ledger: HeldLedger = held.ledger  # type: ignore[assignment]
    gm = await held.client("gm", user="gm-main")
    for i in range(2 * RECENT_KEPT + 10):  # more than the table keeps in memory
        await gm_op(gm, challenge_t.StrainSet(actor="Filler", strain=i % 4))
    gms = [await held.client("gm", user=f"gm-{i}") for i in range(3)]
    first, task = await _blocked(held)
    # while the table is busy, three GMs ask at once: one batch of [strain, grant, undo the grant]
    strain = await arrived(held, gms[0].request(m.Gm(id="strain", op=challenge_t.StrainSet(actor="Ayla", strain=3))))
    grant = await arrived(held, gms[1].request(m.Gm(id="grant", op=feats_t.WyrdGrant(actor="Bren", amount=2))))
    undo = await arrived(held, gms[2].request(m.Gm(id="undo", op=t.Undo(count=1))))
    ledger.hold.set()  # type: ignore[union-attr]
    await task
    s, g, u = await strain, await grant, await undo
    assert s.seq + 1 == g.seq and g.seq + 1 == u.seq
    assert ledger.batches[-1] == 3  # they were one batch
    assert u.events[0].event.seqs == [g.seq]  # the undo took back the grant only

    fresh = Table(held.keys.table, held.ledger)
    fresh.load()
    assert fresh.head == u.seq
    assert fresh.state.actors["Ayla"].strain == 3  # the ledger: the strain stands, the grant is undone
    snap = await state(gm)
    assert snap.seq == u.seq
    # the sidecar's own state must be the ledger's: the strain set in the same batch is still there
    assert "Ayla" in snap.actors and snap.actors["Ayla"].strain == 3
    for c in [gm, *gms, first]:
        await c.close()
