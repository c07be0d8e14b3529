"""A ``self`` roll is the roller's alone, a private test that changes nothing at the table (as Foundry's own
self roll): stored, heard by the roller's player sockets only, with no consequence and no follow-up.

On raw frames for every role: the GM (with no user of the roller's, and one whose hello names the roller),
another player, an observer and the table-wide key are told nothing, their numbering does not move, and their
``state``, ``welcome`` and catch-up are what they were before the roll; the GM's follow-up on it is answered as
for a check that does not exist; the roller sees the outcome on every socket of theirs and is refused the
follow-ups; a ``self`` part of a gathered check, extended attempt or address of a complication is refused."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from protocol.v1 import challenge as challenge_t
from protocol.v1 import flairs as flairs_t
from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.boons import BoonsCheck
from protocol.v1.challenge import ChallengeCheck, ChallengeChoice, ChallengeRemoveComplication
from protocol.v1.flairs import FlairsBargain, FlairsCheck, FlairsParticipant
from sidecar.client import RequestFailed

from .conftest import Raw, barrier

MISSING = "no-such-check-0000"


@dataclass
class Seat:
    """A raw socket at the table, and how to join again as it: its key and the user its hello names."""

    name: str
    key: str
    user: str | None
    raw: Raw


async def _seats(sidecar) -> list[Seat]:
    """Everyone but the roller: the GM twice (its own user, and a hello naming the roller), another player,
    an observer (msgpack) and the table-wide player key."""
    k = sidecar.keys
    spec = [
        ("gm", k.gm, "gm-2", False),
        ("gm-as-alice", k.gm, "alice", False),
        ("bob", sidecar.user_key("bob"), "bob", False),
        ("observer", k.observer, None, True),
        ("table-key", k.player, None, False),
    ]
    return [Seat(n, key, user, await Raw.join(sidecar, key, user, msgpack=mp)) for n, key, user, mp in spec]


async def _ask(raw: Raw, req: dict) -> dict:
    """Send a request on a raw socket and wait for its answer."""
    await raw.ws.send(json.dumps(req) if not raw.msgpack else _msgpack(req))
    return await raw.wait(lambda f: f.get("id") == req["id"])


def _msgpack(req: dict) -> bytes:
    import msgspec

    return msgspec.msgpack.encode(req)


async def _snapshot(raw: Raw, tag: str) -> dict:
    reply = await _ask(raw, {"type": "state", "id": f"state-{tag}"})
    assert reply["type"] == "state", reply
    return reply["snapshot"]


async def _welcome(sidecar, seat: Seat, since: int | None) -> dict:
    back = await Raw.join(sidecar, seat.key, seat.user, since=since)
    welcome = back.decoded()[0]
    await back.close()
    assert welcome["type"] == "welcome", welcome
    return welcome


def _last_seq(raw: Raw) -> int:
    """The number of the last event a socket was told (its welcome's, or a later frame's or event's)."""
    last = 0
    for f in raw.decoded():
        if f.get("type") == "welcome":
            last = f["seq"]
        elif f.get("type") in ("rolled", "followed", "event", "done") and "seq" in f:
            last = max([last, f["seq"], *[e["seq"] for e in f.get("events") or []]])
    return last


async def _views(sidecar, seats: list[Seat], tag: str) -> dict[str, object]:
    """What each seat may know of the table now: its state, its welcome (snapshot) and its full catch-up."""
    out: dict[str, object] = {}
    for s in seats:
        out[s.name] = {
            "state": await _snapshot(s.raw, tag),
            "welcome": await _welcome(sidecar, s, None),
            "catch-up": await _welcome(sidecar, s, 0),
        }
    return out


async def _refusal(raw: Raw, check: str, tag: str) -> list[str]:
    """What ``raw`` is answered for follow-ups of both kinds and ``verify`` on ``check``, the ids written out."""
    requests = [
        {
            "type": "follow",
            "id": f"{tag}-1",
            "check": check,
            "action": {"action": "challenge_choice", "option": "strain"},
        },
        {"type": "follow", "id": f"{tag}-2", "check": check, "action": {"action": "flairs_reveal"}},
        {
            "type": "follow",
            "id": f"{tag}-3",
            "check": check,
            "action": {"action": "challenge_remove_complication", "complication": "k1"},
        },
        {"type": "verify", "id": f"{tag}-4", "check": check},
    ]
    out = []
    for req in requests:
        reply = await _ask(raw, req)
        assert reply["type"] in ("error", "verified"), reply
        out.append(json.dumps(reply, sort_keys=True).replace(check, "<check>").replace(req["id"], "<id>"))
    return out


async def _private_roll_changes_nothing(sidecar, gm, roller, setup, roll: m.Roll):
    """Roll ``roll`` ``self`` as ``roller`` and check that no one else's frames, numbering, state, welcome or
    catch-up moved, that the GM's follow-ups are answered as for a missing check, and that the roller sees
    the outcome on every socket of theirs with nothing applied. Returns the roller's reply."""
    await setup(gm)
    seats = await _seats(sidecar)
    alice_raw = await Raw.join(sidecar, sidecar.user_key("alice"), "alice")
    before = await _views(sidecar, seats, "before")
    told_before = {s.name: len(s.raw.frames) for s in seats}
    last_before = {s.name: _last_seq(s.raw) for s in seats}

    mine = await roller.request(roll)
    assert mine.mode == "self" and mine.result is not None  # the roller reads the outcome
    other = await alice_raw.wait(lambda f: f.get("type") == "rolled" and f.get("check") == mine.check)

    after = await _views(sidecar, seats, "after")
    for s in seats:
        assert after[s.name] == before[s.name], s.name  # state, snapshot welcome and catch-up: as before
        assert len(s.raw.frames) == told_before[s.name] + 1, s.name  # only the reply to its own `state`
        assert mine.check.encode() not in s.raw.blob(), s.name
    # the roller, on every socket of theirs: nothing was applied, nothing is open
    assert mine.events == [] and mine.open == []
    assert other["result"] is not None and other["events"] == [] and other["open"] == []
    # a public roll afterwards is numbered next to what each was told before: nothing in between
    await barrier(gm, [s.raw for s in seats])
    for s in seats:
        (pub,) = [f for f in s.raw.decoded()[told_before[s.name] :] if f.get("type") == "rolled"]
        assert pub["seq"] == last_before[s.name] + 1, s.name
        assert mine.check.encode() not in s.raw.blob(), s.name

    # the GM's follow-ups (and verify) on it: as for a check that does not exist; so for every other seat
    for s in seats:
        if not s.raw.msgpack:
            assert await _refusal(s.raw, mine.check, f"{s.name}-h") == await _refusal(s.raw, MISSING, f"{s.name}-m"), (
                s.name
            )
    # the roller: the check exists for them, found by verify, and no follow-up is open on it
    found = await roller.request(m.Verify(id="v-mine", check=mine.check))
    assert found.found and found.result is not None and found.open == []
    with pytest.raises(RequestFailed) as refused:
        await roller.request(m.Follow(id="f-mine", check=mine.check, action=ChallengeChoice(option="strain")))
    assert refused.value.code == "forbidden_followup"
    # the roller's reconnect has it, in their own numbering
    back = await Raw.join(sidecar, sidecar.user_key("alice"), "alice", since=0)
    events = back.decoded()[0]["events"]
    await back.close()
    assert [e["event"]["check_id"] for e in events if e["event"]["kind"] == "roll"].count(mine.check) == 1
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    for s in seats:
        await s.raw.close()
    await alice_raw.close()
    return mine


async def _scene(gm) -> None:
    await gm.request(m.Gm(id="scene", op=t.SceneActivate(scene="Bridge")))


async def test_a_self_epic_failure_changes_nothing_at_the_table(sidecar):
    gm = await sidecar.client("gm", user="gm-user")
    alice = await sidecar.client("player", user="alice")
    mine = await _private_roll_changes_nothing(
        sidecar,
        gm,
        alice,
        _scene,
        m.Roll(id="r", check=ChallengeCheck(cl=2, dice=[1]), actor="Ayla", mode="self", label="private test"),
    )
    assert mine.result.outcome == "epic_failure"
    # and the hero has no strain nor condition, for the GM either
    snap = (await gm.request(m.State(id="s"))).snapshot
    assert "Ayla" not in snap.actors or (snap.actors["Ayla"].strain == 0 and not snap.actors["Ayla"].conditions)
    await gm.close()
    await alice.close()


async def test_a_self_flairs_roll_leaves_the_judges_lurking_trials_waiting(sidecar):
    gm = await sidecar.client("gm", user="gm-user")
    alice = await sidecar.client("player", user="alice")

    async def lurking(gm) -> None:
        await _scene(gm)
        await gm.request(m.Gm(id="lk", op=flairs_t.LurkingSet(trials=["loud", "slow"], actor="Ayla")))

    mine = await _private_roll_changes_nothing(
        sidecar, gm, alice, lurking, m.Roll(id="r", check=FlairsCheck(rank=2, dice=[6, 6]), actor="Ayla", mode="self")
    )
    assert not mine.result.lurking  # the private test took none of the Judge's trials
    # the trials still wait for Ayla's next real roll, which takes them
    real = await alice.request(m.Roll(id="real", check=FlairsCheck(rank=2, dice=[6, 6]), actor="Ayla"))
    assert [type(e.event) for e in real.events] == [flairs_t.LurkingTrialsUsed]
    assert real.result.lurking == 2
    await gm.close()
    await alice.close()


async def test_the_gms_own_self_roll_changes_nothing_and_no_other_gm_socket_hears_it(sidecar):
    gm = await sidecar.client("gm", user="gm-user")
    await _scene(gm)
    seats = await _seats(sidecar)
    same_user = await Raw.join(sidecar, sidecar.keys.gm, "gm-user")
    everyone = [*seats, Seat("gm-user", sidecar.keys.gm, "gm-user", same_user)]
    before = await _views(sidecar, everyone, "before")
    mine = await gm.request(
        m.Roll(id="r", check=ChallengeCheck(cl=2, dice=[1]), actor="Ayla", mode="self", label="GM's private")
    )
    assert mine.result.outcome == "epic_failure" and mine.events == [] and mine.open == []
    assert await _views(sidecar, everyone, "after") == before
    for s in everyone:
        assert mine.check.encode() not in s.raw.blob(), s.name
    # its follow-ups and verify: as for a missing check, on its own socket too (no GM socket sees it)
    assert await _refusal(same_user, mine.check, "h") == await _refusal(same_user, MISSING, "m")
    verified = await gm.request(m.Verify(id="v", check=mine.check))
    assert not verified.found
    for s in everyone:
        await s.raw.close()
    await gm.close()


async def _refused(client, roll: m.Roll) -> RequestFailed:
    with pytest.raises(RequestFailed) as e:
        await client.request(roll)
    return e.value


async def test_a_self_roll_cannot_be_part_of_what_the_gm_set_up(sidecar):
    gm = await sidecar.client("gm", user="gm-user")
    alice = await sidecar.client("player", user="alice")
    await _scene(gm)
    group = FlairsCheck(group=[FlairsParticipant(name="Ash", rank=2), FlairsParticipant(name="Bree", rank=2)])
    gid = (await gm.request(m.Gm(id="g", op=t.GatherStart(check=group)))).events[0].event.gather
    xid = (await gm.request(m.Gm(id="x", op=t.ExtendedStart(name="Climb", threshold=4)))).events[0].event.extended
    done = await gm.request(
        m.Gm(id="c", op=challenge_t.ComplicationAdd(scene="Bridge", text="The rope frays", hidden=False))
    )
    cid = done.events[0].event.complication
    await gm.request(m.Gm(id="cv", op=challenge_t.ComplicationConvert(complication=cid, cl=2)))
    before = (await gm.request(m.State(id="s0"))).snapshot

    refusals = [
        await _refused(alice, m.Roll(id="part", check=FlairsCheck(dice=[6, 6]), gather=gid, part="Ash", mode="self")),
        await _refused(alice, m.Roll(id="att", check=BoonsCheck(ability=2), extended=xid, mode="self")),
        await _refused(
            alice, m.Roll(id="adr", check=ChallengeCheck(cl=2, complication=cid, dice=[20]), actor="Ayla", mode="self")
        ),
        await _refused(gm, m.Roll(id="gpart", check=FlairsCheck(dice=[6, 6]), gather=gid, part="Bree", mode="self")),
    ]
    for e in refusals:
        assert e.code == "forbidden", e
        assert "`gm`" in e.error.message, e.error.message  # and says how to roll it in secret instead
    after = (await gm.request(m.State(id="s1"))).snapshot
    assert after == before  # nothing of them applied
    # rolled `gm`, the same part and attempt go through
    part = await alice.request(m.Roll(id="part-gm", check=FlairsCheck(dice=[6, 6]), gather=gid, part="Ash", mode="gm"))
    assert part.result is not None
    att = await alice.request(m.Roll(id="att-gm", check=BoonsCheck(ability=2), extended=xid, mode="gm"))
    assert any(isinstance(e.event, t.ExtendedProgressed) for e in att.events)
    await gm.close()
    await alice.close()


async def test_the_gms_undo_does_not_reach_a_self_roll(sidecar):
    """The GM's undo counts the actions the GM's view holds: a self roll after the GM's last roll is not the
    action it undoes (undoing it instead would tell the GM it happened)."""
    gm = await sidecar.client("gm", user="gm-user")
    alice = await sidecar.client("player", user="alice")
    await _scene(gm)
    pub = await gm.request(m.Roll(id="pub", check=ChallengeCheck(cl=2, dice=[3]), actor="Bree"))
    strained = (await gm.request(m.State(id="s0"))).snapshot.actors["Bree"].strain
    assert strained > 0
    await alice.request(m.Roll(id="r", check=ChallengeCheck(cl=2, dice=[1]), actor="Ayla", mode="self"))
    done = await gm.request(m.Gm(id="u", op=t.Undo(count=1)))
    assert [type(e.event) for e in done.events] == [t.Undone]
    assert done.events[0].event.seqs[0] == pub.seq
    bree = (await gm.request(m.State(id="s1"))).snapshot.actors.get("Bree")
    assert bree is None or bree.strain == 0  # the GM's own roll was undone
    await gm.close()
    await alice.close()


async def test_a_relayed_self_roll_answers_its_gm_requester_as_the_player_sees_it(sidecar):
    """In local mode the GM's browser carries a player's requests: the reply shows the player's outcome (the
    module hands it to the player), and no other socket of the GM's hears of it."""
    gm = await sidecar.client("gm", user="gm-user")
    other_gm = await Raw.join(sidecar, sidecar.keys.gm, "gm-user")
    alice_raw = await Raw.join(sidecar, sidecar.user_key("alice"), "alice")
    before = await _snapshot(other_gm, "b")
    relayed = await gm.request(
        m.Roll(id="rel", check=ChallengeCheck(cl=2, dice=[1]), actor="Ayla", mode="self", user="alice")
    )
    assert relayed.user == "alice" and relayed.result.outcome == "epic_failure" and relayed.events == []
    await alice_raw.wait(lambda f: f.get("check") == relayed.check and f.get("result") is not None)
    assert await _snapshot(other_gm, "a") == before
    assert relayed.check.encode() not in other_gm.blob()
    with pytest.raises(RequestFailed) as e:  # the relay's follow-up on it: no GM socket sees the check
        await gm.request(m.Follow(id="rf", check=relayed.check, action=ChallengeRemoveComplication(complication="k")))
    assert e.value.code == "unknown_check"
    with pytest.raises(RequestFailed) as e:
        await gm.request(m.Follow(id="rb", check=relayed.check, action=FlairsBargain(trial="loud"), user="alice"))
    assert e.value.code == "unknown_check"
    await other_gm.close()
    await alice_raw.close()
    await gm.close()
