"""The players' view a GM's snapshot carries (``public``): what the GM's client writes into the world every
player loads (token statuses, actor flags). After a public wound, a GM-only and a blind catastrophe (a wound, a
condition, a facet each), it is exactly what the table-wide player key's snapshot says of the actors, never the
GM's own, and not one byte of it names what a hidden roll brought; no other viewer's snapshot carries it."""

from __future__ import annotations

import json

import msgspec

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck

from .conftest import Raw, barrier

WOUNDED = FacetsCheck(pool=1, kind="opposition", dice=[3])  # a failure: a wound
CATASTROPHE = FacetsCheck(pool=2, kind="opposition", dice=[1, 1])  # a wound, a condition, a facet


async def _hidden_rolls(sidecar, gm) -> None:
    await gm.request(m.Roll(id="open", check=WOUNDED, actor="Ayla"))
    await gm.request(m.Roll(id="gm-only", check=CATASTROPHE, mode="gm", user="alice", actor="Ayla"))
    await gm.request(m.Roll(id="blind", check=CATASTROPHE, mode="blind", user="bob", actor="Bree"))


def _hidden_parts(gm_actors: dict, public_actors: dict) -> list[bytes]:
    """What the GM's view holds of each actor that the players' does not: the hidden rolls' conditions and facets."""
    out = []
    for name, actor in gm_actors.items():
        shown = public_actors.get(name, {})
        for part in ("conditions", "facets"):
            seen = {json.dumps(x, sort_keys=True) for x in shown.get(part, [])}
            out += [x["id"].encode() for x in actor.get(part, []) if json.dumps(x, sort_keys=True) not in seen]
    return out


async def _check(gm_snap: dict, players: dict) -> None:
    public = gm_snap["public"]
    assert public == {"actors": players["actors"]}
    # the GM's view differs (the hidden rolls changed it) and the players' view holds none of that
    assert gm_snap["actors"]["Ayla"]["wounds"] == 2 and len(gm_snap["actors"]["Ayla"]["conditions"]) == 1
    assert public["actors"]["Ayla"]["wounds"] == 1 and not public["actors"]["Ayla"]["conditions"]
    assert not public["actors"].get("Bree", {}).get("conditions")
    hidden = _hidden_parts(gm_snap["actors"], public["actors"])
    assert len(hidden) >= 2
    blob = json.dumps(public).encode()
    for part in hidden:
        assert part not in blob


async def test_a_gm_welcome_carries_the_players_view_and_nothing_hidden(sidecar):
    k = sidecar.keys
    gm = await sidecar.client("gm", user="gm-user")
    await _hidden_rolls(sidecar, gm)
    players = await Raw.join(sidecar, k.player)
    alice = await Raw.join(sidecar, sidecar.user_key("alice"), "alice")
    obs = await Raw.join(sidecar, k.observer, msgpack=True)
    gm_raw = await Raw.join(sidecar, k.gm, "gm-2")
    gm_pack = await Raw.join(sidecar, k.gm, "gm-3", msgpack=True)
    await barrier(gm, [players, alice, obs, gm_raw, gm_pack])
    welcome = gm_raw.decoded()[0]
    assert welcome["type"] == "welcome"
    await _check(welcome["snapshot"], players.decoded()[0]["snapshot"])
    assert gm_pack.decoded()[0]["snapshot"]["public"] == welcome["snapshot"]["public"]
    # a player's own view (alice rolled the GM-only catastrophe) is hers, and no non-GM snapshot has a `public`
    assert len(alice.decoded()[0]["snapshot"]["actors"]["Ayla"]["conditions"]) == 1
    for sock in (players, alice, obs):
        assert "public" not in sock.decoded()[0]["snapshot"]
    for sock in (players, alice, obs, gm_raw, gm_pack):
        await sock.close()
    await gm.close()


async def _state(sock: Raw, rid: str) -> dict:
    await sock.ws.send(msgspec.json.encode(m.State(id=rid)).decode())
    return (await sock.wait(lambda f: f.get("id") == rid))["snapshot"]


async def test_a_gm_state_reply_keeps_the_players_view_current(sidecar):
    k = sidecar.keys
    gm = await sidecar.client("gm", user="gm-user")
    gm_raw = await Raw.join(sidecar, k.gm, "gm-2")
    players = await Raw.join(sidecar, k.player)
    alice = await Raw.join(sidecar, sidecar.user_key("alice"), "alice")
    await _hidden_rolls(sidecar, gm)
    await barrier(gm, [gm_raw, players, alice])
    await _check(await _state(gm_raw, "s1"), await _state(players, "p1"))
    for sock, rid in ((players, "p2"), (alice, "a2")):
        assert "public" not in await _state(sock, rid)
    # a public change shows at once
    await gm.request(m.Roll(id="open-2", check=WOUNDED, actor="Bree"))
    after = await _state(gm_raw, "s2")
    assert after["public"] == {"actors": (await _state(players, "p3"))["actors"]}
    assert after["public"]["actors"]["Bree"]["wounds"] == 1 and after["actors"]["Bree"]["wounds"] == 2
    for sock in (gm_raw, players, alice):
        await sock.close()
    await gm.close()
