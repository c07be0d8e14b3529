"""`feats` (docs/rules/feats.md): 3d8 in a fixed order read against the Feat table.

The Feat level is difficulty − ability, or the opponent's ability/skill − the actor's, or given
directly. Three d8 are rolled in a fixed order (white, red, blue) and read against the table row of
that level: above level 0 every listed die must show a counting face, at 0 and below any listed die
showing one succeeds. The chance at +n is 2^−(n+1), at −n it is 1 − 2^−(n+1).

Degree: the roll is read against every row; ``best_level`` is the highest level it satisfies,
``worst_level`` the lowest it fails; the degree is best_level − level on a success and
worst_level − level on a failure.

Wyrd Points: each 8 bought costs 5 WP and sets a die to 8 without rolling it (default first die
first). A level above +8 is achieved only by spending 20 WP (no dice are rolled); a level below −8
succeeds without a roll.

Supplied faces (``check.dice``) are the faces of the dice actually rolled, the unbought ones, in
order white, red, blue: exactly what :func:`roll` returns and :func:`sizes` asks for. All three faces
as they lie on the table are read too, the bought dice showing the 8 they were set to; any other face
in a bought place is refused (``bought_dice_supplied``): a bought die is never rolled.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from protocol.v1.feats import FeatsCheck, FeatsDie, FeatsResult

from ...compiled import PerRules
from ...dice import Dice, check_faces
from ...errors import CheckError, DiceError, ErrorCode


class FeatRow(msgspec.Struct, frozen=True):
    """One row of the Feat table: the counting ("green") faces of each die; empty = the die is not listed."""

    level: int
    white: tuple[int, ...] = ()
    red: tuple[int, ...] = ()
    blue: tuple[int, ...] = ()

    def faces(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        return (self.white, self.red, self.blue)


def _f(low: int) -> tuple[int, ...]:
    """The faces ``low``–8."""
    return tuple(range(low, 9))


DEFAULT_TABLE: tuple[FeatRow, ...] = (
    FeatRow(8, _f(8), _f(8), _f(8)),
    FeatRow(7, _f(8), _f(8), _f(7)),
    FeatRow(6, _f(8), _f(7), _f(7)),
    FeatRow(5, _f(8), _f(8)),
    FeatRow(4, _f(8), _f(7)),
    FeatRow(3, _f(7), _f(7)),
    FeatRow(2, _f(8)),
    FeatRow(1, _f(7)),
    FeatRow(0, _f(5)),
    FeatRow(-1, _f(3)),
    FeatRow(-2, _f(2)),
    FeatRow(-3, _f(3), _f(3)),
    FeatRow(-4, _f(2), _f(3)),
    FeatRow(-5, _f(2), _f(2)),
    FeatRow(-6, _f(2), _f(3), _f(3)),
    FeatRow(-7, _f(2), _f(2), _f(3)),
    FeatRow(-8, _f(2), _f(2), _f(2)),
)


class FeatsRules(msgspec.Struct, frozen=True):
    """The numbers of `feats`, as data. Defaults are the rulings' (docs/rules/feats.md)."""

    sides: int = 8
    table: tuple[FeatRow, ...] = DEFAULT_TABLE
    """The Feat table. Its highest and lowest levels bound what can be rolled."""
    all_dice_above: int = 0
    """Above this level every listed die must count; at or below it one counting die suffices."""
    bought_face: int = 8
    """The face a die bought with Wyrd shows."""
    wyrd_cost: int = 5
    """WP per bought 8."""
    wyrd_feat_cost: int = 20
    """WP to achieve a feat above the table's highest level."""


RULES = FeatsRules()

DICE: tuple[FeatsDie, FeatsDie, FeatsDie] = ("white", "red", "blue")


class _Compiled:
    """What one rules object's Feat table implies, worked out once: hashing a frozen rules Struct on
    every call (as an ``lru_cache`` key) cost more than the whole read."""

    __slots__ = ("rules", "top", "bottom", "reads")

    def __init__(self, rules: FeatsRules) -> None:
        self.rules = rules
        self.top = max(r.level for r in rules.table)
        self.bottom = min(r.level for r in rules.table)
        s = rules.sides
        # Every full roll (white, red, blue) at index (w-1)*s*s + (r-1)*s + (b-1): the levels it
        # satisfies, the best of them and the lowest level it fails.
        reads: list[tuple[frozenset[int], int | None, int | None]] = []
        for w in range(1, s + 1):
            for r in range(1, s + 1):
                for b in range(1, s + 1):
                    full = (w, r, b)
                    passed = frozenset(row.level for row in rules.table if satisfies(row, full, rules))
                    best = max(passed) if passed else None
                    worst = min((row.level for row in rules.table if row.level not in passed), default=None)
                    reads.append((passed, best, worst))
        self.reads = reads


_compiled: PerRules[_Compiled] = PerRules(_Compiled)


def feat_level(check: FeatsCheck) -> int:
    """The Feat level, given in exactly one way (difficulty, opposing, or level)."""
    ability, difficulty, opposing, given = check.ability, check.difficulty, check.opposing, check.level
    if given is None:
        if ability is not None:
            if difficulty is not None and opposing is None:
                return difficulty - ability
            if opposing is not None and difficulty is None:
                return opposing - ability
    elif ability is None and difficulty is None and opposing is None:
        return given
    # Not exactly one way: the checks below name what is wrong.
    ways = [w for w in ("difficulty", "opposing", "level") if getattr(check, w) is not None]
    if check.level is not None and check.ability is not None:
        ways.append("ability")  # the level is given whole: an ability would be a second way
    if len(ways) > 1:
        raise CheckError(
            ErrorCode.AMBIGUOUS_LEVEL,
            "feats: give the Feat level one way only (ability + difficulty, ability + opposing, or level); "
            f"got {', '.join(f'`{w}`' for w in ways)}",
        )
    if check.level is not None:
        return check.level
    if not ways or check.ability is None:
        raise CheckError(
            ErrorCode.MISSING_LEVEL,
            "feats: the Feat level needs ability + difficulty (difficulty − ability), ability + opposing "
            "(opponent's ability − ability), or level",
        )
    other = check.difficulty if check.difficulty is not None else check.opposing
    assert other is not None
    return other - check.ability


def bought_dice(check: FeatsCheck) -> list[int]:
    """Indices (0 white, 1 red, 2 blue) of the dice bought with Wyrd, in die order."""
    if check.wyrd_dice is not None:
        return sorted(DICE.index(d) for d in check.wyrd_dice)
    return list(range(check.wyrd))


def _automatic(level: int, check: FeatsCheck, comp: _Compiled) -> bool:
    return level < comp.bottom or (level > comp.top and check.wyrd_feat)


def validate(check: FeatsCheck, rules: FeatsRules = RULES) -> int:
    """Refuse a check that cannot be made as asked; return its Feat level."""
    level = feat_level(check)
    comp = _compiled(rules)
    top, bottom = comp.top, comp.bottom
    if check.wyrd_feat and level <= top:
        raise CheckError(
            ErrorCode.WYRD_FEAT_NOT_NEEDED,
            f"feats: `wyrd_feat` ({rules.wyrd_feat_cost} WP) is only for feats above +{top}; level {level:+d} is rolled",
        )
    if level > top and not check.wyrd_feat:
        raise CheckError(
            ErrorCode.WYRD_FEAT_REQUIRED,
            f"feats: a Feat level above +{top} (here {level:+d}) cannot be rolled; it is achieved only by "
            f"spending {rules.wyrd_feat_cost} WP (set `wyrd_feat`)",
        )
    if not 0 <= check.wyrd <= len(DICE):
        raise CheckError(
            ErrorCode.INVALID_WYRD, f"feats: `wyrd` is the number of 8s bought, 0 to {len(DICE)}; got {check.wyrd}"
        )
    if check.wyrd_dice is not None:
        if len(check.wyrd_dice) != check.wyrd:
            raise CheckError(
                ErrorCode.WYRD_DICE_MISMATCH,
                f"feats: `wyrd_dice` names the dice bought and must name exactly `wyrd` ({check.wyrd}) dice; "
                f"it names {len(check.wyrd_dice)}",
            )
        if len(set(check.wyrd_dice)) != len(check.wyrd_dice):
            raise CheckError(
                ErrorCode.WYRD_DICE_REPEATED,
                f"feats: each die can be bought only once; `wyrd_dice` repeats one in {check.wyrd_dice}",
            )
    if check.wyrd and level < bottom:
        raise CheckError(
            ErrorCode.WYRD_NOT_ROLLED,
            f"feats: a Feat level below {bottom} (here {level:+d}) succeeds without a roll; there are no dice to buy",
        )
    if check.wyrd and level > top:
        raise CheckError(
            ErrorCode.WYRD_NOT_ROLLED,
            f"feats: a feat above +{top} is bought whole for {rules.wyrd_feat_cost} WP without dice; "
            "buying 8s as well is not a thing; set `wyrd` to 0",
        )
    return level


def sizes(check: FeatsCheck, rules: FeatsRules = RULES) -> list[int]:
    """The d8s to roll: the three dice less those bought with Wyrd; none when no roll is made."""
    return _sizes(feat_level(check), check, rules, _compiled(rules))


def _sizes(level: int, check: FeatsCheck, rules: FeatsRules, comp: _Compiled) -> list[int]:
    if level < comp.bottom or level > comp.top:
        return []  # succeeds without a roll, or (above the table) only with the Wyrd feat
    return [rules.sides] * (len(DICE) - (check.wyrd if check.wyrd_dice is None else len(check.wyrd_dice)))


def roll(check: FeatsCheck, rng: Dice, rules: FeatsRules = RULES) -> list[int]:
    level = validate(check, rules)
    need = _sizes(level, check, rules, _compiled(rules))
    return rng.roll(need[0], len(need)) if need else []


def satisfies(row: FeatRow, faces: Sequence[int], rules: FeatsRules = RULES) -> bool:
    """Whether three faces (white, red, blue) satisfy a row of the Feat table."""
    listed = [f in counting for f, counting in zip(faces, row.faces()) if counting]
    if row.level > rules.all_dice_above:
        return all(listed)
    return any(listed)


def read(check: FeatsCheck, faces: Sequence[int], rules: FeatsRules = RULES) -> FeatsResult:
    level = validate(check, rules)
    comp = _compiled(rules)
    bought = bought_dice(check) if check.wyrd else []
    names = [DICE[i] for i in bought]
    need = _sizes(level, check, rules, comp)
    if bought and len(faces) == len(DICE) and len(need) != len(DICE):
        # All three faces as they lie on the table (W,R,B): a bought die was set to 8, so it shows 8 there.
        if any(faces[i] != rules.bought_face for i in bought):
            raise DiceError(
                ErrorCode.BOUGHT_DICE_SUPPLIED,
                f"feats: the {', '.join(names)} {'die was' if len(names) == 1 else 'dice were'} bought with Wyrd and "
                f"set to {rules.bought_face} without rolling; give the {len(need)} rolled "
                f"{'face' if len(need) == 1 else 'faces'}, or all three with {rules.bought_face} in the bought "
                f"{'place' if len(names) == 1 else 'places'}, in order white, red, blue",
            )
        faces = [f for i, f in enumerate(faces) if i not in bought]
    if not need and len(faces) == len(DICE):
        # No roll is made, but dice were thrown anyway: they must be d8 faces, and they change nothing.
        check_faces(faces, [rules.sides] * len(DICE), "this feat")
        faces = []
    rolled = check_faces(faces, need, "this feat")
    if _automatic(level, check, comp):
        cost = rules.wyrd_feat_cost if level > comp.top else 0
        return FeatsResult(
            outcome="success",
            dice=[],
            level=level,
            success=True,
            best_level=None,
            worst_level=None,
            degree=0,
            bought=[],
            cost=cost,
            automatic=True,
        )
    if bought:
        it = iter(rolled)
        full = [rules.bought_face if i in bought else next(it) for i in range(len(DICE))]
    else:
        full = rolled
    sides = rules.sides
    white, red, blue = full
    passed, best, worst = comp.reads[((white - 1) * sides + red - 1) * sides + blue - 1]
    success = level in passed
    # On a success the level's own row passed, so best is set; on a failure the level's row failed, so worst
    # is set. Only a table without a row for this level (a gap) can leave the one needed unset.
    if success and best is not None:
        degree = best - level
    elif not success and worst is not None:
        degree = worst - level
    else:
        raise CheckError(ErrorCode.INVALID_RULES, f"feats: the Feat table has no row for level {level:+d}")
    return FeatsResult(
        outcome="success" if success else "failure",
        dice=full,
        level=level,
        success=success,
        best_level=best,
        worst_level=worst,
        degree=degree,
        bought=names,
        cost=rules.wyrd_cost * len(bought),
    )


def describe(result: FeatsResult) -> str:
    """A short human answer for the terminal."""
    if result.automatic:
        why = "bought with Wyrd" if result.cost else "no roll needed"
        head = f"feats  level {result.level:+d}  →  success ({why})"
    else:
        head = (
            f"feats  level {result.level:+d}  dice white {result.dice[0]}, red {result.dice[1]}, blue {result.dice[2]}"
            f"  →  {result.outcome}, degree {result.degree:+d}"
        )
    lines = [head]
    if result.bought:
        lines.append(f"bought 8s: {', '.join(result.bought)}")
    if result.cost:
        lines.append(f"cost {result.cost} WP")
    return "\n".join(lines)
