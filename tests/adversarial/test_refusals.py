"""One answer for another's hidden check and for a check that does not exist: a follow-up (the roller's kind
or the GM's kind) and ``verify`` say the same of both, byte for byte but for the id the asker sent."""

from __future__ import annotations

import json

import pytest

from protocol.v1 import messages as m
from protocol.v1.challenge import ChallengeCheck, ChallengeChoice, ChallengeRemoveComplication
from protocol.v1.flairs import FlairsBargain, FlairsCheck

from .conftest import Raw

MISSING = "no-such-check-0000"


async def _answers(raw: Raw, check: str, tag: str) -> list[str]:
    """What ``raw`` is answered for each request naming ``check``, with that id written out of it."""
    requests = [
        {
            "type": "follow",
            "id": f"{tag}-1",
            "check": check,
            "action": {"action": "challenge_choice", "option": "strain"},
        },
        {"type": "follow", "id": f"{tag}-2", "check": check, "action": {"action": "flairs_bargain", "trial": "loud"}},
        {
            "type": "follow",
            "id": f"{tag}-3",
            "check": check,
            "action": {"action": "challenge_remove_complication", "complication": "k1"},
        },
        {"type": "verify", "id": f"{tag}-4", "check": check},
    ]
    out = []
    for req in requests:
        await raw.ws.send(json.dumps(req))
        reply = await raw.wait(lambda f, rid=req["id"]: f.get("id") == rid)
        text = raw.frames[[json.loads(x).get("id") for x in raw.frames].index(req["id"])].decode()
        assert reply["type"] in ("error", "verified")
        out.append(text.replace(check, "<check>").replace(req["id"], "<id>"))
    return out


@pytest.mark.parametrize("mode", ["gm", "blind", "self"])
async def test_anothers_hidden_check_is_answered_as_a_missing_one(sidecar, mode):
    alice = await sidecar.client("player", user="alice")
    rolls = [
        await alice.request(m.Roll(id="c", check=ChallengeCheck(cl=2, dice=[17]), actor="Ayla", mode=mode)),
        await alice.request(m.Roll(id="f", check=FlairsCheck(rank=2, dice=[3, 2]), mode=mode)),
        await alice.request(m.Roll(id="e", check=ChallengeCheck(cl=1, modifier=10, dice=[20]), mode=mode)),
    ]
    bob = await Raw.join(sidecar, sidecar.user_key("bob"), "bob")
    missing = await _answers(bob, MISSING, "m")
    for i, r in enumerate(rolls):
        assert await _answers(bob, r.check, f"h{i}") == missing, (mode, r.check)
    assert all('"code":"unknown_check"' in a for a in missing[:3]) and '"found":false' in missing[3]
    # the roller's own follow-ups still go through (a self roll has none: a private test; a blind roll's are the
    # GM's, who alone sees its result)
    if mode in ("self", "blind"):
        with pytest.raises(Exception) as e:
            await alice.request(m.Follow(id="mine", check=rolls[1].check, action=FlairsBargain(trial="loud")))
        assert getattr(e.value, "code", None) == ("forbidden_followup" if mode == "self" else "followup_refused")
    else:
        bargain = FlairsBargain(trial="loud")
        assert (await alice.request(m.Follow(id="mine", check=rolls[1].check, action=bargain))).check
    if mode not in ("blind", "self"):
        chose = await alice.request(m.Follow(id="ch", check=rolls[0].check, action=ChallengeChoice(option="strain")))
        assert chose.result is not None
    gm = await sidecar.client("gm", user="gm-user")
    if mode != "self":  # the GM may see it: a refusal names the real reason
        with pytest.raises(Exception) as e:
            await gm.request(
                m.Follow(id="g", check=rolls[0].check, action=ChallengeRemoveComplication(complication="k1"))
            )
        assert getattr(e.value, "code", None) != "unknown_check"
    await bob.close()
    await alice.close()
    await gm.close()
