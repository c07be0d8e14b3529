"""A serving sidecar reads its ledger only through the asynchronous interface: never a blocking read on the
event loop, whatever the table no longer holds in memory.

Every read of the table's history is counted (``Table.blocking_reads`` counts those that block the
caller): old ``since`` values, an undo's look back and its rebuild, a player's view built from the whole
history, the label of a check older than the recent window, a retried id older than the reply cache.
Real websocket clients against the real app over the real SQLite ledger.
"""

from __future__ import annotations

import pytest

from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.facets import FacetsCheck
from sidecar.client import Client
from sidecar.server import hub as hub_module
from sidecar.server.app import HUB
from sidecar.state import table as table_module

from ..conftest import Sidecar


@pytest.fixture
def small_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """A table that keeps little in memory: most of what it is asked for is back in the ledger."""
    monkeypatch.setattr(table_module, "RECENT_KEPT", 4)
    monkeypatch.setattr(hub_module, "REPLY_CACHE", 2)


async def test_what_memory_let_go_is_read_without_blocking_the_loop(small_memory: None, sidecar: Sidecar) -> None:
    gm = await sidecar.client("gm", user="gm")
    alice = await sidecar.client("player", user="alice")
    first = await alice.request(m.Roll(id="first", check=FacetsCheck(pool=2), label="the first roll"))
    secret = await alice.request(m.Roll(id="secret", check=FacetsCheck(pool=2), mode="self", label="hers"))
    for i in range(30):
        await alice.request(m.Roll(id=f"r{i}", check=FacetsCheck(pool=2)))
    # an undo looks back through the history and rebuilds every projection from it
    await gm.request(m.Gm(id="undo", op=t.Undo(count=3)))
    # a reconnect with an old since, a player's view built afresh, an old check's label, an old id retried
    again = await Client.connect(
        sidecar.url, sidecar.keys.table, sidecar.user_key("alice"), user="alice", since=first.seq
    )
    assert again.welcome.events is not None and len(again.welcome.events) > 30
    bob = await sidecar.client("player", user="bob")
    assert (await bob.request(m.State(id="s"))).snapshot is not None
    verified = await alice.request(m.Verify(id="v", check=first.check))
    assert verified.found and verified.label == "the first roll"
    mine = await alice.request(m.Verify(id="v2", check=secret.check))
    assert mine.found and mine.label == "hers"
    assert await alice.request(m.Roll(id="first", check=FacetsCheck(pool=2))) == first
    await gm.request(m.Gm(id="undo-2", op=t.Undo(count=1)))

    tables = sidecar.server.app[HUB].tables  # type: ignore[union-attr]
    assert [h.table.blocking_reads for h in tables.values()] == [0]
    for c in (gm, alice, again, bob):
        await c.close()
