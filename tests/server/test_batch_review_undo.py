"""An undo batched behind other actions, on a table longer than the events it keeps in memory.

An ``undone`` rebuilds every projection from the table's history (``Table.stored``). Once a table holds
more events than its recent window, that history comes from the ledger, which does not yet hold the
actions of the batch applied before the undo: the rebuild drops them from the table's state.

Real websocket clients against the real app, over the real SQLite ledger held back as in
``test_batched_requests`` (to make requests wait together).
"""

from __future__ import annotations

from protocol.v1 import messages as m
from protocol.v1 import table as t
from sidecar.state.table import RECENT_KEPT, Table

from ..conftest import Sidecar
from ..wire import gm_op, state
from .test_batched_requests import HeldLedger, _blocked, arrived
from .test_batched_requests import held as held  # the fixture: a sidecar whose appends can be held


async def test_an_undo_batched_behind_other_actions_keeps_them_on_a_long_table(held: Sidecar) -> None:
    ledger: HeldLedger = held.ledger  # type: ignore[assignment]
    gm = await held.client("gm", user="gm-main")
    for i in range(2 * RECENT_KEPT + 10):  # more than the table keeps in memory
        await gm_op(gm, t.StrainSet(actor="Filler", strain=i % 4))
    gms = [await held.client("gm", user=f"gm-{i}") for i in range(3)]
    first, task = await _blocked(held)
    # while the table is busy, three GMs ask at once: one batch of [strain, grant, undo the grant]
    strain = await arrived(held, gms[0].request(m.Gm(id="strain", op=t.StrainSet(actor="Ayla", strain=3))))
    grant = await arrived(held, gms[1].request(m.Gm(id="grant", op=t.WyrdGrant(actor="Bren", amount=2))))
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
