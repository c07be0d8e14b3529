"""One sidecar, several tables: nothing of one reaches another (events, snapshots, request ids, keys)."""

from __future__ import annotations

import asyncio

import pytest

from protocol.v1 import challenge as challenge_t
from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar.client import Client, RequestFailed


async def test_tables_are_isolated(sidecar):
    other = sidecar.ledger.create_table("other")
    a = await sidecar.client("gm")
    b = await Client.connect(sidecar.url, other.table, other.gm, user="gm-b")
    await a.request(m.Gm(id="k", op=challenge_t.ComplicationAdd(scene="S", text="only on A", hidden=False)))
    await a.request(m.Roll(id="r", check=FacetsCheck(pool=1)))
    with pytest.raises(asyncio.TimeoutError):
        await b.next(timeout=0.3)
    snap = (await b.request(m.State(id="s"))).snapshot
    assert snap.scenes == {} and snap.seq == 0
    # the same request id on another table is another request
    r = await b.request(m.Roll(id="r", check=FacetsCheck(pool=1)))
    assert r.seq == 1
    # a key of one table does not open another
    with pytest.raises(RequestFailed) as e:
        await Client.connect(sidecar.url, other.table, sidecar.keys.gm)
    assert e.value.code == "unauthorized"
    await a.close()
    await b.close()
