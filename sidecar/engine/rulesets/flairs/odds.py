"""Exact odds of a `flairs` check, by multinomial counts over d6 multisets.

A pool of ``n`` dice with ``c`` cuts (``c < n``) is read by its ``(c+1)``-th highest die ``h``. Sort the
dice from the highest: ``a`` dice above ``h`` (all removed by cuts, so ``a <= c``), ``k`` dice showing
``h`` (the read die among them: ``a <= c <= a + k - 1``), and ``r = n - a - k`` dice below ``h``.
Every group of equal dice above ``h`` lost a die to a cut (tainted); the group of ``h`` is tainted when
``a < c``; the groups below are untainted. A group of ``k`` equal dice gives ``k - 1``, so the dice
above ``h`` give ``a - j`` where ``j`` is how many distinct faces they show: the ordered rolls of ``a``
dice over ``q`` faces showing exactly ``j`` of them number ``C(q, j) · j! · S(a, j)`` (``S`` the Stirling
numbers of the second kind). Likewise below ``h``. With ``C(n, a) · C(n - a, k)`` ways to place the
three parts in the ordered roll, each ``(h, a, k)`` is a product of two small distributions: tainted
(``T``) above and untainted (``U``) below. A success earns ``U`` flairs and ``T`` trials; a failure
``T + U`` trials (a convolution).

The distributions are packed integers (see odds_core), so sums, shifts and convolutions are single
integer operations, and the sum over ``k`` is mostly closed: ``((1 << K) + h - 1)^m`` holds every
``C(m, k) (h-1)^(m-k)`` at digit ``k``, and when the read die heads its group (``a = c``) the ``m``
dice at or below ``h`` give ``U = m − distinct``, the difference of two repeat counts.

A desperate roll (2d6, the lowest kept) is read by its lowest die and every pair is tainted; its few
multisets are visited directly. A group check multiplies the participants' simple checks (each read by
its ``(c+1)``-th highest die, or lowest of a desperate roll) into the distribution of successes.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement
from math import comb, factorial

from protocol.v1.flairs import FlairsCheck, FlairsParticipant
from protocol.v1.odds import Chance, Expectation, FlairsOdds

from ...odds_core import TABLES, chances, expectation, prob, table, unpack, width
from .rules import FlairsRules, is_desperate, lurking_count, outcome_of, pool_of

OUTCOMES = ("triumph", "conflict", "success", "failure")
FULL = ("triumph", "conflict", "failure")
SIMPLE = ("success", "failure")
"""The outcomes a full check, and a simple or group check, can have, best first."""


_SURJECTIONS: list[list[int]] = [[1]]
"""Row r: the ordered rolls of r dice onto j given faces using every one of them (j! S(r, j)), j = 0 … r."""
TABLES.append(lambda: _SURJECTIONS.__delitem__(slice(1, None)))


def surjection_row(r: int) -> list[int]:
    """``j! S(r, j)`` for j = 0 … r, grown row by row: onto j faces, the last die shows one of the j and
    the others cover all j, or all but the one it shows."""
    rows = _SURJECTIONS
    while len(rows) <= r:
        prev = rows[-1] + [0]
        rows.append([0] + [j * (prev[j - 1] + prev[j]) for j in range(1, len(prev))])
    return rows[r]


@table
@lru_cache(maxsize=4096)
def repeats(q: int, r: int, k: int) -> int:
    """Ordered rolls of ``r`` dice over ``q`` faces by ``r`` − (distinct faces shown), packed ``k`` bits a weight.

    0 when no roll is possible (dice but no faces)."""
    if not r:
        return 1
    row = surjection_row(r)
    return sum(comb(q, j) * row[j] << (k * (r - j)) for j in range(1, min(q, r) + 1))


class _Acc:
    """Weights of the read die, outcome, flairs, pair trials and tainted trials."""

    def __init__(self) -> None:
        self.outcome: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
        self.highest: dict[int, int] = {}
        self.flairs: dict[int, int] = {}
        self.trials: dict[int, int] = {}
        self.tainted: dict[int, int] = {}


def _pool(n: int, c: int, simple: bool, r: FlairsRules) -> tuple[_Acc, int]:
    s = r.sides
    den = s**n
    acc = _Acc()
    kb = width(den)
    digit_sum = (1 << kb) - 1
    # Packed distributions (see odds_core): flairs and trials of successes, trials of failures, tainted.
    flairs = trials = fail_trials = tainted = 0
    for h in range(1, s + 1):
        o = outcome_of(h, simple, r)
        fails = o == "failure"
        # The repeats of 0 … n - c - 1 dice below h, shared by every a < c.
        below_h = [repeats(h - 1, rest, kb) for rest in range(n - c)] if c and not fails and not simple else []
        for a in range(0, min(c, n - 1) + 1):
            up = repeats(s - h, a, kb)  # the a dice above h: T = a - distinct
            if not up:
                continue
            w_up = (s - h) ** a
            m = n - a
            place = comb(n, a)
            if a == c:
                # The read die is the highest of h's group, which lost nothing: untainted. The m dice
                # at or below h (h among them) give U = m - distinct.
                down = repeats(h, m, kb) - repeats(h - 1, m, kb)
                w_down = h**m - (h - 1) ** m
                weight = place * w_up * w_down
                if not simple:
                    t_part = up * (place * w_down)
                    tainted += t_part
                    if fails:
                        fail_trials += up * down * place
                    else:
                        trials += t_part
                        flairs += down * (place * w_up)
            else:
                # h's group also holds removed dice: tainted, giving k - 1 to T; the m - k dice below
                # h give U. k runs from k0 = c - a + 1 (the read die is in the group) to m, so the dice
                # below h number 0 … n - c - 1 whatever a is.
                k0 = c - a + 1
                # Digit k of ((1 << kb) + h - 1)^m is C(m, k) (h-1)^(m-k): k dice on h, the rest below.
                tail = ((1 << kb) + h - 1) ** m >> (kb * k0)
                w_down = tail % digit_sum  # the sum of its digits (no digit carries, see width)
                weight = place * w_up * w_down
                if not simple:
                    t_part = up * (tail << (kb * (k0 - 1))) * place
                    tainted += t_part
                    if fails:
                        # Over every k: sum C(m,k) z^k R_{h-1}(m-k) = z (R_h(m) - R_{h-1}(m)) + R_{h-1}(m),
                        # since the dice on h add k - 1 to the repeats when k > 0. Then drop k < k0.
                        below = repeats(h - 1, m, kb)
                        ptu = ((repeats(h, m, kb) - below) << kb) + below
                        for k in range(k0):
                            ptu -= comb(m, k) * repeats(h - 1, m - k, kb) << (kb * k)
                        fail_trials += up * (ptu >> kb) * place
                    else:
                        trials += t_part
                        pu = 0
                        for rest, rep in enumerate(below_h):
                            pu += comb(m, rest) * rep
                        flairs += pu * (place * w_up)
            acc.outcome[o] += weight
            acc.highest[h] = acc.highest.get(h, 0) + weight
    if simple:
        acc.flairs = acc.trials = acc.tainted = {0: den}
    else:
        failed = acc.outcome["failure"]
        acc.flairs = _unpacked(flairs, kb)
        acc.flairs[0] = acc.flairs.get(0, 0) + failed
        acc.trials = _unpacked(trials + fail_trials, kb)
        acc.tainted = _unpacked(tainted, kb)
    return acc, den


def _unpacked(x: int, kb: int) -> dict[int, int]:
    return {v: w for v, w in enumerate(unpack(x, kb)) if w}


def _desperate(d: int, simple: bool, r: FlairsRules) -> tuple[_Acc, int]:
    s = r.sides
    acc = _Acc()
    for combo in combinations_with_replacement(range(1, s + 1), d):
        counts: dict[int, int] = {}
        for f in combo:
            counts[f] = counts.get(f, 0) + 1
        w = factorial(d)
        for m in counts.values():
            w //= factorial(m)
        low = combo[0]
        o = outcome_of(low, simple, r)
        acc.outcome[o] += w
        acc.highest[low] = acc.highest.get(low, 0) + w
        pairs = 0 if simple else d - len(counts)  # every pair of a desperate roll is tainted
        acc.flairs[0] = acc.flairs.get(0, 0) + w
        acc.trials[pairs] = acc.trials.get(pairs, 0) + w
        acc.tainted[pairs] = acc.tainted.get(pairs, 0) + w
    return acc, s**d


def read_die(p: FlairsParticipant | FlairsCheck, r: FlairsRules) -> tuple[dict[int, int], int]:
    """Ordered rolls per read die (the highest kept, or the lowest of a desperate roll), and their number."""
    s = r.sides
    if is_desperate(p.rank, p.edges, p.cuts):
        d = r.desperate_dice
        at_least = [max(s - v + 1, 0) ** d for v in range(s + 2)]
        return {v: at_least[v] - at_least[v + 1] for v in range(1, s + 1)}, s**d
    n, c = pool_of(p.rank, p.edges), p.cuts
    # At most c dice above v: the (c+1)-th highest is v or less.
    at_most = [sum(comb(n, j) * (s - v) ** j * v ** (n - j) for j in range(c + 1)) for v in range(s + 1)]
    return {v: at_most[v] - at_most[v - 1] for v in range(1, s + 1)}, s**n


def _group(check: FlairsCheck, r: FlairsRules) -> FlairsOdds:
    parts = check.group or []
    reads = [read_die(p, r) for p in parts]
    ok_face = r.simple_success_face
    n = len(parts)

    den = 1
    for _, d in reads:
        den *= d
    kb = width(den)
    digit_sum = (1 << kb) - 1
    # The group succeeds with k successes when k * den_r >= num * n: k_min or more.
    k_min = -(-r.group_success_num * n // r.group_success_den)
    s = r.sides
    # ge[j][v]: participant j's rolls reading v or more.
    ge = []
    for dies, _ in reads:
        row = [0] * (s + 2)
        for v in range(s, 0, -1):
            row[v] = row[v + 1] + dies.get(v, 0)
        ge.append(row)

    def polys(floor: int) -> list[int]:
        """Per participant reading ``floor`` or more: failures + successes·z, packed."""
        ok = max(ok_face, floor)
        return [(g[floor] - g[ok]) + (g[ok] << kb) for g in ge]

    def failing(packed: int, below: int) -> int:
        """The weight of fewer than ``below`` successes: the sum of the low digits."""
        if below <= 0:
            return 0
        return (packed & ((1 << (kb * below)) - 1)) % digit_sum

    everyone = 1
    for poly in polys(1):
        everyone *= poly
    wins = den - failing(everyone, k_min)
    participants = [Chance(value=p.name, chance=prob(g[ok_face], d)) for p, g, (_, d) in zip(parts, ge, reads)]
    springs = None
    if check.trap:
        # Participant i springs the trap when the group fails and i reads v with every other reading v
        # or more (all tied lowest are named). Products of the others come from prefix and suffix products.
        weights = [0] * n
        for v in range(1, s + 1):
            ps = polys(v)
            prefix = [1]
            for poly in ps:
                prefix.append(prefix[-1] * poly)
            suffix = [1] * (n + 1)
            for j in range(n - 1, -1, -1):
                suffix[j] = suffix[j + 1] * ps[j]
            own = 1 if v >= ok_face else 0
            for i, (dies, _) in enumerate(reads):
                w = dies.get(v, 0)
                if w:
                    weights[i] += w * failing(prefix[i] * suffix[i + 1], k_min - own)
        springs = [Chance(value=p.name, chance=prob(w, den)) for p, w in zip(parts, weights)]
    zero = {0: den}
    return FlairsOdds(
        outcome=chances({"success": wins, "failure": den - wins}, den, keep_zero=True),
        rolled=sum(_count(p, r) for p in parts),
        desperate=False,
        succeeds=prob(wins, den),
        highest=[],
        flairs=chances(zero, den),
        trials=chances(zero, den),
        tainted=chances(zero, den),
        mean_flairs=expectation(0, 1),
        mean_trials=expectation(0, 1),
        extra_trials=0,
        group=prob(wins, den),
        participants=participants,
        springs=springs,
    )


def _count(p: FlairsParticipant | FlairsCheck, r: FlairsRules) -> int:
    return r.desperate_dice if is_desperate(p.rank, p.edges, p.cuts) else pool_of(p.rank, p.edges)


def _sorted(d: dict[int, int]) -> list[tuple[int, int]]:
    return sorted(d.items())


def flairs_odds(check: FlairsCheck, rules: FlairsRules) -> FlairsOdds:
    if check.group is not None:
        return _group(check, rules)
    desperate = is_desperate(check.rank, check.edges, check.cuts)
    n = _count(check, rules)
    if desperate:
        acc, den = _desperate(n, check.simple, rules)
    else:
        acc, den = _pool(n, check.cuts, check.simple, rules)
    extra = (rules.darkness_trials if check.darkness and not check.simple else 0) + lurking_count(check)
    trials = {t + extra: w for t, w in acc.trials.items()}
    o = acc.outcome
    return FlairsOdds(
        outcome=chances([(k, o[k]) for k in (SIMPLE if check.simple else FULL)], den, keep_zero=True),
        rolled=n,
        desperate=desperate,
        succeeds=prob(den - o["failure"], den),
        highest=chances(_sorted(acc.highest), den),
        flairs=chances(_sorted(acc.flairs), den),
        trials=chances(_sorted(trials), den),
        tainted=chances(_sorted(acc.tainted), den),
        mean_flairs=_mean(acc.flairs, den),
        mean_trials=_mean(trials, den),
        extra_trials=extra,
    )


def _mean(d: dict[int, int], den: int) -> Expectation:
    return expectation(sum(v * w for v, w in d.items()), den)
