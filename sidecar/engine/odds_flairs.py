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

from .flairs import FlairsRules, is_desperate, lurking_count, pool_of
from .odds_core import Dist, cached, chances, convolve, expectation, prob

OUTCOMES = ("triumph", "conflict", "success", "failure")


@cached
@lru_cache(maxsize=None)
def surjections(r: int, j: int) -> int:
    """Ordered rolls of ``r`` dice onto ``j`` given faces using every one of them (``j! S(r, j)``)."""
    return sum((-1) ** i * comb(j, i) * (j - i) ** r for i in range(j + 1))


@cached
@lru_cache(maxsize=4096)
def repeats(q: int, r: int) -> Dist | None:
    """Ordered rolls of ``r`` dice over ``q`` faces, by ``r`` − (distinct faces shown). None: impossible."""
    if r == 0:
        return 0, (1,)
    if q == 0:
        return None
    top = min(q, r)
    # value r - j for j = top … 1, ascending in value.
    return r - top, tuple(comb(q, j) * surjections(r, j) for j in range(top, 0, -1))


def _outcome(h: int, simple: bool, r: FlairsRules) -> str:
    if simple:
        return "success" if h >= r.simple_success_face else "failure"
    if h >= r.triumph_face:
        return "triumph"
    if h >= r.conflict_face:
        return "conflict"
    return "failure"


def _add(acc: dict[int, int], d: Dist, scale: int, shift: int = 0) -> None:
    lo, counts = d
    for i, w in enumerate(counts):
        if w:
            acc[lo + i + shift] = acc.get(lo + i + shift, 0) + w * scale


def _total(d: Dist) -> int:
    return sum(d[1])


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
    acc = _Acc()
    for h in range(1, s + 1):
        o = _outcome(h, simple, r)
        fails = o == "failure"
        for a in range(0, c + 1):
            up = repeats(s - h, a)
            if up is None:
                continue
            tainted_h = a < c
            for k in range(max(1, c - a + 1), n - a + 1):
                rest = n - a - k
                down = repeats(h - 1, rest)
                if down is None:
                    continue
                place = comb(n, a) * comb(n - a, k)
                w_up, w_down = _total(up), _total(down)
                weight = place * w_up * w_down
                acc.outcome[o] += weight
                acc.highest[h] = acc.highest.get(h, 0) + weight
                if simple:
                    continue
                g = k - 1
                t_shift, u_shift = (g, 0) if tainted_h else (0, g)
                _add(acc.tainted, up, place * w_down, t_shift)
                if fails:
                    _add(acc.trials, convolve(up, down), place, t_shift + u_shift)
                    acc.flairs[0] = acc.flairs.get(0, 0) + weight
                else:
                    _add(acc.trials, up, place * w_down, t_shift)
                    _add(acc.flairs, down, place * w_up, u_shift)
    if simple:
        den = s**n
        acc.flairs = {0: den}
        acc.trials = {0: den}
        acc.tainted = {0: den}
    return acc, s**n


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
        o = _outcome(low, simple, r)
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

    def needed(successes: int) -> bool:
        return successes * r.group_success_den >= r.group_success_num * n

    def successes_dist(members: list[int], floor: int) -> list[int]:
        """Weights by number of successes among ``members``, each reading ``floor`` or more."""
        dist = [1]
        for i in members:
            dies, _ = reads[i]
            yes = sum(w for v, w in dies.items() if v >= max(ok_face, floor))
            no = sum(w for v, w in dies.items() if floor <= v < ok_face)
            nxt = [0] * (len(dist) + 1)
            for k, w in enumerate(dist):
                nxt[k] += w * no
                nxt[k + 1] += w * yes
            dist = nxt
        return dist

    den = 1
    for _, d in reads:
        den *= d
    everyone = successes_dist(list(range(n)), 1)
    wins = sum(w for k, w in enumerate(everyone) if needed(k))
    participants = []
    for p, (dies, d) in zip(parts, reads):
        participants.append(Chance(value=p.name, chance=prob(sum(w for v, w in dies.items() if v >= ok_face), d)))
    springs = None
    if check.trap:
        springs = []
        for i, p in enumerate(parts):
            others = [j for j in range(n) if j != i]
            w_i = 0
            for v, w in reads[i][0].items():
                # Participant i reads v and every other reads v or more: i is among the lowest.
                dist = successes_dist(others, v)
                own = 1 if v >= ok_face else 0
                w_i += w * sum(x for k, x in enumerate(dist) if not needed(k + own))
            springs.append(Chance(value=p.name, chance=prob(w_i, den)))
    zero = {0: den}
    return FlairsOdds(
        outcome=chances({"triumph": 0, "conflict": 0, "success": wins, "failure": den - wins}, den, keep_zero=True),
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
    extra = (rules.darkness_trials if check.darkness else 0) + lurking_count(check)
    trials = {t + extra: w for t, w in acc.trials.items()}
    o = acc.outcome
    return FlairsOdds(
        outcome=chances(o, den, keep_zero=True),
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
