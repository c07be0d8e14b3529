"""`verified` carries a roll's label to whoever may see the roll, and to nobody else.

A card drawn again after a reload (a GM's or a roller's copy of a gm, blind or self roll: the chat document
is a shell without the label) asks the sidecar with ``verify``; the reply is the only place its label can
come from. Who gets it follows the visibility of the roll event (``sidecar/state/visibility.py``): checked
here on the raw frames each socket receives, for every role, in both encodings.
"""

from __future__ import annotations

import json

import msgspec
import pytest

from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.facets import FacetsCheck
from sidecar.state.ledger import SqliteLedger
from sidecar.state.table import Table
from sidecar.state.visibility import ROLL_VISIBILITY, Viewer, may_see
from tests.adversarial.conftest import Raw

MODES = ("public", "gm", "blind", "self")


async def _verify(sock: Raw, check: str, rid: str) -> dict:
    frame = {"type": "verify", "id": rid, "check": check}
    await sock.ws.send(msgspec.msgpack.encode(frame) if sock.msgpack else json.dumps(frame))
    return await sock.wait(lambda f: f.get("type") == "verified" and f.get("id") == rid)


async def test_verified_label_reaches_exactly_those_who_may_see_the_roll(sidecar):
    alice = await sidecar.client("player", user="alice")
    gm = await sidecar.client("gm", user="gm-user")
    checks = {}
    for mode in MODES:
        r = await alice.request(
            m.Roll(id=f"r-{mode}", check=FacetsCheck(pool=2, dice=[6, 3]), mode=mode, label=f"L-{mode}-q")
        )
        checks[mode] = r.check
    # a labelled roll undone: no longer the ledger's word for anyone
    gone = await gm.request(m.Roll(id="gone", check=FacetsCheck(pool=1, dice=[4]), label="L-undone-q"))
    await gm.request(m.Gm(id="u", op=t.Undo(count=1)))

    k = sidecar.keys
    # every kind of socket, joined after the rolls: all a frame of theirs can hold is what verify answers
    socks = {
        "gm": (await Raw.join(sidecar, k.gm, "gm-user"), Viewer("gm", "gm-user")),
        "gm-2": (await Raw.join(sidecar, k.gm, "gm-2", msgpack=True), Viewer("gm", "gm-2")),
        "roller": (await Raw.join(sidecar, sidecar.user_key("alice"), "alice"), Viewer("player", "alice")),
        "roller-mp": (
            await Raw.join(sidecar, sidecar.user_key("alice"), "alice", msgpack=True),
            Viewer("player", "alice"),
        ),
        "bob": (await Raw.join(sidecar, sidecar.user_key("bob"), "bob"), Viewer("player", "bob")),
        "bob-mp": (await Raw.join(sidecar, sidecar.user_key("bob"), "bob", msgpack=True), Viewer("player", "bob")),
        "observer": (await Raw.join(sidecar, k.observer), Viewer("observer", None)),
    }
    for name, (sock, viewer) in socks.items():
        for mode in MODES:
            reply = await _verify(sock, checks[mode], f"v-{mode}")
            sees = may_see(ROLL_VISIBILITY[mode], "alice", viewer)
            if sees:
                assert reply["found"] and reply["label"] == f"L-{mode}-q", (name, mode, reply)
                assert reply["result"] is not None
            elif mode == "blind" and viewer.user == "alice":
                # the blind roll's roller knows it exists, and the label they gave it, not the result
                assert reply["found"] and reply["label"] == "L-blind-q" and reply["result"] is None, (name, reply)
            else:  # anyone else who may not see a roll does not know it exists
                assert not reply["found"] and reply["label"] is None and reply["result"] is None, (name, mode, reply)
        undone = await _verify(sock, gone.check, "v-undone")
        assert not undone["found"] and undone["label"] is None
        blob = sock.blob()
        for mode in MODES:
            shown = may_see(ROLL_VISIBILITY[mode], "alice", viewer) or (mode == "blind" and viewer.user == "alice")
            assert (f"L-{mode}-q".encode() in blob) == shown, (name, mode)
        assert b"L-undone-q" not in blob
    for sock, _ in socks.values():
        await sock.close()
    await alice.close()
    await gm.close()


@pytest.mark.parametrize("mode", MODES)
def test_a_label_older_than_the_recent_window_is_read_back_from_the_ledger(tmp_path, mode):
    ledger = SqliteLedger(tmp_path / "v.sqlite3")
    table = Table(ledger.create_table("t").table, ledger)
    table.load()
    table.recent_kept = 2
    alice, gm, bob = Viewer("player", "alice"), Viewer("gm", "g"), Viewer("player", "bob")

    def roll(viewer: Viewer, label: str | None, mode: str = "public") -> str:
        p = table.prepare_roll(
            m.Roll(id="x", check=FacetsCheck(pool=1, dice=[5]), mode=mode, label=label),  # type: ignore[arg-type]
            viewer,
            viewer.user,
        )
        ledger.append_sync(table.id, p.encoded(), None)
        table.commit(p)
        assert p.check_id is not None
        return p.check_id

    first = roll(alice, "the old door", mode)
    plain = roll(alice, None, mode)
    for i in range(10):
        roll(gm, f"filler {i}")
    assert table.recent[0][0] > table.roll_seq[first]  # out of the window: only the ledger has its label
    for viewer in (alice, gm, bob):
        # the roller of a blind roll is given the label they gave it (their own reply carried it)
        sees = may_see(ROLL_VISIBILITY[mode], "alice", viewer) or (mode == "blind" and viewer is alice)
        v = table.verify(m.Verify(id="v", check=first), viewer)
        assert v.label == ("the old door" if sees else None)
        assert table.verify(m.Verify(id="v", check=plain), viewer).label is None
    # a table loaded afresh from the ledger answers the same
    again = Table(table.id, ledger)
    again.load()
    assert again.verify(m.Verify(id="v", check=first), alice).label == "the old door"  # alice may see it or rolled it
    ledger.close()
