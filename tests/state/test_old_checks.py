"""A long campaign's table holds the checks still open to follow-ups, not every check it ever rolled: a check
its rule set closes leaves the table's state (its events stay in the ledger), and so does the oldest open one
beyond ``CHECKS_HELD`` (the last ``CHECKS_LATEST`` rolled are held either way). Whoever names an old check (``verify``, a follow-up, its card drawn again) is
answered exactly as while the table held it, hidden ones alike ``unknown_check`` to those who may not see
them, read back from the ledger without blocking the loop.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.challenge import ChallengeCheck, ChallengeChoice, ChallengeRemoveComplication
from protocol.v1.facets import FacetsCheck
from sidecar import config
from sidecar.client import Client, RequestFailed
from sidecar.server.app import HUB
from sidecar.state import table as table_module
from sidecar.state.ledger import SqliteLedger
from sidecar.state.table import Table
from sidecar.state.visibility import Viewer

from ..conftest import Sidecar

GM, ANNA, BO = Viewer("gm", "gm"), Viewer("player", "anna"), Viewer("player", "bo")
CHOICE = ChallengeCheck(cl=1, modifier=0, dice=[11])
"""Beats the Challenge Level by 2: the roller's choice is open until made."""


def _act(table: Table, pending: table_module.Pending) -> table_module.Pending:
    table.ledger.append_sync(table.id, pending.encoded(), None)
    table.commit(pending)
    return pending


def _roll(table: Table, viewer: Viewer, check: object, mode: str = "public") -> str:
    msg = m.Roll(id="x", check=check, actor="Ayla", mode=mode, label="a label")  # type: ignore[arg-type]
    check_id = _act(table, table.prepare_roll(msg, viewer, viewer.user)).check_id
    assert check_id is not None
    return check_id


def _campaign(table: Table, n: int, secret: bool) -> None:
    """``n`` checks, every one closed: facets (no follow-ups), a challenge whose choice was made, a challenge
    with nothing to follow; in the open, or (``secret``) a third of them `gm`, `blind` or `self` rolls."""
    modes = ["gm", "blind", "self", "public"] if secret else ["public"]
    for i in range(n):
        mode = modes[i % len(modes)]
        if i % 3 == 0:
            _roll(table, ANNA, FacetsCheck(pool=2, dice=[1 + i % 6, 2]), mode)
        elif i % 3 == 1 and mode != "self":
            cid = _roll(table, ANNA, CHOICE, mode)
            follow = m.Follow(id="f", check=cid, action=ChallengeChoice(option="strain"))
            by = GM if mode == "blind" else ANNA  # a blind roll's follow-ups are the GM's to make
            _act(table, table.prepare_follow(follow, by, by.user))
        else:
            _roll(table, BO, ChallengeCheck(cl=2, modifier=0, dice=[7]), mode)  # at a cost: nothing to follow


def _held(table: Table) -> dict[str, int]:
    """What the table holds per check, counted."""
    return {
        "checks": len(table.state.checks),
        "roll seqs": len(table.roll_seq),
        "views' checks": sum(len(view.checks) for view in table.views.values()),
        "read back": len(table._old),
        "recent events": len(table.recent),
    }


@pytest.mark.parametrize("secret", [False, True])
def test_the_state_held_does_not_grow_with_old_closed_checks(tmp_path, secret):
    held, sizes = [], []
    for n in (300, 3_000):
        ledger = SqliteLedger(tmp_path / f"{n}.sqlite3", synchronous="OFF")
        table = Table(ledger.create_table("t").table, ledger)
        table.load()
        for viewer in (ANNA, BO, Viewer("player", None)):
            table.snapshot(viewer)  # the players' views held, as at a table with players
        _campaign(table, n, secret)
        held.append(_held(table))
        sizes.append(len(table.saved()))
        # and a table read back from its snapshot holds the same
        again = Table(table.id, ledger)
        again.restore(table.saved(), [])
        assert _held(again) == {**held[-1], "recent events": 0, "read back": 0}
        ledger.close()
    for counted in held:  # bounded caches: the checks last read back (or just closed), the recent events
        assert counted.pop("read back") <= config.OLD_CHECKS_KEPT
        assert counted.pop("recent events") <= 2 * table_module.RECENT_KEPT
    latest = held[0]["checks"]  # the last checks rolled, the cards just drawn: held a while, then let go
    assert latest <= config.CHECKS_LATEST
    assert held[0] == held[1] == {"checks": latest, "roll seqs": latest, "views' checks": 0}
    # the snapshot: the same size in the open; with secrets, the numbering's compressed seqs (about half a byte
    # for each secret event a viewer does not see; it was about 700 bytes an event while every check stayed)
    grown = (sizes[1] - sizes[0]) / 2_700
    assert grown < (32 if secret else 0.1), f"{grown:.1f} bytes a check"


def test_open_checks_beyond_the_window_leave_and_are_followed_up_as_before(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "CHECKS_HELD", 10)
    monkeypatch.setattr(config, "CHECKS_LATEST", 0)
    ledger = SqliteLedger(tmp_path / "v.sqlite3")
    table = Table(ledger.create_table("t").table, ledger)
    table.load()
    first = _roll(table, ANNA, CHOICE)
    for _ in range(40):
        _roll(table, BO, CHOICE)
    assert len(table.state.checks) == 10 and first not in table.state.checks
    verified = table.verify(m.Verify(id="v", check=first), ANNA)
    assert verified.found and [o.action for o in verified.open] == ["challenge_choice"]
    follow = m.Follow(id="f", check=first, action=ChallengeChoice(option="game_changer"))
    done = _act(table, table.prepare_follow(follow, ANNA, "anna"))
    assert done.result.chosen == "game_changer"
    with pytest.raises(table_module.ActionError) as refused:
        table.prepare_follow(follow, ANNA, "anna")
    assert refused.value.code == "choice_already_made"
    # the GM undoes the choice: the check is open again, as it was
    _act(table, table.prepare_op(t.Undo(count=1)))
    assert [o.action for o in table.verify(m.Verify(id="v", check=first), ANNA).open] == ["challenge_choice"]
    ledger.close()


async def _answers(
    sidecar: Sidecar, clients: dict[str, Client], checks: dict[str, str]
) -> list[tuple[str, str, object]]:
    """What each viewer is told of each check: ``verify``, and a follow-up it may not make (a refusal)."""
    out: list[tuple[str, str, object]] = []
    for who, c in clients.items():
        for name, cid in checks.items():
            verified = await c.request(m.Verify(id="v", check=cid))
            out.append((who, name, verified))
            if who == "observer":
                continue
            actions: list[object] = [ChallengeRemoveComplication(complication="k-none")]  # refused to all
            if who != ("gm" if name in ("gm's", "blind choice") else "anna"):
                actions.append(ChallengeChoice(option="strain"))  # the roller's alone
            for action in actions:
                try:
                    await c.request(m.Follow(id=c.new_id(), check=cid, action=action))  # type: ignore[arg-type]
                except RequestFailed as e:
                    out.append((who, name, (e.code, e.message)))
                else:
                    raise AssertionError(f"{who}'s {action} on {name} was accepted")
    return out


async def test_old_checks_answer_every_viewer_as_while_they_were_held(
    sidecar: Sidecar, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table_module, "RECENT_KEPT", 4)
    monkeypatch.setattr(config, "CHECKS_HELD", 4)
    monkeypatch.setattr(config, "CHECKS_LATEST", 0)  # only the open ones held
    clients = {
        "gm": await sidecar.client("gm", user="gm"),
        "anna": await sidecar.client("player", user="anna"),
        "bo": await sidecar.client("player", user="bo"),
        "observer": await sidecar.client("observer"),
    }
    anna, gm = clients["anna"], clients["gm"]
    await gm.request(m.Gm(id="scene", op=t.SceneActivate(scene="Hall")))
    checks = {
        f"{mode} choice": (await anna.request(m.Roll(id=f"c-{mode}", check=CHOICE, mode=mode, label=mode))).check
        for mode in ("public", "gm", "blind")
    }
    for mode in ("public", "gm", "blind", "self"):
        roll = m.Roll(id=f"f-{mode}", check=FacetsCheck(pool=1, dice=[5]), mode=mode, label=f"facets {mode}")
        checks[f"{mode} facets"] = (await anna.request(roll)).check
    # the GM's own choice, still open to the GM: anna may not make it
    checks["gm's"] = (await gm.request(m.Roll(id="g", check=CHOICE, mode="gm"))).check
    checks["none"] = f"{sidecar.keys.table}-0123456789abcdef"  # a check that never was
    table = sidecar.server.app[HUB].tables[sidecar.keys.table].table  # type: ignore[union-attr]
    held = [name for name, cid in checks.items() if cid in table.state.checks]
    assert sorted(held) == ["blind choice", "gm choice", "gm's", "public choice"]

    before = await _answers(sidecar, clients, checks)
    for i in range(12):  # newer open checks push them out, and the recent window moves past them
        await gm.request(m.Roll(id=f"later-{i}", check=CHOICE))
    assert not any(cid in table.state.checks for cid in checks.values())
    assert all(table.recent[0][0] > table.check(cid).seq for name, cid in checks.items() if name != "none")
    table._old.clear()  # nothing read back yet: every answer below reads the ledger
    reads = table.blocking_reads  # (the line above read blocking, as a tool does)
    after = await _answers(sidecar, clients, checks)
    assert after == before
    # a hidden check is, to an outsider, exactly a check that never was
    refusals: dict[str, list[object]] = {}
    for who, name, answer in after:
        if who == "bo" and isinstance(answer, tuple):  # (the message names the asker's own id)
            refusals.setdefault(name, []).append((answer[0], answer[1].replace(checks[name], "ID")))
    assert refusals["gm choice"] == refusals["blind choice"] == refusals["self facets"] == refusals["none"]
    assert refusals["none"][0][0] == "unknown_check" and refusals["public choice"][1][0] == "not_your_check"
    told = {(who, name): answer for who, name, answer in after if isinstance(answer, m.Verified)}
    assert not told["bo", "gm choice"].found and told["anna", "blind choice"].label == "blind"
    assert told["anna", "blind choice"].result is None and told["gm", "blind choice"].result is not None

    # the roller's choice on her old public check is made as it was, once
    chosen = await anna.request(
        m.Follow(id="ch", check=checks["public choice"], action=ChallengeChoice(option="strain"))
    )
    assert chosen.result.chosen == "strain" and chosen.open == []
    with pytest.raises(RequestFailed) as e:
        await anna.request(m.Follow(id="ch2", check=checks["public choice"], action=ChallengeChoice(option="strain")))
    assert e.value.code == "choice_already_made"
    assert (await clients["bo"].request(m.Verify(id="v", check=checks["public choice"]))).result.chosen == "strain"
    assert table.blocking_reads == reads  # serving, none
    for c in clients.values():
        await c.close()


def test_a_ledger_from_before_the_check_index_is_indexed_when_opened(tmp_path: Path) -> None:
    """An old check is one index lookup, in a ledger written before the index too: opening it indexes what
    it holds, once, and every check reads back the events it did before."""
    path = tmp_path / "old.sqlite3"
    ledger = SqliteLedger(path)
    keys = ledger.create_table("campaign")
    table = Table(keys.table, ledger)
    ids = [_roll(table, GM, FacetsCheck(pool=3), mode) for mode in ("public", "gm", "blind", "self") * 5]
    before = {cid: ledger.check_events(keys.table, cid) for cid in ids}
    assert all(before.values())
    ledger.close()
    db = sqlite3.connect(path)
    db.execute("DROP TABLE check_events")  # as a ledger written before the index was
    db.commit()
    db.close()
    reopened = SqliteLedger(path)
    assert {cid: reopened.check_events(keys.table, cid) for cid in ids} == before
    reopened.close()
