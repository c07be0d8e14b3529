"""Exact odds of a `boons` check, by convolving symbol vectors per die type.

Each face is a vector (net successes, net boons, breakthroughs, calamities). Dice are independent, so
each coordinate of a pool's sum is the convolution of that coordinate over the dice. A coordinate's
distribution is packed into one integer (see odds_core), so the ``n``-fold sum of one die type is a
power of it and the types are multiplied together, all in C. Nothing needs the joint distribution
except an opposed check, where the two sides are independent and are compared value by value.
"""

from __future__ import annotations

from functools import lru_cache

from protocol.v1.boons import BoonsCheck, BoonsDice
from protocol.v1.odds import BoonsOdds

from .rules import DIE_TYPES, OPPOSED_TYPES, BoonsRules, band, build
from ...errors import CheckError, ErrorCode
from ...odds_core import Dist, chances, dist_at_least, dist_chances, expectation, prob, table, unpack, width

OUTCOMES = ("exceptional", "improved", "success", "failure")
EXTENDED = ("complete", "in_progress", "failed")

# Symbol -> (successes - failures, boons - banes, breakthroughs, calamities).
_VECTORS = {
    "S": (1, 0, 0, 0),
    "F": (-1, 0, 0, 0),
    "B": (0, 1, 0, 0),
    "N": (0, -1, 0, 0),
    "X": (1, 0, 1, 0),
    "C": (-1, 0, 0, 1),
    "-": (0, 0, 0, 0),
}


def face_vector(symbols: str) -> tuple[int, int, int, int]:
    ns = nb = x = c = 0
    for s in symbols:
        try:
            a, b, d, e = _VECTORS[s]
        except KeyError:
            raise CheckError(ErrorCode.INVALID_RULES, f"boons: unknown die symbol {s!r} in the face table (use S F B N X C -)") from None
        ns, nb, x, c = ns + a, nb + b, x + d, c + e
    return ns, nb, x, c


@table
@lru_cache(maxsize=1024)
def die_packed(faces: tuple[str, ...], coord: int, kb: int) -> tuple[int, int, int]:
    """One die's coordinate as (lowest value, packed weights from it, sum over its faces)."""
    values = [face_vector(f)[coord] for f in faces]
    lo = min(values)
    packed = 0
    for v in values:
        packed += 1 << (kb * (v - lo))
    return lo, packed, sum(values)


@table
@lru_cache(maxsize=4096)
def type_sum(faces: tuple[str, ...], coord: int, kb: int, n: int) -> tuple[int, int, int]:
    """The sum of ``n`` dice of one type, one coordinate: (lowest value, packed weights - a power, in C -,
    and the sum's total over the die type's ``size^n`` rolls)."""
    lo, die, face_sum = die_packed(faces, coord, kb)
    size = len(faces)
    # The mean of a sum is the sum of the means: n dice, each the mean of its faces.
    return n * lo, die**n, n * face_sum * size ** (n - 1)


def side_dists(pool: BoonsDice, kinds: tuple[str, ...], rules: BoonsRules) -> tuple[list[Dist], int, list[int]]:
    """Per coordinate, the distribution of a side's sum; the number of ordered rolls; and per coordinate
    the sum's total over every roll (its mean times the number of rolls)."""
    den = 1
    for t in kinds:
        den *= len(rules.faces[t]) ** getattr(pool, t)
    kb = width(den)
    present = [(tuple(rules.faces[t]), n) for t in kinds if (n := getattr(pool, t))]
    out: list[Dist] = []
    totals: list[int] = []
    for coord in range(4):
        lo, packed, total = 0, 1, 0
        for faces, n in present:
            die_lo, die, die_total = type_sum(faces, coord, kb, n)
            lo += die_lo
            packed *= die
            total += die_total * (den // len(faces) ** n)
        out.append((lo, tuple(unpack(packed, kb))))
        totals.append(total)
    return out, den, totals


def boons_odds(check: BoonsCheck, rules: BoonsRules) -> BoonsOdds:
    """The odds of a check; :func:`boons.build` validates it (it is what ``boons.validate`` runs)."""
    built = build(check, rules)
    (ns, nb, xs, cs), den, sums = side_dists(built.actor, DIE_TYPES, rules)
    outcome = dict.fromkeys(OUTCOMES, 0)
    lo, counts = ns

    win = d_ns = d_nb = None
    total = den
    if built.defender is not None:
        (d_ns, d_nb, _, _), d_den, _ = side_dists(built.defender, OPPOSED_TYPES, rules)
        total = den * d_den
        dlo, dcounts = d_ns
        # Weight of defender totals below each value: cumulative sums.
        below = [0]
        for w in dcounts:
            below.append(below[-1] + w)
        wins = 0
        for i, w in enumerate(counts):
            if not w:
                continue
            a = lo + i
            k = min(max(a - dlo, 0), len(dcounts))  # defender values strictly below a
            beaten = w * below[k]
            wins += beaten
            outcome[band(max(a, rules.success_at), rules)] += beaten
        outcome["failure"] += total - wins
        win = prob(wins, total)
    else:
        # Each band is a run of values: sum its slice.
        edges = [rules.exceptional_at, rules.improved_at, rules.success_at]
        top = len(counts)
        for name, at in zip(("exceptional", "improved", "success"), edges):
            cut = min(max(at - lo, 0), len(counts))
            outcome[name] = sum(counts[cut:top]) if cut < top else 0
            top = min(top, cut)
        outcome["failure"] = sum(counts[:top])

    extended = None
    if check.threshold is not None:
        status = dict.fromkeys(EXTENDED, 0)
        last = check.limit is not None and check.attempts + 1 >= check.limit
        for i, w in enumerate(counts):
            if w:
                if check.progress + max(0, lo + i) >= check.threshold:
                    status["complete"] += w
                else:
                    status["failed" if last else "in_progress"] += w
        extended = chances(status, den, keep_zero=True)

    return BoonsOdds(
        outcome=chances(outcome, total, keep_zero=True),
        pool=built.actor,
        succeeds=prob(total - outcome["failure"], total),
        net_successes=dist_chances(ns, den),
        net_boons=dist_chances(nb, den),
        breakthroughs=dist_chances(xs, den),
        calamities=dist_chances(cs, den),
        breakthrough=prob(dist_at_least(xs, 1), den),
        calamity=prob(dist_at_least(cs, 1), den),
        mean_net_successes=expectation(sums[0], den),
        mean_net_boons=expectation(sums[1], den),
        defender_pool=built.defender,
        win=win,
        defender_net_successes=None if d_ns is None else dist_chances(d_ns, d_den),
        defender_net_boons=None if d_nb is None else dist_chances(d_nb, d_den),
        extended=extended,
    )


