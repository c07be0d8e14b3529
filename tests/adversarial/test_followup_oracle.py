"""A blind roll's follow-ups are no oracle for its result. Rolled blind for a player with physical dice the
GM enters (so that every outcome occurs), each is then asked every follow-up by every socket that may not
see its result: the roller on its own key, the GM's connection relaying for the roller, another player, an
observer. What each socket receives (the replies and any frame after them), ids aside, is the same byte for
byte whatever the hidden result; the GM, who sees it, makes the roller's follow-ups."""

from __future__ import annotations

import json
import re

import msgspec

from protocol.v1 import challenge as challenge_t
from protocol.v1 import messages as m
from protocol.v1.challenge import ChallengeCheck, ChallengeChoice, ChallengeRemoveComplication
from protocol.v1.flairs import FlairsBargain, FlairsCheck, FlairsChoose, FlairsReveal
from sidecar import config
from sidecar.server.app import HUB
from sidecar.state import table as table_module

from .conftest import Raw, barrier

FLAIRS = ["careful", "swift", "quiet", "unscathed", "impressive", "composed"]

# faces for a rank-3 flairs check: failures, conflicts and triumphs, with 0 to 2 flairs or trials
FLAIRS_FACES = [
    [1, 2, 3], [3, 3, 1], [2, 2, 2], [5, 4, 1], [5, 5, 2], [6, 6, 6], [6, 1, 2], [4, 4, 4], [6, 6, 3], [3, 2, 1],
    [5, 5, 5], [6, 5, 4], [2, 3, 3], [4, 4, 6], [1, 1, 1], [6, 6, 1], [4, 2, 1], [5, 1, 1], [6, 3, 3], [2, 1, 1],
]  # fmt: skip
# (d20 face, modifier) against CL 2: epic failure (a natural 1), failures, success at cost, success, the
# +2/+3 choices, epic successes
CHALLENGE_FACES = [
    (1, 0), (2, 0), (4, 0), (6, 0), (8, 0), (10, 0), (11, 0), (12, 0), (13, 0), (15, 0), (16, 0), (17, 0),
    (18, 0), (20, 0), (3, 0), (1, 9), (14, 6), (19, 6), (20, 9), (16, 9),
]  # fmt: skip

ID = re.compile(rb'"(check|id)":"[^"]*"')


def _follow_ups(check_id: str, system: str, n: int) -> list[m.Follow]:
    """Every follow-up an attacker would try on a check of ``system``: the flair choice with 6, 5, … 0 flairs
    counts them; the bargain tells a failure; the choice tells a margin of +2/+3."""
    actions: list[object]
    if system == "flairs":
        actions = [FlairsBargain(trial="loud", dice=[6]), FlairsReveal()]
        actions += [FlairsChoose(flairs=FLAIRS[:k]) for k in range(6, -1, -1)]
    else:
        actions = [
            ChallengeChoice(option="game_changer"),
            ChallengeChoice(option="strain"),
            ChallengeRemoveComplication(complication="k00000000"),
        ]
    return [m.Follow(id=f"f{n}-{i}", check=check_id, action=a) for i, a in enumerate(actions)]  # type: ignore[arg-type]


async def _ask(sock: Raw, msg: m.Follow, user: str | None = None) -> bytes:
    """Send a follow-up as a raw frame; the frame that answers it."""
    if user is not None:
        msg = msgspec.structs.replace(msg, user=user)
    before = len(sock.frames)
    await sock.ws.send(msgspec.json.encode(msg).decode())
    await sock.wait(lambda f: f.get("id") == msg.id and f.get("type") in ("error", "followed"))
    got = [f for f in sock.frames[before:] if json.loads(f).get("id") == msg.id]
    return got[0]


def _plain(frames: list[bytes], check_id: str) -> list[bytes]:
    """The frames with their check and request ids blanked: what may differ from one check to the next."""
    return [ID.sub(rb'"\1":"-"', f.replace(check_id.encode(), b"-")) for f in frames]


async def test_no_follow_up_answers_by_a_blind_result(sidecar):
    k = sidecar.keys
    gm = await sidecar.client("gm", user="gm-user")
    alice = await Raw.join(sidecar, sidecar.user_key("alice"), "alice")
    relay = await Raw.join(sidecar, k.gm, "gm-user")
    bob = await Raw.join(sidecar, sidecar.user_key("bob"), "bob")
    obs = await Raw.join(sidecar, k.observer)
    watched = {"alice": alice, "relay": relay, "bob": bob, "observer": obs}

    heard: dict[str, dict[str, set[tuple[bytes, ...]]]] = {}  # who -> system -> distinct answers
    outcomes: dict[str, set[str]] = {"flairs": set(), "challenge": set()}
    checks = [("flairs", FlairsCheck(rank=3, dice=faces)) for faces in FLAIRS_FACES]
    checks += [("challenge", ChallengeCheck(cl=2, modifier=mod, dice=[face])) for face, mod in CHALLENGE_FACES]
    for n, (system, check) in enumerate(checks):
        # the GM enters the player's physical dice for a blind roll: only the GM sees what they gave
        r = await gm.request(m.Roll(id=f"r{n}", check=check, mode="blind", user="alice", actor="Ayla"))
        outcomes[system].add(r.result.outcome if system == "challenge" else f"{r.result.outcome}/{r.result.flairs}")
        await barrier(gm, list(watched.values()))
        marks = {who: len(sock.frames) for who, sock in watched.items()}
        for fu in _follow_ups(r.check, system, n):
            await _ask(alice, fu)
            # the GM's browser relaying for the roller: treated as the roller
            await _ask(relay, msgspec.structs.replace(fu, id=f"g{fu.id}"), user="alice")
            await _ask(bob, msgspec.structs.replace(fu, id=f"b{fu.id}"))
        await barrier(gm, list(watched.values()))
        for who, sock in watched.items():
            frames = [f for f in sock.frames[marks[who] :] if b"barrier-" not in f]
            heard.setdefault(who, {}).setdefault(system, set()).add(tuple(_plain(frames, r.check)))

    # both sides of every secret occurred: failures and successes, 0 to 2 flairs, every challenge margin
    assert {"failure/0", "conflict/1", "triumph/2"} <= outcomes["flairs"], outcomes
    assert {"epic_failure", "failure", "success_at_cost", "success", "epic_success"} <= outcomes["challenge"]
    for who, by_system in heard.items():
        for system, answers in by_system.items():
            assert len(answers) == 1, (who, system, answers)
    refusal = json.loads(next(iter(heard["alice"]["flairs"]))[0])
    assert refusal["code"] == "followup_refused"
    assert json.loads(next(iter(heard["bob"]["flairs"]))[0])["code"] == "unknown_check"
    assert heard["observer"]["flairs"] == {()}  # told nothing of anyone's refusals

    for sock in watched.values():
        await sock.close()
    await gm.close()


async def test_the_gm_makes_a_blind_rollers_follow_ups_and_the_roller_hears_none(sidecar):
    gm = await sidecar.client("gm", user="gm-user")
    alice = await Raw.join(sidecar, sidecar.user_key("alice"), "alice")
    other_gm = await Raw.join(sidecar, sidecar.keys.gm, "gm-user")
    failed = await gm.request(
        m.Roll(id="r1", check=FlairsCheck(rank=2, dice=[3, 2]), mode="blind", user="alice", actor="Ayla")
    )
    assert [o.action for o in failed.open] == ["flairs_bargain"]  # the roller's, offered to the GM
    told = await other_gm.wait(lambda f: f.get("check") == failed.check)
    assert [o["action"] for o in told["open"]] == ["flairs_bargain"]  # on every GM socket, not only the relay's
    bargain = await gm.request(m.Follow(id="b1", check=failed.check, action=FlairsBargain(trial="loud", dice=[6])))
    assert bargain.result.outcome == "triumph" and bargain.by == "gm"
    chose = await gm.request(m.Roll(id="r2", check=ChallengeCheck(cl=2, dice=[17]), mode="blind", user="alice"))
    assert [o.action for o in chose.open] == ["challenge_choice"]
    done = await gm.request(m.Follow(id="c1", check=chose.check, action=ChallengeChoice(option="game_changer")))
    assert done.result.chosen == "game_changer"
    await barrier(gm, [alice])
    seen = alice.decoded()
    assert [f["type"] for f in seen if f.get("check") in (failed.check, chose.check)] == ["rolled", "rolled"]
    assert all(f.get("result") is None for f in seen if f.get("check") in (failed.check, chose.check))
    # the roller's own verify: found, no result, nothing open
    await alice.ws.send(msgspec.json.encode(m.Verify(id="v", check=failed.check)).decode())
    v = await alice.wait(lambda f: f.get("id") == "v")
    assert v["found"] and v.get("result") is None and not v.get("open")
    await alice.close()
    await other_gm.close()
    await gm.close()


async def test_a_blind_rollers_follow_up_reads_the_same_whatever_became_of_the_check(sidecar, monkeypatch):
    """The table holds an old check only while it is open, and whether a blind roll's check is open is its
    result's to say (a +2/+3 margin waits for the choice, a failure is closed): the roller's follow-up on an
    old blind check reads the ledger once whichever it is, so that its answer comes as soon either way."""
    monkeypatch.setattr(table_module, "RECENT_KEPT", 4)
    monkeypatch.setattr(config, "CHECKS_LATEST", 0)  # only the open ones held
    gm = await sidecar.client("gm", user="gm-user")
    alice = await Raw.join(sidecar, sidecar.user_key("alice"), "alice")
    open_ = await gm.request(m.Roll(id="o", check=ChallengeCheck(cl=2, dice=[17]), mode="blind", user="alice"))
    closed = await gm.request(m.Roll(id="c", check=ChallengeCheck(cl=2, dice=[7]), mode="blind", user="alice"))
    for i in range(12):  # newer events push both out of the recent window
        await gm.request(m.Gm(id=f"p{i}", op=challenge_t.StrainSet(actor="Bree", strain=i)))
    hub = sidecar.server.app[HUB]
    table_ = hub.tables[sidecar.keys.table].table
    assert open_.check in table_.state.checks and closed.check not in table_.state.checks
    reads: list[str] = []
    real = table_.ledger.read_check_events

    async def counted(table_id: str, check_id: str):
        reads.append(check_id)
        return await real(table_id, check_id)

    monkeypatch.setattr(table_.ledger, "read_check_events", counted)
    answers = []
    for r in (open_, closed):
        for n in range(2):  # the first naming reads; the next ones answer from memory, both alike
            before = len(reads)
            frame = await _ask(
                alice, m.Follow(id=f"a{r.check}-{n}", check=r.check, action=ChallengeChoice(option="strain"))
            )
            answers.append((len(reads) - before, _plain([frame], r.check)))
    assert answers[:2] == answers[2:] and [n for n, _ in answers[:2]] == [1, 0], answers
    await alice.close()
    await gm.close()
