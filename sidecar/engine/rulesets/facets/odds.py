"""Exact odds of a `facets` check, in closed form.

With ``s`` sides, success face ``S`` and costly face ``C`` (a normal pool of ``n`` dice, read by its
highest die), counting ordered rolls:

- highest below ``C`` (failure): ``(C-1)^n``; of those, a catastrophe has at least ``K`` ones:
  ``sum_{j>=K} C(n,j) (C-2)^(n-j)``;
- highest in ``C..S-1`` (costly success): ``(S-1)^n - (C-1)^n``;
- highest ``S`` or more: ``s^n - (S-1)^n``; a triumph has at least ``T`` dice at ``S`` or more:
  ``sum_{j>=T} C(n,j) (s-S+1)^j (S-1)^(n-j)``.

A desperate roll (``d`` dice, the lowest kept, never a triumph) reads the lowest die: at least ``S`` on
every die is a success, at least ``C`` a costly success, and a failure with ``K`` ones or more a
catastrophe.
"""

from __future__ import annotations

from protocol.v1.facets import FacetsCheck
from protocol.v1.odds import FacetsOdds

from .rules import CONFLICT_KINDS, HARM_IN_CONFLICT, MYSTICAL_DISCORD, FacetsRules, effective_pool, sizes
from ...odds_core import binomial_at_least, chances, prob

OUTCOMES = ("triumph", "success", "costly_success", "failure", "catastrophe")
HARMS = ("wound", "condition", "scratch")


def outcome_counts(n: int, desperate: bool, r: FacetsRules) -> tuple[dict[str, int], dict[int, int], int]:
    """Ordered rolls per outcome and per read die, and the number of ordered rolls."""
    s, S, C, K, T = r.sides, r.success_face, r.costly_face, r.catastrophe_count, r.triumph_count
    den = s**n
    counts = dict.fromkeys(OUTCOMES, 0)
    if desperate:
        # The lowest die is read: rolls with every die at v or more number (s - v + 1)^n.
        at_least = [max(s - v + 1, 0) ** n for v in range(s + 2)]
        read = {v: at_least[v] - at_least[v + 1] for v in range(1, s + 1)}
        counts["success"] = at_least[S]
        counts["costly_success"] = at_least[C] - at_least[S]
        failures = den - at_least[C]
        if C <= 1:
            cat = 0
        elif K >= 1:
            # Any 1 makes the lowest die 1, which is below C: every roll with K ones fails.
            cat = binomial_at_least(n, K, 1, s - 1)
        else:
            cat = failures
    else:
        # Rolls whose highest die is below v number (v - 1)^n.
        below = [max(v - 1, 0) ** n for v in range(s + 2)]
        read = {v: below[v + 1] - below[v] for v in range(1, s + 1)}
        tri = binomial_at_least(n, max(T, 1), s - S + 1, S - 1)
        counts["triumph"] = tri
        counts["success"] = den - below[S] - tri
        counts["costly_success"] = below[S] - below[C]
        failures = below[C]
        cat = binomial_at_least(n, K, 1, C - 2) if C >= 2 else 0
    counts["catastrophe"] = cat
    counts["failure"] = failures - cat
    return counts, read, den


def facets_odds(check: FacetsCheck, rules: FacetsRules) -> FacetsOdds:
    pool = effective_pool(check)
    desperate = pool <= 0
    n = len(sizes(check, rules))
    counts, read, den = outcome_counts(n, desperate, rules)

    harm_opp: dict[str, int] = {}
    harm_char: dict[str, int] = {}
    discord: dict[str, int] = {}
    if check.kind in CONFLICT_KINDS:
        harm_opp = dict.fromkeys(HARMS, 0)
        harm_char = dict.fromkeys(HARMS, 0)
        for o, w in counts.items():
            for h in HARM_IN_CONFLICT[o].opponent:
                harm_opp[h] += w
            for h in HARM_IN_CONFLICT[o].character:
                harm_char[h] += w
    elif check.kind == "mystical":
        discord = {d: counts[o] for o, d in MYSTICAL_DISCORD.items()}

    return FacetsOdds(
        outcome=chances(counts, den, keep_zero=True),
        pool=pool,
        desperate=desperate,
        rolled=n,
        highest=chances(read, den),
        succeeds=prob(counts["triumph"] + counts["success"] + counts["costly_success"], den),
        harm_opponent=chances(harm_opp, den, keep_zero=True),
        harm_character=chances(harm_char, den, keep_zero=True),
        discord=chances(discord, den, keep_zero=True),
        facet=chances({"beneficial": counts["triumph"], "detrimental": counts["catastrophe"]}, den, keep_zero=True),
        cost=prob(counts["costly_success"], den),
    )
