"""A joiner far behind (or ahead of) the table gets a snapshot; one near it gets the events it missed."""

from __future__ import annotations

from protocol.v1 import challenge as challenge_t
from protocol.v1 import messages as m
from sidecar.state import hearing as hearing_module


async def test_far_behind_gets_a_snapshot(sidecar, monkeypatch):
    monkeypatch.setattr(hearing_module, "RESYNC_LIMIT", 3)
    gm = await sidecar.client("gm")
    for i in range(5):
        await gm.request(m.Gm(id=f"s{i}", op=challenge_t.StrainSet(actor="A", strain=i)))
    near = await sidecar.client("player", user="p", since=3)
    assert [e.seq for e in near.welcome.events] == [4, 5] and near.welcome.snapshot is None
    far = await sidecar.client("player", user="p", since=1)
    assert far.welcome.snapshot is not None and far.welcome.snapshot.actors["A"].strain == 4
    ahead = await sidecar.client("player", user="p", since=99)  # a client from another life of the table
    assert ahead.welcome.snapshot is not None
    for c in (gm, near, far, ahead):
        await c.close()
