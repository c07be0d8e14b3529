"""The markdown recap is written for an audience: the players' (the default, to share) holds nothing of a gm,
blind or self roll (not even a gap in its numbers), the GM's marks the gm and blind ones with who saw them and,
as no GM socket hears a self roll (its roller's private test), holds nothing of one either."""

from __future__ import annotations

import re

from protocol.v1 import challenge as challenge_t
from protocol.v1 import flairs as flairs_t
from protocol.v1 import messages as m
from protocol.v1.challenge import ChallengeCheck
from protocol.v1.facets import FacetsCheck
from protocol.v1.flairs import FlairsCheck
from sidecar.cli import main


async def test_the_players_recap_omits_what_they_did_not_see_and_the_gms_marks_it(sidecar, tmp_path, capsys):
    gm = await sidecar.client("gm", user="gm-user")
    alice = await sidecar.client("player", user="alice")
    await gm.request(m.Roll(id="p", check=FacetsCheck(pool=1, dice=[3]), actor="Open", label="In the open"))
    secret = {}
    for mode in ("gm", "blind", "self"):
        r = await alice.request(
            m.Roll(id=mode, check=ChallengeCheck(cl=2, dice=[1]), actor=f"Hid{mode}", mode=mode, label=f"L-{mode}")
        )
        secret[mode] = r.check
    await gm.request(m.Gm(id="k", op=challenge_t.ComplicationAdd(scene="S", text="the secret door", hidden=True)))
    await gm.request(m.Gm(id="lk", op=flairs_t.LurkingSet(trials=["loud", "slow"], scene="S")))
    await gm.request(m.Roll(id="p2", check=FlairsCheck(rank=1, dice=[4]), actor="Open", label="Later", scene="S"))
    await gm.close()
    await alice.close()
    table = sidecar.keys.table
    capsys.readouterr()  # what the sidecar logged

    assert main(["table", "--data", str(tmp_path), "export", table]) == 0
    players = capsys.readouterr().out
    assert main(["table", "--data", str(tmp_path), "export", table, "--for", "players"]) == 0
    assert capsys.readouterr().out == players  # the players' recap is the default
    for mode, check in secret.items():
        assert check not in players and f"L-{mode}" not in players and f"Hid{mode}" not in players
    assert "the secret door" not in players and "loud" not in players and "slow" not in players
    assert "In the open" in players and "Later" in players
    numbers = [int(n) for n in re.findall(r"\*\*#(\d+)\*\*", players)]
    assert numbers == sorted(numbers) and numbers[0] == 1
    assert not re.search(r"blind|self roll|gm roll|GM only", players)

    assert main(["table", "--data", str(tmp_path), "export", table, "--for", "gm"]) == 0
    gms = capsys.readouterr().out
    for mode in ("gm", "blind"):
        (line,) = [x for x in gms.splitlines() if f"L-{mode}" in x]
        assert f"*({mode} roll:" in line, line
    assert secret["self"] not in gms and "L-self" not in gms and "Hidself" not in gms
    gm_numbers = [int(n) for n in re.findall(r"\*\*#(\d+)\*\*", gms)]
    assert gm_numbers == list(range(1, len(gm_numbers) + 1))  # the GM's own numbering: no gap for the self roll
    (door,) = [x for x in gms.splitlines() if "the secret door" in x]
    assert "*(GM only)*" in door
    assert "GM and roller only" in gms
