"""A data folder written by an earlier release opens and serves in this one: its tables, keys, snapshot,
request window and hidden state (tests/cli/data/, made by make_ledger_fixture.py with that release)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar.client import Client
from tests.serving import Process, free_port

RELEASES = sorted(p.parent for p in (Path(__file__).parent / "data").glob("*/facts.json"))


def _texts(snapshot: m.Snapshot) -> set[str]:
    return {c.text for scene in snapshot.scenes.values() for c in scene.complications}


@pytest.mark.parametrize("release", RELEASES, ids=lambda p: p.name)
async def test_a_ledger_of_an_earlier_release_opens_and_serves(tmp_path: Path, release: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(release, data)
    facts = json.loads((data / "facts.json").read_text())
    sidecar = Process(data, free_port())
    sidecar.start()
    try:
        keys = sidecar.keys()  # the keys file the release wrote
        gm = await Client.connect(sidecar.url, keys.table, keys.gm, user="gm1")
        head = gm.seq
        assert head >= len(facts["requests"])
        gm_state = (await gm.request(m.State(id="s-gm"))).snapshot
        assert {facts["hidden"], facts["shown"]} <= _texts(gm_state)  # the hidden state, for the GM

        player = await Client.connect(sidecar.url, keys.table, keys.player)
        player_state = (await player.request(m.State(id="s-pl"))).snapshot
        assert facts["shown"] in _texts(player_state) and facts["hidden"] not in _texts(player_state)
        await player.close()

        alice = await Client.connect(sidecar.url, keys.table, facts["user_key_alice"], user="alice")
        seen = alice.seq  # her own numbering: the GM's hidden roll is not in it
        replay = await alice.request(m.Roll(id="a-2", check=FacetsCheck(pool=1, dice=[5]), actor="Bren"))
        assert isinstance(replay, m.Rolled) and replay.seq <= seen  # the window's answer, not a new roll
        verified = await alice.request(m.Verify(id="v", check=facts["public_check"]))
        assert verified.found
        fresh = await alice.request(m.Roll(id="a-new", check=FacetsCheck(pool=1), actor="Bren"))
        assert isinstance(fresh, m.Rolled) and fresh.seq > seen  # and the table goes on
        await alice.close()
        await gm.close()
    finally:
        sidecar.stop()
