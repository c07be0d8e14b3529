"""A public effect of a hidden action reaches everyone who may see it, live, and names no cause they may not
know: the removal of a public complication after a hidden epic success (the GM's follow-up), and after a
hidden roll that addressed it and succeeded."""

from __future__ import annotations

import pytest

from protocol.v1 import challenge as challenge_t
from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.challenge import ChallengeCheck, ChallengeRemoveComplication

from .conftest import Raw, barrier


def _removals(raw: Raw, cid: str) -> list[dict]:
    """Every copy of the complication's removal a socket was told, as a frame of its own or inside one."""
    out = []
    for f in raw.decoded():
        wrapped = [{"seq": f["seq"], "event": f["event"]}] if f.get("type") == "event" else []
        for s in wrapped + list(f.get("events") or []):
            if s["event"]["kind"] == "complication_removed" and s["event"]["complication"] == cid:
                out.append(s)
    return out


async def _bystanders(sidecar) -> list[Raw]:
    k = sidecar.keys
    return [
        await Raw.join(sidecar, sidecar.user_key("bob"), "bob"),
        await Raw.join(sidecar, k.observer, msgpack=True),
        await Raw.join(sidecar, k.player),
    ]


async def _check_told(sidecar, bystanders: list[Raw], cid: str, secret: str) -> None:
    for raw in bystanders:
        (removal,) = _removals(raw, cid)  # live, once
        # its own action to them: the cause is the event itself, a seq of their own numbering
        assert removal["event"]["cause"] == removal["seq"]
        assert secret.encode() not in raw.blob()  # nothing of the hidden check it came of
    # a reconnect with `since` tells it the same way
    for key, user in ((sidecar.user_key("bob"), "bob"), (sidecar.keys.observer, None)):
        back = await Raw.join(sidecar, key, user, since=1)
        events = back.decoded()[0]["events"]
        (removal,) = [e for e in events if e["event"]["kind"] == "complication_removed"]
        assert removal["event"]["cause"] == removal["seq"]
        assert all(e["seq"] == i for i, e in enumerate(events, start=2))  # a count of their own, no gap
        await back.close()
    bob = await sidecar.client("player", user="bob")
    snap = (await bob.request(m.State(id="s"))).snapshot
    assert all(c.id != cid for s in snap.scenes.values() for c in s.complications)
    await bob.close()


@pytest.mark.parametrize(
    "mode", ["gm", "blind"]
)  # a self roll has no follow-ups (tests/adversarial/test_self_rolls.py)
async def test_the_gms_removal_after_a_hidden_epic_success_reaches_players_live(sidecar, mode):
    gm = await sidecar.client("gm", user="gm-user")
    alice = await sidecar.client("player", user="alice")
    await gm.request(m.Gm(id="scene", op=t.SceneActivate(scene="Bridge")))
    done = await gm.request(
        m.Gm(id="c", op=challenge_t.ComplicationAdd(scene="Bridge", text="The rope frays", hidden=False))
    )
    cid = done.events[0].event.complication
    bystanders = await _bystanders(sidecar)
    epic = await alice.request(
        m.Roll(id="r", check=ChallengeCheck(cl=1, modifier=10, dice=[20]), actor="Ayla", mode=mode)
    )
    await gm.request(m.Follow(id="f", check=epic.check, action=ChallengeRemoveComplication(complication=cid)))
    await barrier(gm, bystanders)
    await _check_told(sidecar, bystanders, cid, epic.check)
    for r in bystanders:
        await r.close()
    await gm.close()
    await alice.close()


@pytest.mark.parametrize("mode", ["gm", "blind"])  # a self roll addresses no complication (test_self_rolls.py)
async def test_a_hidden_roll_that_addresses_a_public_complication_removes_it_for_everyone(sidecar, mode):
    gm = await sidecar.client("gm", user="gm-user")
    alice = await sidecar.client("player", user="alice")
    await gm.request(m.Gm(id="scene", op=t.SceneActivate(scene="Bridge")))
    done = await gm.request(
        m.Gm(id="c", op=challenge_t.ComplicationAdd(scene="Bridge", text="The rope frays", hidden=False))
    )
    cid = done.events[0].event.complication
    await gm.request(m.Gm(id="cv", op=challenge_t.ComplicationConvert(complication=cid, cl=2)))
    bystanders = await _bystanders(sidecar)
    won = await alice.request(
        m.Roll(id="r", check=ChallengeCheck(cl=2, complication=cid, dice=[12]), actor="Ayla", mode=mode)
    )
    await barrier(gm, bystanders)
    await _check_told(sidecar, bystanders, cid, won.check)
    for r in bystanders:
        await r.close()
    await gm.close()
    await alice.close()
