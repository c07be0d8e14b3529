"""Exact arithmetic shared by the odds of every rule set.

Distributions are kept as integer counts over one common denominator (the number of equally likely
ordered rolls), so nothing is rounded until a float is shown. A 1-D distribution over integers is a
``Dist``: ``(lo, counts)`` where ``counts[i]`` is the weight of the value ``lo + i``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from math import comb, gcd
from typing import Protocol, TypeVar

from protocol.v1.base import Probability
from protocol.v1.odds import Chance, Expectation

Dist = tuple[int, tuple[int, ...]]
K = TypeVar("K", bound=str | int)
"""The values of a distribution: outcome names or numbers."""

TABLES: list[Callable[[], None]] = []
"""How to clear the tables shared by every check: combinatorial numbers, per-die-type sums, the Feat
table as bitmasks. They depend on no check, only on the rule set's numbers and the pool size, and are
kept when the answers are forgotten; ``clear_cache(tables=True)`` forgets them too."""


class _Cached(Protocol):
    """A function wrapped by ``lru_cache``: what :func:`table` needs of it."""

    def cache_clear(self) -> None: ...


C = TypeVar("C", bound=_Cached)


def table(fn: C) -> C:
    """Register an ``lru_cache``-wrapped table function (see :data:`TABLES`)."""
    TABLES.append(fn.cache_clear)
    return fn


def prob(num: int, den: int) -> Probability:
    """``num``/``den`` in lowest terms, with its float."""
    if num == 0:
        return Probability(num=0, den=1, p=0.0)
    g = gcd(num, den)
    return Probability(num=num // g, den=den // g, p=num / den)


def expectation(num: int, den: int) -> Expectation:
    g = gcd(num, den) or 1
    return Expectation(num=num // g, den=den // g, value=num / den)


def chances(weights: Mapping[K, int] | Iterable[tuple[K, int]], den: int, keep_zero: bool = False) -> list[Chance]:
    """A distribution as a list of :class:`Chance`, in the given order (zero weights dropped unless kept)."""
    items = weights.items() if isinstance(weights, Mapping) else weights
    return [Chance(v, prob(w, den)) for v, w in items if w or keep_zero]


def dist_chances(d: Dist, den: int) -> list[Chance]:
    lo, counts = d
    # prob() inlined: a pool's distribution can have a hundred values.
    return [Chance(lo + i, Probability(w // (g := gcd(w, den)), den // g, w / den)) for i, w in enumerate(counts) if w]


def dist_at_least(d: Dist, value: int) -> int:
    """Weight of the values at or above ``value``."""
    lo, counts = d
    return sum(counts[max(0, value - lo) :])


def binomial_at_least(n: int, k: int, hit: int, miss: int) -> int:
    """Ordered rolls of ``n`` dice with at least ``k`` of them among ``hit`` faces (``miss`` other faces)."""
    return sum(comb(n, j) * hit**j * miss ** (n - j) for j in range(max(k, 0), n + 1))


# --- packed polynomials ---------------------------------------------------------------------------------
#
# A distribution over 0, 1, 2, … with nonnegative integer weights, none above a known total, packs into
# one Python int: weight i sits in bits [i·K, (i+1)·K). Then a sum of distributions is ``+``, a shift by
# v is ``<< v·K``, scaling is ``*``, and a convolution is one multiplication of two ints, all done in C.
# K is wide enough for the total, so no digit ever carries into the next.


def width(total: int) -> int:
    """Bits per packed weight for weights that never exceed ``total`` (a whole number of bytes)."""
    return (total.bit_length() + 8) // 8 * 8


def unpack(x: int, k: int) -> list[int]:
    """The weights of a packed distribution, lowest value first (trailing zeros dropped)."""
    if not x:
        return []
    step = k // 8
    raw = x.to_bytes((x.bit_length() + 7) // 8 + step, "little")
    n = (x.bit_length() + k - 1) // k
    return [int.from_bytes(raw[i * step : (i + 1) * step], "little") for i in range(n)]
