"""Who may name a user: user keys, the table-wide player key, acting on behalf, request ids per requester."""

from __future__ import annotations

import json

import pytest
import websockets

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from protocol.v1.flairs import FlairsBargain, FlairsCheck
from sidecar.client import Client, RequestFailed
from tests.cli.running import verdict


async def hello_raw(sidecar, key, user=None):
    """Say hello on a raw socket: (the first reply, the close code or None while open)."""
    ws = await websockets.connect(sidecar.url, subprotocols=["verdict.v1"], compression=None)
    frame = {"type": "hello", "table": sidecar.keys.table, "key": key}
    if user is not None:
        frame["user"] = user
    await ws.send(json.dumps(frame))
    first = json.loads(await ws.recv())
    code = None
    if first["type"] == "error":
        with pytest.raises(websockets.ConnectionClosed) as e:
            await ws.recv()
        code = e.value.rcvd.code
    await ws.close()
    return first, code


async def refused(coro) -> RequestFailed:
    with pytest.raises(RequestFailed) as e:
        await coro
    return e.value


async def test_a_user_key_binds_to_its_user_only(sidecar):
    key = sidecar.user_key("alice")
    first, code = await hello_raw(sidecar, key, "alice")
    assert first["type"] == "welcome" and first["role"] == "player" and code is None
    for user in ("bob", "gm-user", "alice "):  # another user, the GM's id, a near miss
        first, code = await hello_raw(sidecar, key, user)
        assert first == {"type": "error", "code": "unauthorized", "message": first["message"], "id": None}
        assert code == 4401
    first, code = await hello_raw(sidecar, key)  # a user key without its user says nothing either
    assert first["code"] == "unauthorized" and code == 4401


async def test_the_table_wide_player_key_claims_no_user(sidecar):
    first, code = await hello_raw(sidecar, sidecar.keys.player, "gm-user")
    assert first["code"] == "user_key_required" and code == 4401 and "user key" in first["message"]
    p = await Client.connect(sidecar.url, sidecar.keys.table, sidecar.keys.player)
    assert p.welcome.role == "player"
    assert isinstance(await p.request(m.State(id="s")), m.StateReply)
    err = await refused(p.request(m.Roll(id="r", check=FacetsCheck(pool=2))))
    assert err.code == "forbidden" and "user key" in err.error.message
    gm = await sidecar.client("gm")
    r = await gm.request(m.Roll(id="g", check=FlairsCheck(rank=2, dice=[3, 2]), user="alice"))
    err = await refused(p.request(m.Follow(id="f", check=r.check, action=FlairsBargain(trial="loud"))))
    assert err.code == "forbidden"
    assert sidecar.ledger.events(sidecar.keys.table)[-1][0] == r.seq  # nothing was appended
    await p.close()
    await gm.close()


async def test_only_the_gm_acts_on_behalf_of_a_user(sidecar):
    gm = await sidecar.client("gm")
    alice = await sidecar.client("player", user="alice")
    bob = await sidecar.client("player", user="bob")
    obs = await sidecar.client("observer")
    on_behalf = await gm.request(m.Roll(id="g1", check=FlairsCheck(rank=2, dice=[3, 2]), user="alice", mode="gm"))
    assert on_behalf.user == "alice"
    # bob names alice: refused, never silently taken as bob's own
    err = await refused(bob.request(m.Roll(id="b1", check=FacetsCheck(pool=2), user="alice")))
    assert err.code == "forbidden" and "on behalf" in err.error.message
    err = await refused(
        bob.request(m.Follow(id="b2", check=on_behalf.check, action=FlairsBargain(trial="loud"), user="alice"))
    )
    assert err.code == "forbidden"
    err = await refused(alice.request(m.Roll(id="a0", check=FacetsCheck(pool=2), user="alice")))
    assert err.code == "forbidden"  # even naming oneself: `user` is the GM's field
    assert (
        await refused(bob.request(m.Follow(id="b3", check=on_behalf.check, action=FlairsBargain(trial="loud"))))
    ).code == "unknown_check"  # alice's gm roll does not exist for bob: the answer to a missing check
    assert (await refused(obs.request(m.Roll(id="o1", check=FacetsCheck(pool=2))))).code == "forbidden"
    # the roller follows up; the GM may too, on the roller's behalf
    f = await alice.request(m.Follow(id="a1", check=on_behalf.check, action=FlairsBargain(trial="loud", dice=[6])))
    assert f.result.bargain == "loud"
    for c in (gm, alice, bob, obs):
        await c.close()


async def test_user_key_request_is_the_gms(sidecar):
    gm = await sidecar.client("gm")
    reply = await gm.request(m.UserKey(id="k1", user="carol"))
    assert reply == m.UserKeyReply(id="k1", user="carol", key=sidecar.user_key("carol"))
    carol = await Client.connect(sidecar.url, sidecar.keys.table, reply.key, user="carol")
    assert carol.welcome.role == "player"
    assert (await refused(carol.request(m.UserKey(id="k2", user="carol")))).code == "forbidden"
    obs = await sidecar.client("observer")
    assert (await refused(obs.request(m.UserKey(id="k3", user="carol")))).code == "forbidden"
    assert (await refused(gm.request(m.UserKey(id="k4", user="")))).code == "invalid_message"
    for c in (gm, carol, obs):
        await c.close()


def test_cli_user_key_and_rotation(tmp_path):
    def cli(*args):
        return verdict("table", "--data", str(tmp_path), *args)

    created = json.loads(cli("create", "t", "--json").stdout)
    a = cli("user-key", created["table"], "alice")
    assert a.returncode == 0 and a.stdout.strip().startswith("u")
    assert cli("user-key", created["table"], "alice").stdout == a.stdout  # derived, the same every time
    assert cli("user-key", created["table"], "bob").stdout != a.stdout
    missing = cli("user-key", "nope", "alice")
    assert missing.returncode == 2 and "no table 'nope'" in missing.stderr
    assert cli("rotate-keys", created["table"]).returncode == 0
    assert cli("user-key", created["table"], "alice").stdout != a.stdout  # rotation invalidates user keys


async def test_rotation_refuses_old_user_keys(sidecar):
    old = sidecar.user_key("alice")
    sidecar.ledger.rotate_keys(sidecar.keys.table)
    first, code = await hello_raw(sidecar, old, "alice")
    assert first["code"] == "unauthorized" and code == 4401
    first, _ = await hello_raw(sidecar, sidecar.user_key("alice"), "alice")
    assert first["type"] == "welcome"


async def test_request_ids_are_per_requester(sidecar):
    alice = await sidecar.client("player", user="alice")
    bob = await sidecar.client("player", user="bob")
    mine = await alice.request(m.Roll(id="same", check=FacetsCheck(pool=3), mode="self"))
    theirs = await bob.request(m.Roll(id="same", check=FacetsCheck(pool=3, dice=[1, 1, 1])))
    assert theirs.user == "bob" and theirs.check != mine.check and theirs.result.dice == [1, 1, 1]
    # the same requester on a new socket (a reconnect) gets its first reply back, and nothing rolls twice
    again = await sidecar.client("player", user="alice")
    assert await again.request(m.Roll(id="same", check=FacetsCheck(pool=3))) == mine
    gm1, gm2 = await sidecar.client("gm", user="gm-a"), await sidecar.client("gm", user="gm-b")
    g1 = await gm1.request(m.Roll(id="same", check=FacetsCheck(pool=1)))
    g2 = await gm2.request(m.Roll(id="same", check=FacetsCheck(pool=1)))
    assert g1.check != g2.check
    assert len(sidecar.ledger.events(sidecar.keys.table)) == 4
    for c in (alice, bob, again, gm1, gm2):
        await c.close()


async def test_a_hello_with_a_wrong_key_makes_the_sidecar_read_no_table(sidecar):
    """Reading a table (its whole history) is work a peer gets only with a key for it."""
    from sidecar.server.app import HUB

    hub = sidecar.server.app[HUB]
    assert sidecar.keys.table not in hub.tables
    first, code = await hello_raw(sidecar, "not-the-key")
    assert first["code"] == "unauthorized" and code == 4401
    assert sidecar.keys.table not in hub.tables
    first, code = await hello_raw(sidecar, sidecar.keys.gm)
    assert first["type"] == "welcome" and sidecar.keys.table in hub.tables


@pytest.mark.slow
def test_a_gm_without_a_user_is_one_requester_across_sockets_and_kill_9(tmp_path):
    """A GM whose hello names no user (the CLI, a script) retries on another socket, and after a crash."""
    import asyncio
    import signal

    from protocol.v1.table import RollEvent
    from sidecar.state.ledger import SqliteLedger
    from sidecar.state.table import _dec
    from tests.serving import Process, free_port

    server = Process(tmp_path / "data", free_port())
    server.start()
    ids = [f"gm-retry-{i}" for i in range(20)]

    async def first_replies():
        keys = server.keys()
        a = await Client.connect(server.url, keys.table, keys.gm)
        b = await Client.connect(server.url, keys.table, keys.gm)
        replies = {}
        for rid in ids:
            replies[rid] = await a.request(m.Roll(id=rid, check=FacetsCheck(pool=3), mode="self"))
            # the same id on another socket of the same key: its first reply, not a second roll
            assert await b.request(m.Roll(id=rid, check=FacetsCheck(pool=3), mode="self")) == replies[rid]
        await a.close()
        await b.close()
        return replies

    async def resent():
        keys = server.keys()
        c = await Client.connect(server.url, keys.table, keys.gm)
        got = {rid: await c.request(m.Roll(id=rid, check=FacetsCheck(pool=3), mode="self")) for rid in ids}
        await c.close()
        return got

    try:
        replies = asyncio.run(first_replies())
        server.stop(signal.SIGKILL)
        server.start()
        again = asyncio.run(resent())
    finally:
        server.stop()
    assert again == replies  # answered with the first reply, after a kill -9 and a restart
    ledger = SqliteLedger(server.data / "verdict.sqlite3")
    rolls = [e for _, data in ledger.events(server.keys().table) if isinstance(e := _dec.decode(data).event, RollEvent)]
    ledger.close()
    assert len(rolls) == len(ids)  # each id rolled once
    assert len({r.user for r in rolls}) == 1  # one requester, whose self rolls come back to it
