"""Raw-frame secrecy: a GM, players and observers on one table, rolls in every mode, follow-ups by the
roller and by the GM, undo, verify, and reconnects with ``since``. What a socket may not see never
reaches it, in any socket order, in JSON or MessagePack."""

from __future__ import annotations

import msgspec
import pytest

from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.facets import FacetsCheck
from protocol.v1.flairs import FlairsBargain, FlairsCheck, FlairsNameTrials
from sidecar.client import RequestFailed

from .conftest import Raw, barrier

HIDDEN_MODES = ("gm", "self", "blind")


async def test_every_mode_every_follow_up_every_socket(sidecar):
    gm = await sidecar.client("gm", user="gm-user")
    alice = await sidecar.client("player", user="alice")
    k = sidecar.keys
    # bystanders joined before and after the roller, in both encodings: the fan-out caches by kind of viewer
    bob = await Raw.join(sidecar, sidecar.user_key("bob"), "bob")
    gm_raw = await Raw.join(sidecar, k.gm, "gm-2")
    alice_raw = await Raw.join(sidecar, sidecar.user_key("alice"), "alice")
    carol = await Raw.join(sidecar, sidecar.user_key("carol"), "carol", msgpack=True)
    obs = await Raw.join(sidecar, k.observer)
    public = await Raw.join(sidecar, k.player)
    dave = await Raw.join(sidecar, sidecar.user_key("dave"), "dave")
    others = [bob, carol, obs, public, dave]
    everyone = [*others, gm_raw, alice_raw]

    checks, bargained = {}, {}
    for mode in ("public", *HIDDEN_MODES):
        # a failure with a pair: the GM names the Judge's-choice trial
        r = await alice.request(
            m.Roll(id=f"r-{mode}", check=FlairsCheck(rank=3, dice=[2, 2, 1]), mode=mode, label=f"label-{mode}")
        )
        checks[mode] = r
        # a plain failure: the roller strikes a bargain
        r2 = await alice.request(m.Roll(id=f"q-{mode}", check=FlairsCheck(rank=2, dice=[3, 2]), mode=mode))
        bargained[mode] = r2
        name = m.Follow(id=f"n-{mode}", check=r.check, action=FlairsNameTrials(dice=[4]))
        bargain = m.Follow(id=f"b-{mode}", check=r2.check, action=FlairsBargain(trial="loud", dice=[6]))
        if mode == "self":  # a private test: not the GM's to see, and no follow-up for its roller
            with pytest.raises(RequestFailed) as e:
                await gm.request(name)
            assert e.value.code == "unknown_check"
            with pytest.raises(RequestFailed) as e:
                await alice.request(bargain)
            assert e.value.code == "forbidden_followup"
            continue
        named = await gm.request(name)
        assert named.result is not None
        if mode == "blind":  # the roller may not see the result: its follow-ups are the GM's to make
            with pytest.raises(RequestFailed) as e:
                await alice.request(bargain)
            assert e.value.code == "followup_refused"
            await gm.request(msgspec.structs.replace(bargain, id=f"gb-{mode}"))
            continue
        mine = await alice.request(bargain)
        assert mine.result is not None
    await barrier(gm, everyone)

    for mode in HIDDEN_MODES:
        for sock in others:
            assert checks[mode].check.encode() not in sock.blob(), (mode, sock)
            assert bargained[mode].check.encode() not in sock.blob(), (mode, sock)
            assert f"label-{mode}".encode() not in sock.blob()
    for sock in others:
        assert checks["public"].check.encode() in sock.blob()
    # the roller hears the GM's follow-ups on a roll it may see, on every socket of its own
    seen = alice_raw.decoded()
    for mode in ("gm",):
        fol = [f for f in seen if f["type"] == "followed" and f["check"] in (checks[mode].check, bargained[mode].check)]
        assert len(fol) == 2 and all(f["result"] is not None for f in fol)
    # a blind roll: the roller never sees its result, nor the GM's follow-up
    blind = [f for f in seen if f.get("check") == checks["blind"].check]
    assert [f["type"] for f in blind] == ["rolled"] and blind[0]["result"] is None
    blind = [f for f in seen if f.get("check") == bargained["blind"].check]
    assert [f["type"] for f in blind] == ["rolled"] and blind[0]["result"] is None
    # the GM sees gm and blind rolls, never a `self` one
    gm_seen = gm_raw.blob()
    assert checks["gm"].check.encode() in gm_seen and checks["blind"].check.encode() in gm_seen
    assert checks["self"].check.encode() not in gm_seen

    # verify: a check hidden from a player does not exist for that player
    b = await sidecar.client("player", user="bob")
    for mode in HIDDEN_MODES:
        v = await b.request(m.Verify(id=f"v-{mode}", check=checks[mode].check))
        assert v == m.Verified(id=f"v-{mode}", check=checks[mode].check, found=False)
    vb = await alice.request(m.Verify(id="vb", check=checks["blind"].check))
    assert vb.found and vb.result is None  # the roller knows it exists, not its result
    assert (await b.request(m.Verify(id="vp", check=checks["public"].check))).found

    # reconnects with `since`: the missed events hold nothing hidden either
    for since in (0, 1, 5):
        back = await Raw.join(sidecar, sidecar.user_key("bob"), "bob", since=since)
        for mode in HIDDEN_MODES:
            assert checks[mode].check.encode() not in back.blob()
        await back.close()
    for c in (*everyone,):
        await c.close()
    await b.close()
    await gm.close()
    await alice.close()


async def test_blind_follow_up_refusals_tell_nothing(sidecar):
    alice = await sidecar.client("player", user="alice")
    gm = await sidecar.client("gm")
    ok = await alice.request(m.Roll(id="s", check=FlairsCheck(rank=2, dice=[6, 5]), mode="blind"))
    with pytest.raises(RequestFailed) as e:
        await alice.request(m.Follow(id="f", check=ok.check, action=FlairsBargain(trial="loud")))
    assert e.value.code == "followup_refused"
    assert "success" not in e.value.error.message and "failure" not in e.value.error.message
    # the GM's connection relaying for the roller is the roller: the same refusal
    with pytest.raises(RequestFailed) as e:
        await gm.request(m.Follow(id="g", check=ok.check, action=FlairsBargain(trial="loud"), user="alice"))
    assert e.value.code == "followup_refused"
    # the GM, who may see it, makes the roller's follow-ups, and hears the engine's reason
    with pytest.raises(RequestFailed) as e:
        await gm.request(m.Follow(id="h", check=ok.check, action=FlairsBargain(trial="loud")))
    assert e.value.code == "bargain_not_failure"
    await alice.close()
    await gm.close()


async def test_undo_of_a_hidden_roll_names_no_seq_to_others(sidecar):
    gm = await sidecar.client("gm")
    alice = await sidecar.client("player", user="alice")
    bob = await Raw.join(sidecar, sidecar.user_key("bob"), "bob")
    alice_raw = await Raw.join(sidecar, sidecar.user_key("alice"), "alice")
    await gm.request(m.Gm(id="c", op=t.ConditionAdd(actor="Ayla")))
    hidden = await alice.request(m.Roll(id="h", check=FacetsCheck(pool=2), mode="gm"))
    await gm.request(m.Gm(id="u", op=t.Undo(count=2)))  # the hidden roll and the public condition
    await barrier(gm, [bob, alice_raw])
    undone_bob = [f for f in bob.decoded() if f["type"] == "event" and f["event"]["kind"] == "undone"]
    assert [f["event"]["seqs"] for f in undone_bob] == [[1]]
    undone_alice = [f for f in alice_raw.decoded() if f["type"] == "event" and f["event"]["kind"] == "undone"]
    assert [f["event"]["seqs"] for f in undone_alice] == [[1, hidden.seq]]
    later = await Raw.join(sidecar, sidecar.user_key("bob"), "bob", since=0)
    ev = [e["event"] for e in later.decoded()[0]["events"] if e["event"]["kind"] == "undone"]
    assert [e["seqs"] for e in ev] == [[1]]
    for c in (bob, alice_raw, later):
        await c.close()
    await gm.close()
    await alice.close()


@pytest.mark.parametrize("mode", ["gm", "blind"])  # a self roll is no part (test_self_rolls.py)
async def test_a_gathered_part_rolled_in_secret_and_the_whole_check_stay_secret(sidecar, mode):
    """A group check whose parts several players roll: a part rolled in secret is seen as that roll is, and
    the whole check (which tells every part's faces) is then the GM's alone, in the snapshot too."""
    from protocol.v1.flairs import FlairsParticipant

    gm = await sidecar.client("gm", user="gm-user")
    ash = await sidecar.client("player", user="ash")
    bree = await sidecar.client("player", user="bree")
    bree_raw = await Raw.join(sidecar, sidecar.user_key("bree"), "bree")
    obs = await Raw.join(sidecar, sidecar.keys.observer, msgpack=True)
    gm_raw = await Raw.join(sidecar, sidecar.keys.gm, "gm-2")
    party = [FlairsParticipant(name="Ash", rank=3), FlairsParticipant(name="Bree", rank=1)]
    done = await gm.request(m.Gm(id="g", op=t.GatherStart(name="Trap", check=FlairsCheck(group=party, trap=True))))
    gid = done.events[0].event.gather
    # Ash's part in secret, with faces nobody else could guess; Bree's in the open
    secret = await ash.request(
        m.Roll(id="a", check=FlairsCheck(rank=3, dice=[6, 5, 4]), gather=gid, part="Ash", mode=mode)
    )
    last = await bree.request(m.Roll(id="b", check=FlairsCheck(rank=1, dice=[2]), gather=gid, part="Bree"))
    await barrier(gm, [bree_raw, obs, gm_raw])
    for r in (bree_raw, obs):
        for f in r.decoded():
            for e in [f.get("event"), *[s["event"] for s in f.get("events") or []]]:
                if not e:
                    continue
                assert not (e["kind"] == "gather_part" and e["part"] == "Ash"), (mode, f)
                assert e["kind"] != "gather_resolved", (mode, f)
            assert f.get("id") != "a" or f.get("result") is None, (mode, f)
    assert not any(isinstance(s.event, t.GatherResolved) for s in last.events)  # Bree is not told the whole
    for viewer in (bree, await sidecar.client("observer")):
        snap = (await viewer.request(m.State(id=viewer.new_id()))).snapshot
        assert "Ash" not in snap.gathers[gid].rolled and snap.gathers[gid].result is None
    gm_snap = (await gm.request(m.State(id="s"))).snapshot
    assert gm_snap.gathers[gid].rolled["Ash"] == [6, 5, 4] and gm_snap.gathers[gid].result is not None
    assert any(
        f.get("event", {}).get("kind") == "gather_resolved"
        or any(s["event"]["kind"] == "gather_resolved" for s in f.get("events") or [])
        for f in gm_raw.decoded()
    )
    own = [s.event for s in secret.events if isinstance(s.event, t.GatherPartRolled)]
    assert own == (
        []
        if mode == "blind"
        else [t.GatherPartRolled(gather=gid, part="Ash", check_id=secret.check, faces=[6, 5, 4], cause=secret.seq)]
    )
    for c in (gm, ash, bree):
        await c.close()
    for r in (bree_raw, obs, gm_raw):
        await r.close()
