"""A seventh rule set with table state of its own, added as a package of its own, end to end: `fortune`
(tests/added_ruleset/site/verdict_fortune): each actor's fortune points, granted by the GM, spent by a roll.

Nothing of the core changes for it: a `verdict serve` with the package on its path folds, tells, hides, undoes
and keeps the points across a restart. Every frame is read raw off a real websocket (this process keeps the
five shipped rule sets, so no client of it could decode fortune's Structs), per role: the GM, the roller, another
player and an observer.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import websockets

from protocol.v1.systems import SYSTEMS
from tests.serving import Process, free_port

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "tests" / "added_ruleset" / "site"


def _pythonpath() -> str:
    return os.pathsep.join([str(SITE), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)


class Raw:
    """A websocket speaking JSON frames, every frame it was sent kept in order."""

    def __init__(self, ws: Any) -> None:
        self.ws, self.frames, self._n = ws, [], 0

    @classmethod
    async def hello(cls, url: str, table: str, key: str, user: str | None = None) -> tuple[Raw, dict[str, Any]]:
        ws = await websockets.connect(url, subprotocols=["verdict.v1"], compression=None)
        raw = cls(ws)
        hello: dict[str, Any] = {"type": "hello", "table": table, "key": key, "client": "test"}
        if user is not None:
            hello["user"] = user
        await ws.send(json.dumps(hello))
        welcome = await raw.next()
        assert welcome["type"] == "welcome", welcome
        return raw, welcome

    async def next(self, timeout: float = 10.0) -> dict[str, Any]:
        frame = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        self.frames.append(frame)
        return frame

    async def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send ``msg`` with a fresh id and the reply that echoes it (frames before it are kept)."""
        self._n += 1
        rid = f"r{self._n}"
        await self.ws.send(json.dumps({**msg, "id": rid}))
        while True:
            frame = await self.next()
            if frame.get("id") == rid:
                return frame

    async def state(self) -> dict[str, Any]:
        snap: dict[str, Any] = (await self.request({"type": "state"}))["snapshot"]
        return snap

    async def quiet(self, ping: str = "quiet") -> list[dict[str, Any]]:
        """The frames sent before a ping's answer: what this socket was told of everything done before it."""
        start = len(self.frames)
        await self.request({"type": "ping"})
        return self.frames[start:-1]

    async def close(self) -> None:
        await self.ws.close()


def _fortune(snap: dict[str, Any], actor: str) -> int:
    got: int = snap["actors"].get(actor, {}).get("fortune", 0)
    return got


def _kinds(frames: list[dict[str, Any]]) -> list[str]:
    """The kinds of the events the frames carry (an ``event`` frame's, and those inside a ``rolled`` or ``done``)."""
    out = []
    for f in frames:
        if f["type"] == "event":
            out.append(f["event"]["kind"])
        out += [e["event"]["kind"] for e in f.get("events") or []]
    return out


def test_without_the_package_the_shipped_rule_sets_only() -> None:
    assert "fortune" not in SYSTEMS


def test_its_check_and_odds_say_what_it_spends() -> None:
    env = {**os.environ, "PYTHONPATH": _pythonpath()}

    def cli(*args: str) -> Any:
        out = subprocess.run(
            [sys.executable, "-m", "sidecar.cli", *args, "--json"], env=env, cwd=ROOT, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    assert cli("read", "fortune", "--pool", "1", "--spend", "1", "--dice", "6,2") == {
        "system": "fortune",
        "outcome": "success",
        "dice": [6, 2],
        "successes": 1,
        "spent": 1,
    }
    odds = cli("odds", "fortune", "--pool", "1", "--spend", "1")
    assert odds["spend"] == 1
    assert [(c["value"], c["chance"]["num"], c["chance"]["den"]) for c in odds["outcome"]] == [
        ("success", 5, 9),
        ("failure", 4, 9),
    ]


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PYTHONPATH", _pythonpath())
    server = Process(tmp_path, free_port())
    server.start()
    try:
        yield server
    finally:
        if server.proc is not None:
            server.stop()


TOLD = ("event", "rolled", "followed", "done")


async def _told(c: Raw, mark: int) -> list[dict[str, Any]]:
    """What ``c`` was told of the table's actions since its frame ``mark`` (after a ping: all of it)."""
    await c.quiet()
    return [f for f in c.frames[mark:] if f["type"] in TOLD]


async def test_granted_spent_hidden_undone_and_kept(served: Process) -> None:
    keys = served.keys()
    alice_key, bob_key = served.user_key("alice"), served.user_key("bob")
    url = served.url
    gm, _ = await Raw.hello(url, keys.table, keys.gm, user="gm")
    alice, _ = await Raw.hello(url, keys.table, alice_key, user="alice")
    bob, _ = await Raw.hello(url, keys.table, bob_key, user="bob")
    watcher, _ = await Raw.hello(url, keys.table, keys.observer)
    everyone = (gm, alice, bob, watcher)

    def marks() -> list[int]:
        return [len(c.frames) for c in everyone]

    async def fortunes() -> list[int]:
        return [_fortune(await c.state(), "Ayla") for c in everyone]

    def fortune_roll(spend: int, dice: list[int], **kw: Any) -> dict[str, Any]:
        return {"type": "roll", "check": {"system": "fortune", "pool": 1, "spend": spend, "dice": dice}, **kw}

    # the GM grants: everyone hears it, everyone's snapshot holds it on the actor
    at = marks()
    done = await gm.request({"type": "gm", "op": {"op": "fortune_grant", "actor": "Ayla", "amount": 2}})
    assert done["type"] == "done"
    assert [e["event"] for e in done["events"]] == [
        {"kind": "fortune_changed", "actor": "Ayla", "delta": 2, "cause": 1}
    ]
    for c, mark in zip(everyone[1:], at[1:]):
        assert [f["event"] for f in await _told(c, mark)] == [
            {"kind": "fortune_changed", "actor": "Ayla", "delta": 2, "cause": 1}
        ]
    assert await fortunes() == [2, 2, 2, 2]

    # a roll spending more than the actor holds is refused, nothing applied; one naming no actor, and a grant
    # past the bound, too
    at = marks()
    refused = await alice.request(fortune_roll(3, [6, 6, 6, 6], actor="Ayla"))
    assert (refused["type"], refused["code"]) == ("error", "over_limit") and "fortune points" in refused["message"]
    refused = await alice.request(fortune_roll(1, [6, 6]))
    assert (refused["type"], refused["code"]) == ("error", "actor_required")
    refused = await gm.request({"type": "gm", "op": {"op": "fortune_grant", "actor": "Ayla", "amount": 19}})
    assert (refused["type"], refused["code"]) == ("error", "over_limit")
    for c, mark in zip(everyone, at):
        assert await _told(c, mark) == []
        assert (await c.state())["seq"] == 1
    assert await fortunes() == [2, 2, 2, 2]

    # a public roll spends one (a die more), heard by everyone with the roll
    at = marks()
    rolled = await alice.request(fortune_roll(1, [2, 5], actor="Ayla"))
    assert rolled["type"] == "rolled" and rolled["result"]["dice"] == [2, 5] and rolled["result"]["spent"] == 1
    assert [e["event"] for e in rolled["events"]] == [
        {"kind": "fortune_changed", "actor": "Ayla", "delta": -1, "cause": 2}
    ]
    for c, mark in zip(everyone, at):
        told = await _told(c, mark)
        assert [f["type"] for f in told] == ["rolled"] and _kinds(told) == ["fortune_changed"]
    assert await fortunes() == [1, 1, 1, 1]

    # a blind roll's spend is heard only as the roll is: by the GM; its roller hears that it happened
    at = marks()
    rolled = await alice.request(fortune_roll(1, [6, 6], actor="Ayla", mode="blind"))
    assert rolled["type"] == "rolled" and rolled["result"] is None and rolled["events"] == []
    told = await _told(gm, at[0])
    assert [f["type"] for f in told] == ["rolled"] and _kinds(told) == ["fortune_changed"]
    assert await _told(bob, at[2]) == [] and await _told(watcher, at[3]) == []
    assert await fortunes() == [0, 1, 1, 1]

    # a GM-only roll's: by its roller and the GM, nobody else
    await gm.request({"type": "gm", "op": {"op": "fortune_grant", "actor": "Ayla", "amount": 1}})
    for c in everyone:
        await c.quiet()  # each told of the grant before the roll
    at = marks()
    rolled = await alice.request(fortune_roll(1, [1, 1], actor="Ayla", mode="gm"))
    assert rolled["result"]["outcome"] == "failure" and _kinds([rolled]) == ["fortune_changed"]
    assert _kinds(await _told(gm, at[0])) == ["fortune_changed"]
    assert await _told(bob, at[2]) == [] and await _told(watcher, at[3]) == []
    assert await fortunes() == [0, 1, 2, 2]

    # undo gives the GM-only roll's point back, told to those who heard it spent
    at = marks()
    done = await gm.request({"type": "gm", "op": {"op": "undo", "count": 1}})
    assert done["type"] == "done" and _kinds([done]) == ["undone"]
    assert _kinds(await _told(alice, at[1])) == ["undone"]
    assert await _told(bob, at[2]) == [] and await _told(watcher, at[3]) == []
    assert await fortunes() == [1, 2, 2, 2]

    # on the raw frames, nobody but the GM and the roller ever read a hidden roll's spend
    for c in (bob, watcher):
        assert json.dumps(c.frames).count('"fortune_changed"') == 3  # the two grants, the public roll's spend
    for c in everyone:
        await c.close()

    # a restart keeps it: read back from the ledger
    served.stop()
    served.start()
    gm, welcome = await Raw.hello(url, keys.table, keys.gm, user="gm")
    assert _fortune(welcome["snapshot"], "Ayla") == 1
    alice, welcome = await Raw.hello(url, keys.table, alice_key, user="alice")
    assert _fortune(welcome["snapshot"], "Ayla") == 2
    # what the table holds decides a spend: the blind roll's point is spent
    refused = await alice.request(fortune_roll(2, [6, 6, 6], actor="Ayla"))
    assert (refused["type"], refused["code"]) == ("error", "over_limit")
    rolled = await alice.request(fortune_roll(1, [6, 6], actor="Ayla"))
    assert rolled["type"] == "rolled" and _fortune(await gm.state(), "Ayla") == 0
    await gm.close()
    await alice.close()

    # the table's recap tells its events in its own words, each reader what they saw
    def recap(audience: str) -> list[str]:
        out = subprocess.run(
            [sys.executable, "-m", "sidecar.cli", "table", "--data", str(served.data), "export", keys.table]
            + ["--for", audience],
            env={**os.environ, "PYTHONPATH": _pythonpath()},
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert out.returncode == 0, out.stderr
        return [line.split("** ", 1)[1] for line in out.stdout.splitlines() if "fortune points" in line]

    assert recap("players") == [
        "Ayla: +2 fortune points",
        "Ayla: -1 fortune points",
        "Ayla: +1 fortune points",
        "Ayla: -1 fortune points",
    ]
    gm_recap = recap("gm")
    assert len(gm_recap) == 6 and sum("(undone)" in line for line in gm_recap) == 1
