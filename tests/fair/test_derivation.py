"""The sidecar's fair dice (sidecar/engine/dice.py) and a verifier written from the contract alone
(tests/fair/verifier.py) agree: on the golden vectors, on any seed, client seed, nonce and dice, and on the
dice a rule set's own ``roll`` asks for."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.v1 import codec
from sidecar.engine import registry
from sidecar.engine.dice import Dice, DiceSeed, FairDice, check_client_seed, commitment_of
from sidecar.engine.errors import CheckError, DiceError, ErrorCode
from tests.serving import ROOT

from . import verifier

VECTORS = [
    json.loads(line)
    for line in (ROOT / "protocol" / "vectors" / "fair-dice.jsonl").read_text(encoding="utf-8").splitlines()
]
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"

seeds = st.binary(min_size=32, max_size=32)
client_seeds = st.text(ALPHABET, max_size=64)
nonces = st.text(st.characters(exclude_categories=["Cs"]), max_size=40)  # any text: the request id as sent
sizes = st.lists(st.integers(1, 256), max_size=24)


@pytest.mark.parametrize("case", VECTORS, ids=[c["name"] for c in VECTORS])
def test_the_golden_vectors(case: dict[str, Any]) -> None:
    seed = bytes.fromhex(case["seed"])
    assert commitment_of(seed) == verifier.commitment(seed) == case["commitment"]
    drawn = [verifier.die(seed, case["client_seed"], case["nonce"], i, case["F"]) for i in range(case["count"])]
    assert [f for f, _ in drawn] == case["faces"] and [k for _, k in drawn] == case["k"]
    dice = FairDice(seed, case["client_seed"], case["nonce"])
    if case["F"] <= 256:  # a die the sidecar rolls
        assert dice.roll(case["F"], case["count"]) == case["faces"]
    else:
        assert [dice.face(i, case["F"]) for i in range(case["count"])] == case["faces"]


@given(seeds, client_seeds, nonces, sizes, st.integers(0, 24))
def test_the_sidecar_and_the_verifier_agree(
    seed: bytes, client_seed: str, nonce: str, dice: list[int], split: int
) -> None:
    # Dice asked for in two calls, one die at a time and by sizes, take consecutive indices from 0.
    fair = DiceSeed(seed).dice(client_seed, nonce)
    first, rest = dice[:split], dice[split:]
    got = [f for s in first for f in fair.roll(s)] + fair.roll_sizes(rest)
    assert got == verifier.derive(seed, client_seed, nonce, dice)
    assert fair.index == len(dice)


@given(seeds, st.integers(0, 5), st.integers(1, 256), st.integers(1, 6))
def test_skipped_indices_are_not_rolled(seed: bytes, skipped: int, faces: int, count: int) -> None:
    fair = FairDice(seed, "c", "n")
    fair.skip(skipped)
    assert fair.roll(faces, count) == verifier.derive(seed, "c", "n", [faces] * count, start=skipped)


def _check(name: str, **changes: Any) -> Any:
    """The check of a golden ``roll`` vector, with its dice left to the roller (and ``changes``)."""
    msg = codec.decode_client((ROOT / "protocol" / "vectors" / f"roll_{name}.json").read_bytes().rstrip(b"\n"))
    return msgspec.structs.replace(msg.check, dice=None, **changes)


@pytest.mark.parametrize("name", ["boons", "challenge", "facets", "feats", "flairs"])
def test_a_rule_sets_roll_draws_from_fair_dice_unchanged(name: str) -> None:
    # Where the rule set asks for its dice in the order its result lists them (no dice bought or set),
    # the result's dice are the verifier's, index by index.
    seed = bytes(range(32))
    check = _check(name)
    rules = registry.ruleset_of(check)
    want = rules.sizes(check)
    result = rules.read(check, rules.roll(check, FairDice(seed, "abc", f"r-{name}")))
    assert list(result.dice) == verifier.derive(seed, "abc", f"r-{name}", want)


def test_flairs_lurking_draws_follow_the_pool() -> None:
    seed = bytes(range(32))
    check = _check("flairs", lurking=2)
    rules = registry.ruleset_of(check)
    result = rules.read(check, rules.roll(check, FairDice(seed, "", "lurk")))
    pool = rules.sizes(check)
    assert [*result.dice, *result.lurking_dice] == verifier.derive(seed, "", "lurk", [*pool, 6, 6])


def test_a_fair_source_is_a_dice_source() -> None:
    assert isinstance(FairDice(bytes(32), "", "x"), Dice)
    with pytest.raises(DiceError) as err:
        FairDice(bytes(32), "", "x").roll_sizes([6, 257])
    assert err.value.code == ErrorCode.INVALID_DICE


@pytest.mark.parametrize("client_seed", ["", "a", "Zz9_-", "x" * 64, ALPHABET])
def test_a_client_seed_is_taken(client_seed: str) -> None:
    assert check_client_seed(client_seed) == client_seed


@pytest.mark.parametrize(
    ("client_seed", "says"),
    [
        ("x" * 65, "65 characters"),
        ("a:b", "':'"),
        ("abc\n", "'\\n'"),
        ("é", "'é'"),
        ("a b", "' '"),
        ("١٢", "'١'"),  # digits, but not ASCII ones
    ],
)
def test_a_client_seed_that_is_none_is_refused(client_seed: str, says: str) -> None:
    with pytest.raises(CheckError) as err:
        FairDice(bytes(32), client_seed, "x")
    assert err.value.code == ErrorCode.INVALID_MESSAGE
    assert says in err.value.message and "client seed" in err.value.message


def test_the_verifier_catches_a_changed_die() -> None:
    case = VECTORS[1]
    fair = {k: case[k] for k in ("commitment", "client_seed", "nonce")}
    dice = [(i, case["F"], f) for i, f in enumerate(case["faces"])]
    assert verifier.verify(case["seed"], fair, dice) == []
    changed = [*dice[:-1], (dice[-1][0], case["F"], dice[-1][2] % case["F"] + 1)]
    assert verifier.verify(case["seed"], fair, changed) == [
        f"die {len(dice) - 1} (d{case['F']}) shows {changed[-1][2]}; the seed gives {dice[-1][2]}"
    ]
    other = next(c["seed"] for c in VECTORS if c["seed"] != case["seed"])
    assert "does not answer" in verifier.verify(other, fair, dice)[0]
