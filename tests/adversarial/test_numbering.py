"""The numbering tells nothing: a viewer's seqs count only the events it is told of, check ids count nothing,
and a reconnect with ``since`` (in the viewer's own numbering) gets exactly what it missed.

Forty hidden rolls with every outcome (each a different number of events: strain, conditions, hidden
complications, a hero taken down), between public rolls: what the observer, the table-wide key, a third
player and another GM socket (for ``self``) are told is numbered the same whatever the hidden outcomes were."""

from __future__ import annotations

import json

import pytest

from protocol.v1 import messages as m
from protocol.v1.challenge import ChallengeCheck
from protocol.v1.facets import FacetsCheck

from .conftest import Raw, barrier

# (d20 face, modifier) against CL 2: epic failure, failure, success at cost, success +1, +2, +3, epic success
OUTCOMES = [(1, 0), (3, 0), (8, 0), (12, 0), (17, 0), (20, 5), (20, 10)]
HIDDEN = 40


def _rolled(raw: Raw, prefix: str) -> list[dict]:
    return [f for f in raw.decoded() if f.get("type") == "rolled" and (f.get("label") or "").startswith(prefix)]


def _told_seqs(raw: Raw) -> list[int]:
    """Every number a socket was told after its welcome: frames' seqs and their events'."""
    out = []
    for f in raw.decoded()[1:]:
        if f.get("type") in ("rolled", "followed", "event", "done") and "seq" in f:
            if f["type"] != "rolled" or f.get("result") is not None:
                out.append(f["seq"])
            out += [e["seq"] for e in f.get("events") or []]
    return out


@pytest.mark.parametrize("mode", ["gm", "blind", "self"])
async def test_hidden_rolls_move_nobody_elses_numbering(sidecar, mode):
    k = sidecar.keys
    gm = await sidecar.client("gm", user="gm-user")
    alice = await sidecar.client("player", user="alice")
    obs = await Raw.join(sidecar, k.observer)
    table_key = await Raw.join(sidecar, k.player, msgpack=True)
    bob = await Raw.join(sidecar, sidecar.user_key("bob"), "bob")
    gm_raw = await Raw.join(sidecar, k.gm, "gm-2")
    alice_raw = await Raw.join(sidecar, sidecar.user_key("alice"), "alice")
    # (a GM socket is no outsider of a gm or blind roll; of a self roll it is: the roll changes nothing)
    outsiders = [obs, table_key, bob] + ([alice_raw] if mode == "blind" else []) + ([gm_raw] if mode == "self" else [])

    hidden_ids = []
    for i in range(HIDDEN):
        await gm.request(m.Roll(id=f"p{i}", check=FacetsCheck(pool=1, dice=[3]), label=f"pub-{i}"))
        face, modifier = OUTCOMES[i % len(OUTCOMES)]
        r = await alice.request(
            m.Roll(id=f"h{i}", check=ChallengeCheck(cl=2, modifier=modifier, dice=[face]), actor="Hero", mode=mode)
        )
        hidden_ids.append(r.check)
    await gm.request(m.Roll(id="plast", check=FacetsCheck(pool=1, dice=[3]), label=f"pub-{HIDDEN}"))
    await barrier(gm, [obs, table_key, bob, gm_raw, alice_raw])

    # the hidden rolls did have consequences of different sizes (as their viewers are told); a self roll none
    seer = alice_raw if mode != "blind" else gm_raw
    sizes = {len(f["events"]) for f in seer.decoded() if f.get("type") == "rolled" and f["check"] in hidden_ids}
    assert len(sizes) >= 3 if mode != "self" else sizes == {0}, sizes
    expected = None
    for raw in outsiders:
        public = _rolled(raw, "pub-")
        assert [f["label"] for f in public] == [f"pub-{i}" for i in range(HIDDEN + 1)]
        # each public roll's number is the previous one's plus its own events: nothing hidden in between
        seqs = [f["seq"] for f in public]
        own = [1 + len(f["events"]) for f in public]
        assert seqs == [1 + sum(own[:i]) for i in range(len(own))], (mode, raw)
        expected = expected or seqs
        assert seqs == expected  # every outsider numbers the same
        told = _told_seqs(raw)
        assert told == list(range(1, len(told) + 1)), (mode, raw)  # no gap, no repeat: a count of its own
        for f in public:
            # a check id is random: not the table's seq, nor a count of anything
            suffix = f["check"].rsplit("-", 1)[-1]
            assert len(suffix) >= 16 and int(suffix, 16) >= 0, f["check"]
    # the blind roller hears that each roll happened, numbered as the last event it had: no move either
    if mode == "blind":
        shells = [f for f in alice_raw.decoded() if f.get("type") == "rolled" and f.get("check") in hidden_ids]
        assert len(shells) == HIDDEN and all(f["result"] is None and f["events"] == [] for f in shells)

    # catch-up with `since` is exact, for every viewer, in its own numbering
    viewers = [(k.observer, None), (k.player, None), (sidecar.user_key("bob"), "bob")]
    viewers += [(sidecar.user_key("alice"), "alice"), (k.gm, "gm-2"), (k.gm, "gm-user")]
    for key, user in viewers:
        whole = await Raw.join(sidecar, key, user, since=0)
        welcome = whole.decoded()[0]
        await whole.close()
        events = welcome["events"]
        count = welcome["seq"]
        assert [e["seq"] for e in events] == list(range(1, count + 1)), (mode, user)
        for e in events:
            cause = e["event"].get("cause")
            assert cause is None or 1 <= cause <= e["seq"]
        step = max(1, count // 12)
        for since in sorted({*range(0, count + 1, step), count - 1, count}):
            back = await Raw.join(sidecar, key, user, since=since)
            w = back.decoded()[0]
            await back.close()
            assert w["seq"] == count and w.get("snapshot") is None, (mode, user, since)
            assert json.dumps(w["events"]) == json.dumps(events[since:]), (mode, user, since)
        # what a live socket of this viewer was told is numbered as the catch-up numbers it
        live = {None: obs, "bob": bob, "gm-2": gm_raw, "alice": alice_raw}.get(user)
        if live is not None and key != k.player:
            by_check = {e["event"]["check_id"]: e["seq"] for e in events if e["event"]["kind"] == "roll"}
            for f in live.decoded():
                if f.get("type") == "rolled" and f.get("result") is not None:
                    assert by_check[f["check"]] == f["seq"], (mode, user)
    for c in (obs, table_key, bob, gm_raw, alice_raw):
        await c.close()
    await gm.close()
    await alice.close()
