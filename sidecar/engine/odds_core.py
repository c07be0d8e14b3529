"""Exact arithmetic shared by the odds of every rule set.

Distributions are kept as integer counts over one common denominator (the number of equally likely
ordered rolls), so nothing is rounded until a float is shown. A 1-D distribution over integers is a
``Dist``: ``(lo, counts)`` where ``counts[i]`` is the weight of the value ``lo + i``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from math import comb, gcd

from protocol.v1.base import Probability
from protocol.v1.odds import Chance, Expectation

Dist = tuple[int, tuple[int, ...]]

ZERO = Probability(num=0, den=1, p=0.0)

CACHES: list = []
"""Inner caches (``functools.lru_cache`` functions) that :func:`sidecar.engine.odds.clear_cache` clears."""


def cached(fn):  # type: ignore[no-untyped-def]
    """Register an ``lru_cache``-wrapped function so that cold odds can be measured."""
    CACHES.append(fn)
    return fn


def prob(num: int, den: int) -> Probability:
    """``num``/``den`` in lowest terms, with its float."""
    if num == 0:
        return ZERO
    g = gcd(num, den)
    return Probability(num=num // g, den=den // g, p=num / den)


def expectation(num: int, den: int) -> Expectation:
    g = gcd(num, den) or 1
    return Expectation(num=num // g, den=den // g, value=num / den)


def chances(weights: Mapping[str | int, int] | Iterable[tuple[str | int, int]], den: int, keep_zero: bool = False) -> list[Chance]:
    """A distribution as a list of :class:`Chance`, in the given order (zero weights dropped unless kept)."""
    items = weights.items() if isinstance(weights, Mapping) else weights
    return [Chance(value=v, chance=prob(w, den)) for v, w in items if w or keep_zero]


def dist_chances(d: Dist, den: int) -> list[Chance]:
    lo, counts = d
    return [Chance(value=lo + i, chance=prob(w, den)) for i, w in enumerate(counts) if w]


def dist_mean(d: Dist, den: int) -> Expectation:
    lo, counts = d
    return expectation(sum((lo + i) * w for i, w in enumerate(counts)), den)


def dist_at_least(d: Dist, value: int) -> int:
    """Weight of the values at or above ``value``."""
    lo, counts = d
    return sum(counts[max(0, value - lo):])


def convolve(a: Dist, b: Dist) -> Dist:
    """The distribution of the sum of two independent integer variables."""
    alo, ac = a
    blo, bc = b
    out = [0] * (len(ac) + len(bc) - 1)
    for i, x in enumerate(ac):
        if x:
            for j, y in enumerate(bc):
                if y:
                    out[i + j] += x * y
    return alo + blo, tuple(out)


def power(d: Dist, n: int) -> Dist:
    """The sum of ``n`` independent copies (by squaring: O(log n) convolutions)."""
    result: Dist = (0, (1,))
    while n:
        if n & 1:
            result = convolve(result, d)
        n >>= 1
        if n:
            d = convolve(d, d)
    return result


def from_values(values: Iterable[int]) -> Dist:
    """The distribution of one die whose faces read ``values`` (each face weight 1)."""
    values = list(values)
    lo = min(values)
    counts = [0] * (max(values) - lo + 1)
    for v in values:
        counts[v - lo] += 1
    return lo, tuple(counts)


def binomial_at_least(n: int, k: int, hit: int, miss: int) -> int:
    """Ordered rolls of ``n`` dice with at least ``k`` of them among ``hit`` faces (``miss`` other faces)."""
    return sum(comb(n, j) * hit**j * miss ** (n - j) for j in range(max(k, 0), n + 1))
