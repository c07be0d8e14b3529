"""A reconnect's catch-up counts nothing hidden from the viewer. Between two reconnects of an observer, a
player and a blind roller, the GM makes a public change, few or very many blind rolls, and a public change
again: every one of them gets a ``welcome`` with the two events it missed, the same frame byte for byte (its numbers counted from
its ``since``) whether 10, 300 or 16,001 hidden events came between (read straight through, or only the stretches that hold the
viewer's own; the recent window is made small, so that the ledger is read as a campaign's old events are)."""

from __future__ import annotations

import re

from protocol.v1 import challenge as challenge_t
from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar.server.app import HUB
from sidecar.state import hearing, table
from sidecar.state.visibility import Viewer

from .conftest import Raw

MANY_HIDDEN = 16_001
"""More hidden events than a viewer's catch-up could ever read straight through."""

SEQ = re.compile(rb'"(seq|cause)":(\d+)')


def _relative(frame: bytes, base: int) -> bytes:
    return SEQ.sub(lambda g: b'"%s":%d' % (g.group(1), int(g.group(2)) - base), frame)


def _hide(sidecar, count: int) -> None:
    """``count`` blind rolls for alice, appended as the hub appends a roll (a campaign's worth, sooner than
    over the wire, where the GM's key has a rate)."""
    tab = sidecar.server.app[HUB].tables[sidecar.keys.table].table
    gm = Viewer("gm", "gm-user")
    for i in range(count):
        check = FacetsCheck(pool=2, kind="obstacle", dice=[2 + i % 5, 3])
        pending = tab.prepare_roll(m.Roll(id="h", check=check, mode="blind", actor="Ayla"), gm, "alice")
        tab.ledger.append_sync(tab.id, pending.encoded(), None)
        tab.commit(pending)


async def test_a_catch_up_is_the_same_however_many_hidden_events_came_between(sidecar, monkeypatch):
    monkeypatch.setattr(table, "RECENT_KEPT", 4)  # the events missed are read back from the ledger
    gm = await sidecar.client("gm", user="gm-user")
    who = {"observer": (sidecar.keys.observer, None), "player": (sidecar.user_key("bob"), "bob")}
    who["roller"] = (sidecar.user_key("alice"), "alice")
    welcomes: dict[str, list[bytes]] = {name: [] for name in who}
    # few hidden events between the two missed, more than the straight read's, and very many
    for n, hidden in enumerate((10, 300, MANY_HIDDEN, 12)):
        since = {}
        for name, (key, user) in who.items():
            sock = await Raw.join(sidecar, key, user, msgpack=name == "player")
            since[name] = sock.decoded()[0]["seq"]
            await sock.close()
        await gm.request(m.Gm(id=f"s{n}", op=challenge_t.StrainSet(actor="Bree", strain=n + 1)))
        if hidden > 1000:
            _hide(sidecar, hidden)
        for i in range(hidden if hidden <= 1000 else 0):  # between the two events the viewers missed
            check = FacetsCheck(pool=2, kind="obstacle", dice=[2 + i % 5, 3])
            await gm.request(m.Roll(id=f"h{n}-{i}", check=check, mode="blind", user="alice", actor="Ayla"))
        await gm.request(m.Gm(id=f"t{n}", op=challenge_t.StrainSet(actor="Bree", strain=n + 2)))
        for name, (key, user) in who.items():
            sock = await Raw.join(sidecar, key, user, since=since[name])
            hello = sock.decoded()[0]
            assert hello["type"] == "welcome" and hello.get("snapshot") is None, (name, hidden)
            assert [e["event"]["kind"] for e in hello["events"]] == ["strain", "strain"], (name, hidden)
            # the strain values differ by round: what is compared is the frame's shape and numbers
            frame = sock.frames[0].replace(b'"set":%d' % (n + 1), b'"set":-').replace(b'"set":%d' % (n + 2), b'"set":=')
            welcomes[name].append(_relative(frame, since[name]))
            await sock.close()
    for name, frames in welcomes.items():
        assert len(set(frames)) == 1, (name, frames)
    await gm.close()


def test_the_runs_hold_every_event_of_the_viewer_and_no_more_ranges_than_its_events():
    """:meth:`Numbering.runs` against the events each viewer is told of, on a random table."""
    import random

    from sidecar.state.hearing import GM, PUBLIC, RUN_GAP, Numbering, Viewer
    from sidecar.state.table import Stored

    rng = random.Random(7)
    nums = Numbering()
    told: dict[Viewer, list[int]] = {v: [] for v in (PUBLIC, GM, Viewer("player", "alice"), Viewer("gm", "alice"))}
    for seq in range(1, 5001):
        vis, owner = rng.choice([("all", None), ("gm", None), ("gm", None), ("roller_gm", "alice")])
        if rng.random() < 0.9 and seq > 1000:
            vis, owner = "gm", None  # long hidden stretches
        st = Stored(vis=vis, owner=owner, event=challenge_t.StrainChanged(actor="A", set=1, cause=seq))
        nums.add(seq, st, nums.restricted)
        for v in told:
            if hearing.seen(st, nums.restricted, v) is not None:
                told[v].append(seq)
    for v, seqs in told.items():
        for start in (0, 10, 999, 1500, 4000, 4999):
            runs = nums.runs(start, v)
            mine = [s for s in seqs if s > start]
            inside = [s for s in mine if any(lo < s <= hi for lo, hi in runs)]
            assert inside == mine, (v, start)
            assert len(runs) <= len(mine)
            read = sum(hi - lo for lo, hi in runs)
            assert read <= len(mine) * RUN_GAP + len(mine), (v, start, read)
