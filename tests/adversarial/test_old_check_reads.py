"""What naming an old check costs the server tells nothing of a check the asker may not see: an old hidden
check and an id that never was are read alike (one index lookup), and a label, a target or an actor's name
shaped like check ids makes no entries in the check index.

Ids of tables from before random check ids are ``<table>-<seq>``: anyone can name every seq in turn. Were a
hidden roll read twice where an id that never was is read once, a player timing ``verify`` over those ids
would find every hidden roll, and from the seqs between them each blind roll's consequences."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest

from protocol.v1 import limits
from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.challenge import ChallengeCheck
from protocol.v1.facets import FacetsCheck
from sidecar import config
from sidecar.server.app import HUB
from sidecar.state import ledger as ledger_module
from sidecar.state import table as table_module
from sidecar.state.table import Table

from ..conftest import Sidecar


class Reads:
    """The serving reads the ledger answers, counted by kind."""

    def __init__(self, ledger: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.counted: list[str] = []
        for name in ("read_events", "read_check_events", "read_rows", "find_request"):
            real = getattr(ledger, name)
            monkeypatch.setattr(ledger, name, self._counting(name, real))

    def _counting(self, name: str, real: Any) -> Any:
        async def counted(*args: Any, **kw: Any) -> Any:
            self.counted.append(name)
            return await real(*args, **kw)

        return counted

    def take(self) -> list[str]:
        out, self.counted = self.counted, []
        return out


async def test_an_old_hidden_check_is_read_as_an_id_that_never_was(
    sidecar: Sidecar, raw: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table_module, "RECENT_KEPT", 4)
    monkeypatch.setattr(config, "CHECKS_LATEST", 0)
    gm = await sidecar.client("gm", user="gm")
    anna = await sidecar.client("player", user="anna")
    bo = await raw.join(sidecar, sidecar.user_key("bo"), user="bo")
    hidden = {
        mode: (await anna.request(m.Roll(id=f"r-{mode}", check=FacetsCheck(pool=1), mode=mode, label=mode))).check
        for mode in ("gm", "blind", "self")
    }
    public = (await anna.request(m.Roll(id="r-public", check=FacetsCheck(pool=1), label="public"))).check
    for i in range(12):  # the recent window moves past them
        await gm.request(m.Roll(id=f"later-{i}", check=FacetsCheck(pool=1)))
    table: Table = sidecar.server.app[HUB].tables[sidecar.keys.table].table  # type: ignore[union-attr]
    assert not any(cid in table.state.checks for cid in [*hidden.values(), public])
    never = [f"{sidecar.keys.table}-{n:016x}" for n in range(len(hidden) + 1)]

    reads = Reads(sidecar.ledger, monkeypatch)
    told: dict[str, tuple[dict[str, Any], list[str]]] = {}
    for name, cid in [*hidden.items(), ("public", public), *((f"never {i}", c) for i, c in enumerate(never))]:
        await bo.ws.send(json.dumps({"type": "verify", "id": f"v-{name}", "check": cid}))
        frame = await bo.wait(lambda f, name=name: f.get("id") == f"v-{name}")
        told[name] = ({k: v for k, v in frame.items() if k not in ("id", "check")}, reads.take())
    # to bo, every hidden check is exactly an id that never was: the same frame, the same reads
    for mode in hidden:
        assert told[mode] == told["never 0"], mode
    assert told["never 0"] == (
        {"type": "verified", "found": False, "seq": None, "result": None, "label": None},
        ["read_check_events"],
    )
    # the public one is bo's to see, read with the same one lookup (its label came with it)
    assert told["public"][0]["found"] and told["public"][0]["label"] == "public"
    assert told["public"][1] == ["read_check_events"]
    # and to the GM, anna's old `self` roll is an id that never was too
    gm_raw = await raw.join(sidecar, sidecar.keys.gm, user="gm")
    reads.take()  # (what its join read)
    table._old.clear()  # named afresh, as bo's were
    table._labels.clear()
    for name, cid in (("self", hidden["self"]), ("never", f"{sidecar.keys.table}-{99:016x}")):
        await gm_raw.ws.send(json.dumps({"type": "verify", "id": f"g-{name}", "check": cid}))
        frame = await gm_raw.wait(lambda f, name=name: f.get("id") == f"g-{name}")
        told[f"gm {name}"] = ({k: v for k, v in frame.items() if k not in ("id", "check")}, reads.take())
    assert told["gm self"] == told["gm never"] == told["never 0"]
    await gm.close()
    await anna.close()
    await bo.close()
    await gm_raw.close()


def _forged_ids(table_id: str, count: int) -> str:
    """A text of ``count`` distinct strings shaped like the table's check ids as its event's bytes hold them:
    each preceded by a byte that reads as a short string's header (U+00B0's second byte, 0xB0: 16 bytes)."""
    return "".join(f"\u00b0{table_id}-{n:07x}" for n in range(count))


async def test_texts_shaped_like_check_ids_make_no_index_entries(sidecar: Sidecar, raw: Any) -> None:
    gm = await sidecar.client("gm", user="gm")
    anna = await raw.join(sidecar, sidecar.user_key("anna"), user="anna")
    table_id = sidecar.keys.table
    each = len(_forged_ids(table_id, 1))  # as many as each text's bound lets in
    forged = _forged_ids(table_id, limits.LABEL_CHARS // each)
    roll = {
        "type": "roll",
        "id": "forged",
        "check": {"system": "facets", "pool": 1},
        "actor": _forged_ids(table_id, limits.NAME_CHARS // each),
        "target": _forged_ids(table_id, limits.NAME_CHARS // each),
        "label": forged,
    }
    await anna.ws.send(json.dumps(roll))
    rolled = await anna.wait(lambda f: f.get("id") == "forged" or f.get("type") == "error", timeout=20)
    assert rolled["type"] == "rolled", rolled
    real = (await gm.request(m.Roll(id="real", check=FacetsCheck(pool=1), label=f"{table_id}-0000001"))).check
    db = sqlite3.connect(sidecar.ledger.path)
    indexed = sorted(c for (c,) in db.execute("SELECT check_id FROM check_events WHERE table_id=?", (table_id,)))
    db.close()
    assert indexed == sorted([rolled["check"], real])
    # and the scan the append runs finds the event's own check id alone, in a few microseconds
    event = sidecar.ledger.events(table_id)[-2][1]
    assert ledger_module.check_ids(table_id, event) == {rolled["check"]}
    await gm.close()
    await anna.close()


async def test_an_old_ledgers_guessable_ids_are_read_alike_held_or_not(
    sidecar: Sidecar, raw: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table from before random ids names its checks ``<table>-<seq>``: anyone can name them all. A check the
    table still holds (open to follow-ups: a blind success whose choice waits, an epic success waiting for the
    GM's removal of a complication) is read on its first naming as any other such id is, so that what is
    held, which follows from the hidden outcome, cannot be told from the reads."""
    monkeypatch.setattr(table_module, "RECENT_KEPT", 4)
    monkeypatch.setattr(config, "CHECKS_LATEST", 0)
    monkeypatch.setattr(Table, "_new_check_id", lambda self: f"{self.id}-{self.head + 1}")  # as before random ids
    gm = await sidecar.client("gm", user="gm")
    anna = await sidecar.client("player", user="anna")
    bo = await raw.join(sidecar, sidecar.user_key("bo"), user="bo")
    await gm.request(m.Gm(id="scene", op=t.SceneActivate(scene="Hall")))
    opened = (await anna.request(m.Roll(id="e", check=ChallengeCheck(cl=1, modifier=0, dice=[20]), mode="blind"))).check
    failed = (await anna.request(m.Roll(id="f", check=ChallengeCheck(cl=3, modifier=0, dice=[7]), mode="blind"))).check
    for i in range(12):  # the recent window moves past them
        await gm.request(m.Roll(id=f"later-{i}", check=ChallengeCheck(cl=2, modifier=0, dice=[7])))
    table: Table = sidecar.server.app[HUB].tables[sidecar.keys.table].table  # type: ignore[union-attr]
    assert opened in table.state.checks and failed not in table.state.checks  # the outcome decides what is held
    head = table.head
    never = f"{sidecar.keys.table}-{head + 100}"

    reads = Reads(sidecar.ledger, monkeypatch)
    told: dict[str, tuple[dict[str, Any], list[str]]] = {}
    for kind in ("follow", "verify"):
        table._old.clear()  # each named afresh
        table._labels.clear()
        for name, cid in (("opened", opened), ("failed", failed), ("never", never)):
            frame: dict[str, Any] = {"type": kind, "id": f"{kind}-{name}", "check": cid}
            if kind == "follow":
                frame["action"] = {"action": "challenge_choice", "option": "strain"}
            await bo.ws.send(json.dumps(frame))
            got = await bo.wait(lambda f, want=frame["id"]: f.get("id") == want)
            told[f"{kind} {name}"] = ({k: v for k, v in got.items() if k not in ("id", "check")}, reads.take())
            if kind == "follow":  # (the message names the id asked for)
                told[f"{kind} {name}"][0]["message"] = got["message"].replace(cid, "ID")
        assert told[f"{kind} opened"] == told[f"{kind} failed"] == told[f"{kind} never"], kind
    assert told["follow never"][1] == told["verify never"][1] == ["read_check_events"]
    # and the GM, who may see it, is told it as before, from the table's memory
    verified = await gm.request(m.Verify(id="v", check=opened))
    assert verified.found and verified.result is not None and verified.result.choice
    await gm.close()
    await anna.close()
    await bo.close()
