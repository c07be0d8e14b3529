"""Exact odds (sidecar/engine/odds.py) against computations that share nothing with it.

Oracles:

- every ordered face tuple of small pools, read by the rule set's own ``read()``;
- icepool for larger pools: d6 pools expanded to sorted multisets (each read by ``read()``), and
  narrative dice as icepool Dice of symbol vectors parsed here from the face table;
- the chances the rules and their rulings (docs/rules/*.md) state outright (Feat table 2^-(n+1), single dice);
- a chi-square test that the roller agrees with the odds, with a fixed tolerance that a biased die fails.
"""

from __future__ import annotations

import itertools
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from math import gcd, sqrt
from typing import Any

import icepool
import msgspec
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from protocol.v1.boons import BoonsCheck, BoonsPool
from protocol.v1.challenge import ChallengeCheck
from protocol.v1.facets import FacetsCheck
from protocol.v1.feats import FeatsCheck
from protocol.v1.flairs import FlairsCheck, FlairsParticipant
from protocol.v1.odds import (
    ODDS_TYPES,
    BoonsOdds,
    ChallengeOdds,
    Chance,
    CheckOdds,
    FacetsOdds,
    FeatsOdds,
    FlairsOdds,
)
from sidecar.engine import CheckError, Dice, boons, challenge, facets, feats, flairs
from sidecar.engine.odds import clear_cache, odds

MODULES = {"facets": facets, "challenge": challenge, "flairs": flairs, "feats": feats, "boons": boons}


# --- helpers ------------------------------------------------------------------------------------------


def mod_of(check: Any):  # type: ignore[no-untyped-def]
    return MODULES[type(check).__struct_config__.tag]


def exhaust(check: Any, rules: Any = None) -> Iterator[Any]:
    """Every ordered roll of the check, read by the rule set itself."""
    mod = mod_of(check)
    rules = rules if rules is not None else mod.RULES
    for faces in itertools.product(*(range(1, s + 1) for s in mod.sizes(check, rules))):
        yield mod.read(check, list(faces), rules)


def frac(p: Any) -> Fraction:
    return Fraction(p.num, p.den)


def dist(chances: Iterable[Chance]) -> dict[Any, Fraction]:
    return {c.value: frac(c.chance) for c in chances if c.chance.num}


def tally(weighted: Iterable[tuple[Any, int]]) -> dict[Any, Fraction]:
    counts: Counter[Any] = Counter()
    for value, w in weighted:
        counts[value] += w
    total = sum(counts.values())
    return {v: Fraction(w, total) for v, w in counts.items() if w}


def brute(check: Any, fields: dict[str, Callable[[Any], Any]], rules: Any = None) -> dict[str, dict[Any, Fraction]]:
    """Per field, the distribution of ``fn(result)`` over every ordered roll."""
    results = list(exhaust(check, rules))
    return {name: tally((fn(r), 1) for r in results) for name, fn in fields.items()}


def marginal(results: list[Any], fn: Callable[[Any], Iterable[Any]]) -> dict[Any, Fraction]:
    """Chance that each value appears in ``fn(result)`` (e.g. each harm an outcome brings)."""
    counts: Counter[Any] = Counter()
    for r in results:
        for v in set(fn(r)):
            counts[v] += 1
    return {v: Fraction(w, len(results)) for v, w in counts.items()}


def assert_well_formed(answer: CheckOdds) -> None:
    """Every probability in lowest terms with its float; every distribution sums to exactly 1."""
    for name in answer.__struct_fields__:
        value = getattr(answer, name)
        if isinstance(value, list) and value and isinstance(value[0], Chance):
            for c in value:
                p = c.chance
                assert p.den > 0 and gcd(p.num, p.den) == 1 and 0 <= p.num <= p.den, (name, c)
                assert p.p == pytest.approx(p.num / p.den, rel=1e-12, abs=1e-300)
            if name not in ("harm_opponent", "harm_character", "discord", "facet", "by_wyrd", "participants", "springs"):
                assert sum(frac(c.chance) for c in value) == 1, name


# --- facets --------------------------------------------------------------------------------------------

FACETS_FIELDS = {
    "outcome": lambda r: r.outcome,
    "highest": lambda r: r.highest,
}


def facets_grid() -> list[FacetsCheck]:
    grid = [FacetsCheck(pool=n, kind=k) for n in range(0, 6) for k in ("obstacle", "opposition", "mystical")]
    grid += [FacetsCheck(pool=2, helping=2, hindering=1, kind="interpersonal"), FacetsCheck(pool=1, hindering=4)]
    return grid


@pytest.mark.parametrize("check", facets_grid(), ids=str)
def test_facets_against_every_roll(check):
    o = odds(check)
    results = list(exhaust(check))
    got = brute(check, FACETS_FIELDS)
    assert dist(o.outcome) == got["outcome"]
    assert dist(o.highest) == got["highest"]
    assert dist(o.harm_opponent) == marginal(results, lambda r: r.harm.opponent)
    assert dist(o.harm_character) == marginal(results, lambda r: r.harm.character)
    assert dist(o.discord) == marginal(results, lambda r: [r.discord] if r.discord else [])
    assert dist(o.facet) == marginal(results, lambda r: [r.facet] if r.facet else [])
    assert frac(o.cost) == marginal(results, lambda r: [r.cost]).get(True, 0)
    assert frac(o.succeeds) == sum(v for k, v in got["outcome"].items() if k in ("triumph", "success", "costly_success"))
    assert o.desperate == results[0].desperate and o.pool == results[0].pool and o.rolled == len(results[0].dice)
    assert [c.value for c in o.outcome] == ["triumph", "success", "costly_success", "failure", "catastrophe"]
    assert_well_formed(o)


def icepool_sorted(n: int, sides: int) -> Iterator[tuple[tuple[int, ...], int]]:
    """Sorted multisets of ``n`` dice and how many ordered rolls show each (icepool's multinomials)."""
    return iter(icepool.Die(range(1, sides + 1)).pool(n).expand().items())


@pytest.mark.parametrize("n", [6, 8, 10, 12])
def test_facets_against_icepool(n):
    check = FacetsCheck(pool=n)
    o = odds(check)
    expected = tally((facets.read(check, list(t)).outcome, w) for t, w in icepool_sorted(n, 6))
    assert dist(o.outcome) == expected


def test_facets_single_die_and_desperate_by_hand():
    o = dist(odds(FacetsCheck(pool=1)).outcome)
    assert o == {"success": Fraction(1, 6), "costly_success": Fraction(1, 3), "failure": Fraction(1, 2)}
    d = dist(odds(FacetsCheck(pool=0)).outcome)
    # 2d6, the lowest kept: both 6 a success; both 4+ a costly success; two 1s a catastrophe; never a triumph.
    assert d == {
        "success": Fraction(1, 36),
        "costly_success": Fraction(8, 36),
        "failure": Fraction(26, 36),
        "catastrophe": Fraction(1, 36),
    }
    assert dist(odds(FacetsCheck(pool=2)).outcome)["triumph"] == Fraction(1, 36)


def test_facets_house_rules():
    rules = facets.FacetsRules(triumph_count=3, catastrophe_count=3, costly_face=3, sides=8, success_face=7)
    for check in (FacetsCheck(pool=3), FacetsCheck(pool=4), FacetsCheck(pool=0)):
        assert dist(odds(check, rules).outcome) == brute(check, FACETS_FIELDS, rules)["outcome"]


# --- challenge -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("cl", [1, 2, 3, 4, 6])
@pytest.mark.parametrize("modifier", [-12, -4, 0, 3, 7, 15, 30])
def test_challenge_against_every_face(cl, modifier):
    check = ChallengeCheck(cl=cl, modifier=modifier)
    o = odds(check)
    results = list(exhaust(check))
    got = brute(check, {"outcome": lambda r: r.outcome, "margin": lambda r: r.margin, "strain": lambda r: r.strain})
    assert dist(o.outcome) == got["outcome"]
    assert dist(o.margin) == got["margin"]
    assert dist(o.strain) == got["strain"]
    assert frac(o.choice) == marginal(results, lambda r: [bool(r.choice)]).get(True, 0)
    assert frac(o.condition) == marginal(results, lambda r: [r.condition]).get(True, 0)
    assert frac(o.succeeds) == marginal(results, lambda r: [r.success]).get(True, 0)
    assert frac(o.natural_one) == Fraction(1, 20)
    assert Fraction(o.mean_strain.num, o.mean_strain.den) == sum(Fraction(r.strain, 20) for r in results)
    assert_well_formed(o)


def test_challenge_house_rules():
    rules = challenge.ChallengeRules(ladder_step=4, epic_failure_natural=None, epic_success_margin=3)
    check = ChallengeCheck(cl=3, modifier=2)
    o = odds(check, rules)
    assert dist(o.outcome) == brute(check, {"o": lambda r: r.outcome}, rules)["o"]
    assert o.natural_one.num == 0


# --- feats ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("level", range(-8, 9))
def test_feats_against_every_roll(level):
    check = FeatsCheck(level=level)
    o = odds(check)
    got = brute(check, {"outcome": lambda r: r.outcome, "degree": lambda r: r.degree})
    assert dist(o.outcome) == got["outcome"]
    assert dist(o.degree) == got["degree"]
    # docs/rules/feats.md: at +n the chance is 2^-(n+1), at -n it is 1 - 2^-(n+1).
    chance = Fraction(1, 2 ** (level + 1)) if level >= 0 else 1 - Fraction(1, 2 ** (-level + 1))
    assert dist(o.outcome)["success"] == chance
    assert not o.automatic and o.bought == 0 and o.cost == 0
    assert_well_formed(o)


@pytest.mark.parametrize(
    "kw",
    [
        dict(level=3, wyrd=1),
        dict(level=6, wyrd=2),
        dict(level=8, wyrd=3),
        dict(level=5, wyrd=1, wyrd_dice=["blue"]),
        dict(level=-3, wyrd=2, wyrd_dice=["red", "blue"]),
        dict(ability=4, difficulty=6),
        dict(ability=5, opposing=2, wyrd=1),
    ],
)
def test_feats_wyrd_against_every_roll(kw):
    check = FeatsCheck(**kw)
    o = odds(check)
    got = brute(check, {"outcome": lambda r: r.outcome, "degree": lambda r: r.degree, "cost": lambda r: r.cost})
    assert dist(o.outcome) == got["outcome"]
    assert dist(o.degree) == got["degree"]
    assert {o.cost: Fraction(1)} == got["cost"]
    # The chance with each number of 8s bought, first die first, is that check's own chance.
    for c in o.by_wyrd:
        bought = FeatsCheck(level=feats.feat_level(check), wyrd=c.value)
        assert frac(c.chance) == brute(bought, {"s": lambda r: r.success})["s"].get(True, 0)


@pytest.mark.parametrize("level, cost", [(-9, 0), (-20, 0), (9, 20), (14, 20)])
def test_feats_without_a_roll(level, cost):
    o = odds(FeatsCheck(level=level, wyrd_feat=level > 8))
    assert o.automatic and dist(o.outcome) == {"success": 1} and o.cost == cost and dist(o.degree) == {0: 1}
    assert o.by_wyrd == []


# --- flairs --------------------------------------------------------------------------------------------

FLAIRS_FIELDS = {
    "outcome": lambda r: r.outcome,
    "flairs": lambda r: r.flairs,
    "trials": lambda r: r.trials,
    "tainted": lambda r: r.tainted,
    "highest": lambda r: r.highest,
}


def flairs_grid() -> list[FlairsCheck]:
    grid = [FlairsCheck(rank=n, cuts=c) for n in range(0, 5) for c in range(0, n + 2)]
    grid += [FlairsCheck(rank=n, cuts=c, simple=True) for n in (0, 2, 4) for c in (0, 1, 4)]
    grid += [
        FlairsCheck(rank=3, edges=2, cuts=2),
        FlairsCheck(rank=2, edges=1, darkness=True, lurking=2),
        FlairsCheck(rank=1, lurking_trials=["slow", "loud"]),
        FlairsCheck(rank=0, cuts=2, darkness=True),
    ]
    return grid


@pytest.mark.parametrize("check", flairs_grid(), ids=str)
def test_flairs_against_every_roll(check):
    o = odds(check)
    got = brute(check, FLAIRS_FIELDS)
    for name in ("outcome", "flairs", "trials", "tainted", "highest"):
        assert dist(getattr(o, name)) == got[name], name
    assert frac(o.succeeds) == 1 - got["outcome"].get("failure", 0)
    expected = ["success", "failure"] if check.simple else ["triumph", "conflict", "failure"]
    assert [c.value for c in o.outcome] == expected
    assert_well_formed(o)


@pytest.mark.parametrize("rank, cuts", [(6, 0), (7, 2), (9, 1), (10, 4), (8, 7)])
def test_flairs_against_icepool(rank, cuts):
    check = FlairsCheck(rank=rank, cuts=cuts)
    o = odds(check)
    reads = [(flairs.read(check, list(t)), w) for t, w in icepool_sorted(rank, 6)]
    for name, fn in FLAIRS_FIELDS.items():
        assert dist(getattr(o, name)) == tally((fn(r), w) for r, w in reads), name


GROUPS = [
    FlairsCheck(group=[FlairsParticipant(name="a", rank=1), FlairsParticipant(name="b", rank=2, cuts=1), FlairsParticipant(name="c")], trap=True),
    FlairsCheck(group=[FlairsParticipant(name="a", rank=2), FlairsParticipant(name="b", rank=3, cuts=3)], trap=True),
    FlairsCheck(group=[FlairsParticipant(name="a", rank=2), FlairsParticipant(name="b", rank=1, edges=1), FlairsParticipant(name="c", rank=1)]),
    FlairsCheck(group=[FlairsParticipant(name="solo", rank=3, cuts=1)], trap=True),
]


@pytest.mark.parametrize("check", GROUPS, ids=str)
def test_flairs_group_against_every_roll(check):
    o = odds(check)
    results = list(exhaust(check))
    assert dist(o.outcome) == tally((r.outcome, 1) for r in results)
    assert frac(o.group) == marginal(results, lambda r: [r.outcome]).get("success", 0)
    for c in o.participants:
        assert frac(c.chance) == marginal(results, lambda r: [p.outcome for p in r.group if p.name == c.value]).get("success", 0)
    if check.trap:
        assert dist(o.springs) == marginal(results, lambda r: r.springs)
    else:
        assert o.springs is None
    assert_well_formed(o)


def test_flairs_house_rules():
    rules = flairs.FlairsRules(conflict_face=3, triumph_face=5, desperate_dice=3)
    for check in (FlairsCheck(rank=3, cuts=1), FlairsCheck(rank=0), FlairsCheck(rank=2, simple=True)):
        got = brute(check, FLAIRS_FIELDS, rules)
        o = odds(check, rules)
        for name in ("outcome", "flairs", "trials", "tainted"):
            assert dist(getattr(o, name)) == got[name], name


# --- boons ---------------------------------------------------------------------------------------------

BOONS_FIELDS = {
    "outcome": lambda r: r.outcome,
    "net_successes": lambda r: r.net_successes,
    "net_boons": lambda r: r.net_boons,
    "breakthroughs": lambda r: r.breakthroughs,
    "calamities": lambda r: r.calamities,
}

BOONS_GRID = [
    BoonsCheck(),
    BoonsCheck(ability=2, boon=1, trial=1),
    BoonsCheck(ability=1, bane=1, crisis=1),
    BoonsCheck(ability=1, trial=2, upgrade=1),
    BoonsCheck(boon=2, bane=1, crisis=1),
    BoonsCheck(ability=1, rank=1, assists=[2, 3]),
    BoonsCheck(ability=1, performer_rank=3, participant_ranks=[1, 2], trial=1),
    BoonsCheck(ability=2, trial=1, threshold=3, progress=1, attempts=1, limit=2),
    BoonsCheck(ability=1, boon=1, threshold=2),
    BoonsCheck(ability=1, boon=1, opponent=BoonsPool(ability=1, bane=1)),
    BoonsCheck(ability=2, opponent=BoonsPool(ability=1, rank=0, assists=[1])),
]


@pytest.mark.parametrize("check", BOONS_GRID, ids=str)
def test_boons_against_every_roll(check):
    o = odds(check)
    results = list(exhaust(check))
    got = brute(check, BOONS_FIELDS)
    for name in BOONS_FIELDS:
        assert dist(getattr(o, name)) == got[name], name
    assert frac(o.breakthrough) == marginal(results, lambda r: [r.breakthroughs > 0]).get(True, 0)
    assert frac(o.calamity) == marginal(results, lambda r: [r.calamities > 0]).get(True, 0)
    mean = sum(Fraction(r.net_successes, len(results)) for r in results)
    assert Fraction(o.mean_net_successes.num, o.mean_net_successes.den) == mean
    mean = sum(Fraction(r.net_boons, len(results)) for r in results)
    assert Fraction(o.mean_net_boons.num, o.mean_net_boons.den) == mean
    if check.opponent is not None:
        assert frac(o.win) == marginal(results, lambda r: [r.winner]).get("actor", 0)
        assert dist(o.defender_net_successes) == tally((r.defender.net_successes, 1) for r in results)
        assert dist(o.defender_net_boons) == tally((r.defender.net_boons, 1) for r in results)
    else:
        assert o.win is None
    if check.threshold is not None:
        assert dist(o.extended) == tally((r.extended.status, 1) for r in results)
    assert o.pool == results[0].actor.pool
    assert_well_formed(o)


def symbol_vector(symbols: str) -> icepool.Vector:
    """(successes − failures, boons − banes, breakthroughs, calamities), read from the rulings' symbols (docs/rules/boons.md)."""
    s = symbols.count("S") + symbols.count("X") - symbols.count("F") - symbols.count("C")
    b = symbols.count("B") - symbols.count("N")
    return icepool.Vector((s, b, symbols.count("X"), symbols.count("C")))


def icepool_side(pool: dict[str, int]) -> icepool.Die:
    side = icepool.Die([icepool.Vector((0, 0, 0, 0))])
    for t, n in pool.items():
        if n:
            side = side + n @ icepool.Die([symbol_vector(f) for f in boons.DEFAULT_FACES[t]])
    return side


def band(ns: int) -> str:
    return "exceptional" if ns >= 4 else "improved" if ns >= 2 else "success" if ns >= 1 else "failure"


@pytest.mark.parametrize(
    "pool",
    [
        dict(ability=4, boon=2, bane=2, trial=3),
        dict(ability=3, boon=3, bane=1, trial=2, crisis=3),
        dict(ability=6, crisis=5),
    ],
)
def test_boons_against_icepool(pool):
    o = odds(BoonsCheck(**pool))
    side = icepool_side(pool)
    den = side.denominator()
    for i, name in enumerate(("net_successes", "net_boons", "breakthroughs", "calamities")):
        assert dist(getattr(o, name)) == tally(side.marginals[i].items()), name
        assert side.marginals[i].denominator() == den
    assert dist(o.outcome) == tally((band(v[0]), w) for v, w in side.items())


def test_boons_opposed_against_icepool():
    actor, defender = dict(ability=3, boon=2, bane=1), dict(ability=2, boon=1, bane=2)
    o = odds(BoonsCheck(**actor, opponent=BoonsPool(**defender)))
    a, d = icepool_side(actor).marginals[0], icepool_side(defender).marginals[0]
    win = icepool.map(lambda x, y: x > y, a, d)
    assert frac(o.win) == Fraction(win.quantity(True), win.denominator())
    outcome = icepool.map(lambda x, y: band(max(x, 1)) if x > y else "failure", a, d)
    assert dist(o.outcome) == tally(outcome.items())


def test_boons_house_faces():
    faces = dict(boons.DEFAULT_FACES, ability=("S", "SS", "X", "B"), crisis=("C", "CC", "-"))
    rules = boons.BoonsRules(faces=faces, improved_at=3)
    check = BoonsCheck(ability=2, crisis=2)
    got = brute(check, BOONS_FIELDS, rules)
    o = odds(check, rules)
    for name in BOONS_FIELDS:
        assert dist(getattr(o, name)) == got[name], name


# --- the answer as a whole -----------------------------------------------------------------------------


def test_every_system_answers_with_its_struct():
    for check, kind in [
        (FacetsCheck(pool=3), FacetsOdds),
        (ChallengeCheck(cl=2), ChallengeOdds),
        (FlairsCheck(rank=3), FlairsOdds),
        (FeatsCheck(level=1), FeatsOdds),
        (BoonsCheck(ability=2, trial=1), BoonsOdds),
    ]:
        o = odds(check)
        assert type(o) is kind and kind in ODDS_TYPES
        # It travels as JSON and comes back equal, tagged by system.
        wire = msgspec.json.encode(o)
        assert msgspec.json.decode(wire)["system"] == type(check).__struct_config__.tag
        assert msgspec.json.decode(wire, type=kind) == o


def test_cached_by_parameters_ignoring_dice():
    clear_cache()
    check = FacetsCheck(pool=4, kind="opposition")
    first = odds(check)
    assert odds(FacetsCheck(pool=4, kind="opposition")) is first
    assert odds(msgspec.structs.replace(check, dice=[1, 2, 3, 4])) is first
    assert odds(FacetsCheck(pool=4, kind="mystical")) is not first
    house = odds(check, facets.FacetsRules(triumph_count=3))
    assert house is not first and house.outcome != first.outcome
    clear_cache()
    again = odds(check)
    assert again is not first and again == first


@pytest.mark.parametrize(
    "check",
    [
        FacetsCheck(pool=-1),
        FacetsCheck(pool=40),
        ChallengeCheck(cl=0),
        FlairsCheck(rank=-1),
        FlairsCheck(rank=1, simple=True, lurking=1),
        FeatsCheck(level=9),
        FeatsCheck(),
        BoonsCheck(ability=11),
        BoonsCheck(trial=1, upgrade=2),
    ],
    ids=str,
)
def test_invalid_checks_raise_the_rule_sets_error(check):
    mod = mod_of(check)
    with pytest.raises(CheckError) as expected:
        mod.validate(check, mod.RULES)
    with pytest.raises(CheckError) as got:
        odds(check)
    assert got.value.code == expected.value.code and str(got.value) == str(expected.value)
    with pytest.raises(CheckError):  # and again: a refusal is never cached as an answer
        odds(check)


def test_not_a_check():
    with pytest.raises(CheckError) as e:
        odds(object())
    assert e.value.code == "unsupported_system"


@settings(max_examples=60, deadline=None)
@given(
    st.one_of(
        st.builds(FacetsCheck, pool=st.integers(0, 30), helping=st.integers(0, 3), hindering=st.integers(0, 5),
                  kind=st.sampled_from(["obstacle", "opposition", "interpersonal", "mystical"])),
        st.builds(ChallengeCheck, cl=st.integers(1, 10), modifier=st.integers(-30, 60)),
        st.builds(FlairsCheck, rank=st.integers(0, 15), edges=st.integers(0, 5), cuts=st.integers(0, 8),
                  simple=st.booleans()),
        st.builds(FeatsCheck, level=st.integers(-8, 8), wyrd=st.integers(0, 3)),
        st.builds(BoonsCheck, ability=st.integers(0, 10), boon=st.integers(0, 10), bane=st.integers(0, 10),
                  trial=st.integers(0, 10), crisis=st.integers(0, 10)),
    )
)
def test_every_answer_is_well_formed(check):
    try:
        answer = odds(check)
    except CheckError:
        assume(False)
    assert_well_formed(answer)


# --- the roller agrees with the odds -------------------------------------------------------------------


def chi_square_limit(df: int, z: float = 5.0) -> float:
    """The chi-square value exceeded by chance with probability about that of a 5-sigma normal deviate
    (Wilson–Hilferty): a fair roller fails it about once in three million runs."""
    k = 2 / (9 * df)
    return df * (1 - k + z * sqrt(k)) ** 3


def chi_square(check: Any, rolls: int, field: str, fn: Callable[[Any], Any], rng: Dice) -> tuple[float, int]:
    """Roll ``check`` many times; the chi-square statistic of ``fn(result)`` against the odds' ``field``."""
    mod = mod_of(check)
    expected = dist(getattr(odds(check), field))
    seen = Counter(fn(mod.read(check, mod.roll(check, rng))) for _ in range(rolls))
    assert set(seen) <= set(expected), "a value the odds call impossible was rolled"
    # Pool the rare values so every bin expects at least 5.
    bins: list[tuple[float, int]] = []
    rare_e, rare_o = 0.0, 0
    for v, p in expected.items():
        e = float(p) * rolls
        if e < 5:
            rare_e, rare_o = rare_e + e, rare_o + seen[v]
        else:
            bins.append((e, seen[v]))
    if rare_e:
        bins.append((rare_e, rare_o))
    stat = sum((o - e) ** 2 / e for e, o in bins)
    return stat, len(bins) - 1


ROLLER = [
    (FacetsCheck(pool=3), "outcome", lambda r: r.outcome),
    (FacetsCheck(pool=0), "outcome", lambda r: r.outcome),
    (ChallengeCheck(cl=2, modifier=3), "margin", lambda r: r.margin),
    (FlairsCheck(rank=4, cuts=1), "trials", lambda r: r.trials),
    (FlairsCheck(rank=3), "outcome", lambda r: r.outcome),
    (FeatsCheck(level=0), "degree", lambda r: r.degree),
    (BoonsCheck(ability=3, boon=1, trial=2, crisis=1), "net_successes", lambda r: r.net_successes),
]


@pytest.mark.parametrize("check, field, fn", ROLLER, ids=lambda x: str(x) if not callable(x) else "")
def test_roller_agrees_with_odds(check, field, fn):
    stat, df = chi_square(check, 6000, field, fn, Dice())
    assert stat < chi_square_limit(df), f"chi-square {stat:.1f} on {df} degrees of freedom"


def test_chi_square_catches_a_biased_die():
    def loaded(n: int) -> bytes:
        # About one byte in ten is forced to 5, the byte that reads as a 6: a d6 showing 6 a quarter of the time.
        return bytes(5 if b < 26 else b for b in os.urandom(n))

    for check, field, fn in ROLLER[:2]:
        stat, df = chi_square(check, 6000, field, fn, Dice(loaded))
        assert stat > chi_square_limit(df)


def test_describe_prints_every_distribution():
    from sidecar.engine.odds import describe

    text = describe(odds(FacetsCheck(pool=3, kind="opposition")))
    assert text.splitlines()[0] == "facets odds"
    assert "costly success     45.37%" in text and "49/108" in text
    assert "harm opponent:" in text and "succeeds: 87.50% (7/8)" in text
    for check in (ChallengeCheck(cl=2), FlairsCheck(group=GROUPS[0].group, trap=True), FeatsCheck(level=-9),
                  BoonsCheck(ability=2, opponent=BoonsPool(ability=1))):
        text = describe(odds(check))
        assert text.startswith(f"{type(check).__struct_config__.tag} odds") and "outcome:" in text


def test_flairs_larger_group_against_icepool():
    members = [(3, 0, 1), (4, 1, 0), (0, 0, 0), (2, 0, 2), (5, 1, 2)]  # rank, edges, cuts
    check = FlairsCheck(group=[FlairsParticipant(name=f"p{i}", rank=a, edges=b, cuts=c) for i, (a, b, c) in enumerate(members)], trap=True)
    o = odds(check)
    reads = []
    for rank, edges, cuts in members:
        n = rank + edges
        if n == 0 or cuts >= n:  # desperate: 2d6, the lowest kept
            reads.append(tally((t[0], w) for t, w in icepool_sorted(2, 6)))
        else:  # each cut removes the highest die: the (cuts+1)-th highest is read
            reads.append(tally((t[-(cuts + 1)], w) for t, w in icepool_sorted(n, 6)))
    wins, springs = Fraction(0), Counter()
    for combo in itertools.product(*(r.items() for r in reads)):
        p = Fraction(1)
        for _, q in combo:
            p *= q
        values = [v for v, _ in combo]
        if 2 * sum(v >= 4 for v in values) >= len(values):
            wins += p
        else:
            for i, v in enumerate(values):
                if v == min(values):
                    springs[f"p{i}"] += p
    assert frac(o.group) == wins
    assert dist(o.springs) == {k: v for k, v in springs.items() if v}
