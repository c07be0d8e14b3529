"""Exact odds: cold and cached medians per shape, and the ratio against icepool computing the same.

``run()`` returns one row per shape (a check of up to 20 dice): the median time of ``odds(check)``
for a check not seen before (cold: the answer cache cleared, the tables shared by all checks kept), as
the first check after start-up (first: those tables cleared too), answered from the cache (cached),
and the median time icepool
takes to compute the same distributions, written the way icepool is meant to be used (a multiset
evaluator over a d6 pool, sums of per-die-type dice, a map over the d20 or the three d8), each run on
fresh icepool objects so that its own caches do not answer. ``speedup`` is icepool's time over the
cold time. Targets: cold under 2 ms, cached under 50 µs, at least 50× faster than icepool.

    python -m bench.odds
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import icepool

from protocol.v1.boons import BoonsCheck, BoonsPool
from protocol.v1.challenge import ChallengeCheck
from protocol.v1.facets import FacetsCheck
from protocol.v1.feats import FeatsCheck
from protocol.v1.flairs import FlairsCheck
from sidecar.engine import boons, challenge, feats
from sidecar.engine.odds import clear_cache, odds

COLD_TARGET_US = 2000.0
CACHED_TARGET_US = 50.0
SPEEDUP_TARGET = 50.0


# --- icepool, computing the same distributions -----------------------------------------------------


def _d(sides: int) -> icepool.Die:
    # A fresh die each time: icepool caches per object.
    return icepool.Die(range(1, sides + 1))


class _Facets(icepool.MultisetEvaluator):
    """facets: (highest, how many show it, ones) in ascending order → the outcome band."""

    def __init__(self, desperate: bool) -> None:
        self.desperate = desperate

    def next_state(self, state, order, outcome, count):  # type: ignore[no-untyped-def]
        low, high, top, ones = state or (None, 0, 0, 0)
        if count:
            if low is None:
                low = outcome
            high, top = outcome, count
            if outcome == 1:
                ones = count
        return low, high, top, ones

    def final_outcome(self, state, *_):  # type: ignore[no-untyped-def]
        low, high, top, ones = state
        read = low if self.desperate else high
        if read >= 6:
            return "triumph" if top >= 2 and not self.desperate else "success"
        if read >= 4:
            return "costly_success"
        return "catastrophe" if ones >= 2 else "failure"


def icepool_facets(check: FacetsCheck) -> Any:
    n = check.pool + check.helping - check.hindering
    desperate = n <= 0
    return _Facets(desperate).evaluate(_d(6).pool(2 if desperate else n))


class _Flairs(icepool.MultisetEvaluator):
    """flairs: faces from the highest; dice above the cut position taint their groups."""

    def __init__(self, cuts: int) -> None:
        self.cuts = cuts

    def initial_state(self, order, outcomes, *sizes):  # type: ignore[no-untyped-def]
        if order != icepool.Order.Descending:
            raise icepool.UnsupportedOrder()
        return 0, 0, 0, 0

    def next_state(self, state, order, outcome, count):  # type: ignore[no-untyped-def]
        placed, tainted, clean, read = state
        if count:
            if placed < self.cuts:
                tainted += count - 1
            else:
                clean += count - 1
            if not read and placed + count > self.cuts:
                read = outcome
            placed += count
        return placed, tainted, clean, read

    def final_outcome(self, state, *_):  # type: ignore[no-untyped-def]
        _, tainted, clean, read = state
        outcome = "triumph" if read >= 6 else "conflict" if read >= 4 else "failure"
        if outcome == "failure":
            return outcome, 0, tainted + clean, tainted
        return outcome, clean, tainted, tainted


def icepool_flairs(check: FlairsCheck) -> Any:
    joint = _Flairs(check.cuts).evaluate(_d(6).pool(check.rank + check.edges))
    return [joint.marginals[i] for i in range(4)]


def icepool_challenge(check: ChallengeCheck) -> Any:
    rules = challenge.RULES

    def read(face: int) -> tuple[str, int]:
        margin = challenge.level_of(face + check.modifier, rules) - check.cl
        return challenge.outcome_of(margin, face, rules), margin

    joint = _d(20).map(read)
    return joint.marginals[0], joint.marginals[1]


def icepool_feats(check: FeatsCheck) -> Any:
    rules = feats.RULES
    level = feats.feat_level(check)
    rows = [(row.level, [set(c) for c in row.faces()]) for row in rules.table]

    def satisfied(faces: tuple[int, int, int], lv: int, counting: list[set[int]]) -> bool:
        listed = [f in c for f, c in zip(faces, counting) if c]
        return all(listed) if lv > rules.all_dice_above else any(listed)

    def read(w: int, r: int, b: int) -> tuple[bool, int]:
        ok = [lv for lv, c in rows if satisfied((w, r, b), lv, c)]
        bad = [lv for lv, c in rows if not satisfied((w, r, b), lv, c)]
        success = level in ok
        return success, (max(ok) if success else min(bad)) - level

    bought = feats.bought_dice(check)
    dice = [icepool.Die([rules.bought_face]) if i in bought else _d(8) for i in range(3)]
    joint = icepool.map(read, *dice)
    return joint.marginals[0], joint.marginals[1]


def _vector(symbols: str) -> tuple[int, int, int, int]:
    s = symbols.count("S") + symbols.count("X") - symbols.count("F") - symbols.count("C")
    return s, symbols.count("B") - symbols.count("N"), symbols.count("X"), symbols.count("C")


def _side(pool: dict[str, int]) -> list[icepool.Die]:
    """Per coordinate, the sum over the pool's dice (sums of per-type dice)."""
    out = []
    for coord in range(4):
        total = icepool.Die([0])
        for t, n in pool.items():
            if n:
                total = total + n @ icepool.Die([_vector(f)[coord] for f in boons.DEFAULT_FACES[t]])
        out.append(total)
    return out


def icepool_boons(check: BoonsCheck) -> Any:
    actor = _side({t: getattr(check, t) for t in boons.DIE_TYPES})
    band = lambda ns: boons.band(ns)  # noqa: E731
    if check.opponent is None:
        return [*actor, actor[0].map(band)]
    defender = _side({t: getattr(check.opponent, t) for t in boons.OPPOSED_TYPES})
    outcome = icepool.map(lambda a, d: boons.band(max(a, 1)) if a > d else "failure", actor[0], defender[0])
    return [*actor, *defender[:2], outcome]


# --- the shapes --------------------------------------------------------------------------------------

SHAPES: list[tuple[str, Any, Callable[[Any], Any]]] = [
    ("facets 5 dice", FacetsCheck(pool=5, kind="opposition"), icepool_facets),
    ("facets 20 dice", FacetsCheck(pool=16, helping=4, kind="mystical"), icepool_facets),
    ("facets desperate", FacetsCheck(pool=1, hindering=2), icepool_facets),
    ("challenge d20", ChallengeCheck(cl=3, modifier=7), icepool_challenge),
    ("flairs 5 dice", FlairsCheck(rank=4, edges=1), icepool_flairs),
    ("flairs 20 dice, 3 cuts", FlairsCheck(rank=15, edges=5, cuts=3), icepool_flairs),
    ("flairs 20 dice, 10 cuts", FlairsCheck(rank=20, cuts=10), icepool_flairs),
    ("feats 3d8", FeatsCheck(level=3), icepool_feats),
    ("feats 3d8, 1 Wyrd", FeatsCheck(level=6, wyrd=1), icepool_feats),
    ("boons 5 dice", BoonsCheck(ability=3, trial=2), icepool_boons),
    ("boons 20 dice", BoonsCheck(ability=6, boon=3, bane=3, trial=4, crisis=4), icepool_boons),
    (
        "boons opposed 20 dice",
        BoonsCheck(ability=5, boon=3, bane=2, opponent=BoonsPool(ability=5, boon=2, bane=3)),
        icepool_boons,
    ),
]


def _same(ice: Any, answer: Any) -> bool:
    """Whether icepool's distribution of the outcome (the degree for feats) is the answer's, exactly."""
    from fractions import Fraction

    tag = type(answer).__struct_config__.tag
    if tag == "facets":
        die, chances = ice, answer.outcome
    elif tag in ("flairs", "challenge"):
        die, chances = ice[0], answer.outcome
    elif tag == "feats":
        die, chances = ice[1], answer.degree
    else:
        die, chances = ice[-1], answer.outcome
    den = die.denominator()
    got = {o: Fraction(q, den) for o, q in die.items() if q}
    return got == {c.value: Fraction(c.chance.num, c.chance.den) for c in chances if c.chance.num}


def _median_us(fn: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def _cold(check: Any, tables: bool = False) -> Callable[[], Any]:
    def go() -> Any:
        clear_cache(tables=tables)
        return odds(check)

    return go


def _cached_us(check: Any, batches: int = 15, size: int = 2000) -> float:
    odds(check)
    per_call = []
    for _ in range(batches):
        t = time.perf_counter()
        for _ in range(size):
            odds(check)
        per_call.append((time.perf_counter() - t) / size)
    return statistics.median(per_call) * 1e6


def _dice(check: Any) -> int:
    from sidecar.engine import rules_of

    mod = rules_of(check)
    return len(mod.sizes(check, mod.RULES))


def run(full: bool = False, runs: int | None = None) -> list[dict[str, Any]]:
    """One row per shape: cold and cached medians (µs), icepool's median (µs) and the speedup; each median of
    ``runs`` measurements if given (else as many as ``full`` says: more for the long runs)."""
    quick = not full
    rows = []
    for name, check, ice in SHAPES:
        _cold(check)()  # import and warm the interpreter's paths once
        cold = _median_us(_cold(check), runs or (20 if quick else 100))
        first = _median_us(_cold(check, tables=True), runs or (20 if quick else 100))
        cached = _cached_us(check, runs or (5 if quick else 15))
        icepool_us = _median_us(partial(ice, check), runs or (3 if quick else 7))
        rows.append(
            {
                "shape": name,
                "dice": _dice(check),
                "cold µs": cold,
                "first µs": first,
                "cached µs": cached,
                "icepool µs": icepool_us,
                "speedup": icepool_us / cold,
                "cold < 2 ms": "yes" if cold < COLD_TARGET_US else "**no**",
                "cached < 50 µs": "yes" if cached < CACHED_TARGET_US else "**no**",
                "≥ 50× icepool": "yes" if icepool_us / cold >= SPEEDUP_TARGET else "**no**",
                "same as icepool": "yes" if _same(ice(check), odds(check)) else "**no**",
            }
        )
    clear_cache()
    return rows


def smallest() -> list[dict[str, Any]]:
    """Every shape's row, each figure from one measurement."""
    return run(runs=1)


if __name__ == "__main__":
    from .common import dict_table, machine

    print(f"odds  ({machine()})")
    print(dict_table(run()))
