"""The GM cleaning up after a hidden roll tells nobody who did not see the roll anything. A blind catastrophe
(a wound, a condition, a detrimental facet the GM alone sees) that the GM then heals and removes, against a
blind success the GM leaves alone: every socket that may not see the roll (its roller, another player, an
observer) receives, ids and numbering aside, the very same frames and the very same ``state`` in both."""

from __future__ import annotations

import json
import re

import msgspec

from protocol.v1 import facets as facets_t
from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.facets import FacetsCheck

from .conftest import Raw, barrier

IDS = re.compile(rb'"(check|id|label|condition|facet)":"[^"]*"')
SEQ = re.compile(rb'"(seq|cause)":(\d+)')


def _plain(frames: list[bytes], base: int) -> list[bytes]:
    """Frames with ids blanked and numbers counted from ``base`` (the socket's last number before)."""
    out = []
    for f in frames:
        f = IDS.sub(rb'"\1":"-"', f)
        out.append(SEQ.sub(lambda g: b'"%s":%d' % (g.group(1), int(g.group(2)) - base), f))
    return out


async def _state(sock: Raw, rid: str) -> dict:
    await sock.ws.send(msgspec.json.encode(m.State(id=rid)).decode())
    got = await sock.wait(lambda f: f.get("id") == rid)
    snap = got["snapshot"]
    snap.pop("seq")
    return snap


def _last_seq(sock: Raw) -> int:
    return max((f["seq"] for f in sock.decoded() if isinstance(f.get("seq"), int)), default=0)


async def test_healing_and_removing_a_blind_catastrophe_tells_the_others_nothing(sidecar):
    k = sidecar.keys
    gm = await sidecar.client("gm", user="gm-user")
    watched = {
        "roller": await Raw.join(sidecar, sidecar.user_key("alice"), "alice"),
        "player": await Raw.join(sidecar, sidecar.user_key("bob"), "bob"),
        "observer": await Raw.join(sidecar, k.observer),
    }
    await gm.request(m.Gm(id="scene", op=t.SceneActivate(scene="Hall")))
    wounded = FacetsCheck(pool=1, kind="opposition", dice=[3])  # a failure: Ayla takes a wound, in the open
    catastrophe = FacetsCheck(pool=2, kind="opposition", dice=[1, 1])  # a wound, a condition, a facet
    success = FacetsCheck(pool=1, kind="opposition", dice=[6])  # nothing of Ayla's to heal
    heard: dict[str, list[tuple[list[bytes], dict]]] = {who: [] for who in watched}

    for n, (hidden, cleanup) in enumerate(((catastrophe, True), (success, False))):
        await gm.request(m.Roll(id=f"w{n}", check=wounded, actor="Ayla"))
        await gm.request(m.Roll(id=f"b{n}", check=hidden, mode="blind", user="alice", actor="Ayla"))
        await barrier(gm, list(watched.values()))
        marks = {who: (len(sock.frames), _last_seq(sock)) for who, sock in watched.items()}
        ayla = (await gm.request(m.State(id=f"s{n}"))).snapshot.actors["Ayla"]
        if cleanup:  # the GM, who saw the catastrophe, heals it and removes what it brought
            assert ayla.wounds == 2 and len(ayla.conditions) == 1
            await gm.request(m.Gm(id=f"c{n}", op=t.ConditionRemove(actor="Ayla", condition=ayla.conditions[0].id)))
            done = await gm.request(m.Gm(id=f"h{n}", op=facets_t.HarmHeal(actor="Ayla", harm="wound", count=2)))
            assert sum(e.event.count for e in done.events) == 2  # the GM sees both wounds heal
            snap = (await gm.request(m.State(id=f"f{n}"))).snapshot
            for facet in [*snap.actors["Ayla"].facets, *snap.scenes["Hall"].facets]:
                await gm.request(m.Gm(id=f"x{n}-{facet.id}", op=facets_t.FacetRemove(facet=facet.id)))
        else:  # nothing hidden to clean up: the GM heals the wound everyone saw
            assert ayla.wounds == 1 and not ayla.conditions
            await gm.request(m.Gm(id=f"h{n}", op=facets_t.HarmHeal(actor="Ayla", harm="wound", count=1)))
        after = (await gm.request(m.State(id=f"a{n}"))).snapshot.actors["Ayla"]
        assert after.wounds == 0 and not after.conditions
        await barrier(gm, list(watched.values()))
        for who, sock in watched.items():
            at, base = marks[who]
            frames = [f for f in sock.frames[at:] if b"barrier-" not in f]
            heard[who].append((_plain(frames, base), await _state(sock, f"st{n}-{who}")))

    for who, (cleaned, untouched) in heard.items():
        assert cleaned == untouched, who
        frames, snap = cleaned
        healed = [json.loads(f)["event"] for f in frames if b"harm_healed" in f]
        assert [e["count"] for e in healed] == [1], who  # the wound it saw heals; of the other, nothing
        assert snap["actors"]["Ayla"]["wounds"] == 0 and not snap["actors"]["Ayla"]["conditions"]
    for sock in watched.values():
        await sock.close()
    await gm.close()


async def test_a_players_own_gm_roll_heals_in_their_sight(sidecar):
    """A wound from a player's `gm` roll is theirs and the GM's to see: its heal goes to them, and not to the
    other players, who are told of the part they saw."""
    gm = await sidecar.client("gm", user="gm-user")
    alice = await sidecar.client("player", user="alice")
    alice_raw = await Raw.join(sidecar, sidecar.user_key("alice"), "alice")
    bob = await Raw.join(sidecar, sidecar.user_key("bob"), "bob")
    await gm.request(m.Gm(id="scene", op=t.SceneActivate(scene="Hall")))
    await gm.request(m.Roll(id="w", check=FacetsCheck(pool=1, kind="opposition", dice=[3]), actor="Ayla"))
    await alice.request(m.Roll(id="g", check=FacetsCheck(pool=1, kind="opposition", dice=[2]), actor="Ayla", mode="gm"))
    await gm.request(m.Roll(id="b", check=FacetsCheck(pool=1, kind="opposition", dice=[2]), actor="Ayla", mode="blind"))
    done = await gm.request(m.Gm(id="h", op=facets_t.HarmHeal(actor="Ayla", harm="wound", count=3)))
    assert [e.event.count for e in done.events] == [1, 1, 1]
    await barrier(gm, [alice_raw, bob])

    def counts(sock: Raw) -> list[int]:
        return [f["event"]["count"] for f in sock.decoded() if f.get("event", {}).get("kind") == "harm_healed"]

    assert counts(alice_raw) == [1, 1] and counts(bob) == [1]
    assert (await _state(alice_raw, "sa"))["actors"]["Ayla"]["wounds"] == 0
    assert (await _state(bob, "sb"))["actors"]["Ayla"]["wounds"] == 0
    await alice_raw.close()
    await bob.close()
    await alice.close()
    await gm.close()
