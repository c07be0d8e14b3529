"""Request ids as idempotency keys when requests are batched: the same id twice in one batch, the same id
again after its batch failed, and a requester whose socket closes while its batch is in flight.

Real websocket clients against the real app, over the real SQLite ledger held back or made to fail as in
``test_batched_requests``.
"""

from __future__ import annotations

import asyncio

from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.facets import FacetsCheck
from sidecar.state.table import Table

from ..conftest import Sidecar
from ..wire import refused
from .test_batched_requests import HeldLedger, _blocked, arrived, quiet
from .test_batched_requests import held as held  # the fixture: a sidecar whose appends can be held


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
    op = t.WyrdGrant(actor="Ayla", amount=1)
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
