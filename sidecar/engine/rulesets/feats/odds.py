"""Exact odds of a `feats` check over the 512 ordered rolls of 3d8 (bought dice fixed at 8).

Each face of each die is turned into two bitmasks over the rows of the Feat table: the rows where the
die is unlisted or the face counts (for rows where every listed die must count), and the rows where
the face counts (for rows where one counting die suffices). A roll satisfies the rows
``(W_all & R_all & B_all & ALL) | ((W_any | R_any | B_any) & ANY)``, where ``ALL`` are the rows above
level 0 and ``ANY`` the others. Faces with the same masks are
grouped, so only the distinct combinations are visited, each weighted by how many rolls share it.
The rolls per set of satisfied rows depend only on the table and the bought dice, so they are kept per
rule set; a check then reads its own row and degrees from them.
"""

from __future__ import annotations

from functools import lru_cache

from protocol.v1.feats import FeatsCheck
from protocol.v1.odds import Chance, FeatsOdds

from .rules import DICE, FeatsRules, bought_dice, feat_level
from ...odds_core import chances, expectation, prob, table

OUTCOMES = ("success", "failure")


class _Table:
    """The Feat table as bitmasks: per die and face, the rows it satisfies (highest level first)."""

    def __init__(self, rules: FeatsRules) -> None:
        rows = sorted(rules.table, key=lambda row: -row.level)
        self.rules = rules
        self.levels = [row.level for row in rows]
        faces = range(1, rules.sides + 1)
        n = len(DICE)
        a = [dict.fromkeys(faces, 0) for _ in range(n)]
        o = [dict.fromkeys(faces, 0) for _ in range(n)]
        self.all_rows = self.any_rows = 0
        for i, row in enumerate(rows):
            bit = 1 << i
            if row.level > rules.all_dice_above:
                self.all_rows |= bit
            else:
                self.any_rows |= bit
            for d, counting in enumerate((row.white, row.red, row.blue)):
                # An unlisted die never blocks an all-dice row and never satisfies an any-die row.
                for f in counting or faces:
                    if f in a[d]:
                        a[d][f] |= bit
                for f in counting:
                    if f in o[d]:
                        o[d][f] |= bit
        self.a, self.o = a, o
        self._masks: dict[tuple[int, ...], tuple[dict[int, int], int]] = {}

    def classes(self, die: int, bought: bool) -> list[tuple[int, int, int]]:
        """(all-rows mask, any-rows mask, number of faces) for the distinct faces of one die."""
        seen: dict[tuple[int, int], int] = {}
        for f in [self.rules.bought_face] if bought else self.a[die]:
            key = (self.a[die][f] & self.all_rows, self.o[die][f] & self.any_rows)
            seen[key] = seen.get(key, 0) + 1
        return [(x, y, k) for (x, y), k in seen.items()]

    def mask_counts(self, bought: tuple[int, ...]) -> tuple[dict[int, int], int]:
        """Rolls per set of satisfied rows (a bitmask), and the number of rolls (kept per bought dice)."""
        known = self._masks.get(bought)
        if known is None:
            known = self._masks[bought] = self._mask_counts(bought)
        return known

    def _mask_counts(self, bought: tuple[int, ...]) -> tuple[dict[int, int], int]:
        w, r, b = (self.classes(d, d in bought) for d in range(len(DICE)))
        out: dict[int, int] = {}
        for wa, wo, wn in w:
            for ra, ro, rn in r:
                a2, o2, n2 = wa & ra, wo | ro, wn * rn
                for ba, bo, bn in b:
                    m = (a2 & ba) | o2 | bo
                    out[m] = out.get(m, 0) + n2 * bn
        return out, self.rules.sides ** (len(DICE) - len(bought))

    def wins(self, level: int, bought: tuple[int, ...]) -> tuple[int, int]:
        masks, den = self.mask_counts(bought)
        own = 1 << self.levels.index(level)
        return sum(w for m, w in masks.items() if m & own), den

    def read(self, level: int, bought: tuple[int, ...]) -> tuple[int, dict[int, int], int]:
        """(successful rolls, rolls per degree, number of rolls) at a rollable level."""
        masks, den = self.mask_counts(bought)
        levels = self.levels
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


@table
@lru_cache(maxsize=16)
def _table(rules: FeatsRules) -> _Table:
    """The bitmask table of a rule set's Feat table, shared by every check under it."""
    return _Table(rules)


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
    table = _table(rules)
    wins, degree, den = table.read(level, bought)
    by_wyrd = []
    for n in range(len(DICE) + 1):
        # Buying n 8s, first die first (the default order).
        w, d = (wins, den) if bought == tuple(range(n)) else table.wins(level, tuple(range(n)))
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
