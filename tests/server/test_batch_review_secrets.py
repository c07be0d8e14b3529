"""Secrets in one batch: a player's `self` roll (whose own projection is made from then on), a hidden
complication, and an undo of it, handled together. Each viewer hears what a fresh read of the ledger shows
them, and no more: nobody but the roller and the GM hears of the self roll, no player of the complication
or of its undo; every snapshot is the one a fresh load gives that viewer.

Real websocket clients against the real app, over the real SQLite ledger held back as in
``test_batched_requests`` (to make requests wait together).
"""

from __future__ import annotations

from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.facets import FacetsCheck
from sidecar.state.table import Table
from sidecar.state.visibility import Viewer

from ..conftest import Sidecar
from ..wire import state
from .test_batched_requests import HeldLedger, _blocked, arrived, quiet
from .test_batched_requests import held as held  # the fixture: a sidecar whose appends can be held


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
        await quiet(c, 0.1)
    first, task = await _blocked(held)
    own = await arrived(held, p1.request(m.Roll(id="own", check=FacetsCheck(pool=3), mode="self")))
    add = await arrived(
        held, gm.request(m.Gm(id="hide", op=t.ComplicationAdd(scene="Hall", text="the floor gives", hidden=True)))
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
        assert await state(c) == fresh.snapshot(viewer)
    assert "Hall" not in (await state(p2)).scenes or not (await state(p2)).scenes["Hall"].complications
    for c in [p1, p2, watcher, gm, gm2, first]:
        await c.close()
