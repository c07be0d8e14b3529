"""Exact odds of a `feats` check over the 512 ordered rolls of 3d8 (bought dice fixed at 8).

Each face of each die is turned into two bitmasks over the rows of the Feat table: the rows where the
die is unlisted or the face counts (for rows where every listed die must count), and the rows where
the face counts (for rows where one counting die suffices). A roll satisfies the rows
``(W_all & R_all & B_all & ALL) | ((W_any | R_any | B_any) & ANY)``. Faces with the same masks are
grouped, so only the distinct combinations are visited, each weighted by how many rolls share it.
"""

from __future__ import annotations

from protocol.v1.feats import FeatsCheck
from protocol.v1.odds import Chance, FeatsOdds

from .feats import DICE, FeatsRules, bought_dice, feat_level
from .odds_core import chances, expectation, prob

OUTCOMES = ("success", "failure")


def _rows(rules: FeatsRules) -> list:  # type: ignore[type-arg]
    """The table's rows, highest level first: bit ``i`` of a mask is the ``i``-th highest level."""
    return sorted(rules.table, key=lambda row: -row.level)


def _classes(rows: list, rules: FeatsRules, die: int, bought: bool) -> list[tuple[int, int, int]]:  # type: ignore[type-arg]
    """(all-rows mask, any-rows mask, number of faces) for one die."""
    faces = [rules.bought_face] if bought else range(1, rules.sides + 1)
    seen: dict[tuple[int, int], int] = {}
    for f in faces:
        a = o = 0
        for i, row in enumerate(rows):
            counting = row.faces()[die]
            if not counting or f in counting:
                a |= 1 << i
            if f in counting:
                o |= 1 << i
        seen[(a, o)] = seen.get((a, o), 0) + 1
    return [(a, o, n) for (a, o), n in seen.items()]


def mask_counts(rules: FeatsRules, bought: tuple[int, ...]) -> tuple[dict[int, int], int]:
    """Rolls per set of satisfied rows (a bitmask over the rows, highest level first), and the number of rolls."""
    rows = _rows(rules)
    all_rows = any_rows = 0
    for i, row in enumerate(rows):
        if row.level > rules.all_dice_above:
            all_rows |= 1 << i
        else:
            any_rows |= 1 << i
    w, r, b = (_classes(rows, rules, d, d in bought) for d in range(len(DICE)))
    out: dict[int, int] = {}
    for wa, wo, wn in w:
        for ra, ro, rn in r:
            a2, o2, n2 = wa & ra & all_rows, (wo | ro) & any_rows, wn * rn
            for ba, bo, bn in b:
                m = (a2 & ba) | (o2 | (bo & any_rows))
                out[m] = out.get(m, 0) + n2 * bn
    den = rules.sides ** (len(DICE) - len(bought))
    return out, den


def _wins(rules: FeatsRules, level: int, bought: tuple[int, ...]) -> tuple[int, int]:
    masks, den = mask_counts(rules, bought)
    own = 1 << [row.level for row in _rows(rules)].index(level)
    return sum(w for m, w in masks.items() if m & own), den


def _read(rules: FeatsRules, level: int, bought: tuple[int, ...]) -> tuple[int, dict[int, int], int]:
    """(successful rolls, rolls per degree, number of rolls) at a rollable level."""
    masks, den = mask_counts(rules, bought)
    levels = [row.level for row in _rows(rules)]
    full = (1 << len(levels)) - 1
    own = 1 << levels.index(level)
    wins = 0
    degree: dict[int, int] = {}
    for m, w in masks.items():
        if m & own:
            wins += w
            # The highest level satisfied: the lowest set bit.
            d = levels[(m & -m).bit_length() - 1] - level
        else:
            # The lowest level failed: the highest unset bit.
            d = levels[(~m & full).bit_length() - 1] - level
        degree[d] = degree.get(d, 0) + w
    return wins, degree, den


def feats_odds(check: FeatsCheck, rules: FeatsRules) -> FeatsOdds:
    level = feat_level(check)
    levels = [row.level for row in rules.table]
    bought = tuple(bought_dice(check))
    if level < min(levels) or level > max(levels):
        # Below the table: succeeds without a roll. Above it: only the Wyrd feat (validated), no roll.
        cost = rules.wyrd_feat_cost if level > max(levels) else 0
        return FeatsOdds(
            outcome=chances({"success": 1, "failure": 0}, 1, keep_zero=True),
            level=level,
            automatic=True,
            degree=chances({0: 1}, 1),
            mean_degree=expectation(0, 1),
            bought=0,
            cost=cost,
            by_wyrd=[],
        )
    wins, degree, den = _read(rules, level, bought)
    by_wyrd = []
    for n in range(len(DICE) + 1):
        # Buying n 8s, first die first (the default order).
        w, d = (wins, den) if bought == tuple(range(n)) else _wins(rules, level, tuple(range(n)))
        by_wyrd.append((n, w, d))
    return FeatsOdds(
        outcome=chances({"success": wins, "failure": den - wins}, den, keep_zero=True),
        level=level,
        automatic=False,
        degree=chances(sorted(degree.items()), den),
        mean_degree=expectation(sum(d * w for d, w in degree.items()), den),
        bought=len(bought),
        cost=rules.wyrd_cost * len(bought),
        by_wyrd=[Chance(value=n, chance=prob(w, d)) for n, w, d in by_wyrd],
    )
