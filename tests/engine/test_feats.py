"""Every `feats` rule from docs/rules/feats.md (the rule and its rulings), from given faces."""

from __future__ import annotations

import itertools
from fractions import Fraction

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.v1.feats import FeatsCheck, FeatsResult
from sidecar.engine import CheckError, Dice, DiceError, feats, resolve

ALL_ROLLS = list(itertools.product(range(1, 9), repeat=3))


def read(faces, level, **kw):
    return feats.read(FeatsCheck(level=level, **kw), list(faces))


def p_success(level):
    wins = sum(read(f, level).success for f in ALL_ROLLS)
    return Fraction(wins, len(ALL_ROLLS))


# --- the text's examples ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "faces, level, success",
    [
        # +1: white 7 or 8 succeeds, whatever red and blue show.
        ((7, 1, 1), 1, True),
        ((8, 1, 1), 1, True),
        ((6, 8, 8), 1, False),
        # +2 needs a white 8.
        ((7, 8, 8), 2, False),
        ((8, 1, 1), 2, True),
        # +3: white and red 7–8.
        ((7, 8, 1), 3, True),
        ((8, 7, 1), 3, True),
        ((7, 6, 8), 3, False),
        ((6, 7, 8), 3, False),
        # +8: three 8s, nothing less.
        ((8, 8, 8), 8, True),
        ((8, 8, 7), 8, False),
        ((7, 8, 8), 8, False),
        # 0: white 5–8.
        ((5, 1, 1), 0, True),
        ((4, 8, 8), 0, False),
        # −1 fails on white 1–2.
        ((1, 8, 8), -1, False),
        ((2, 8, 8), -1, False),
        ((3, 1, 1), -1, True),
        # −2 fails on a white 1 only.
        ((1, 8, 8), -2, False),
        ((2, 1, 1), -2, True),
        # −3: white or red 3–8.
        ((1, 3, 1), -3, True),
        ((2, 2, 8), -3, False),
        # −8 fails only on three 1s.
        ((1, 1, 1), -8, False),
        ((1, 1, 2), -8, True),
        ((2, 1, 1), -8, True),
        ((1, 2, 1), -8, True),
    ],
)
def test_text_examples(faces, level, success):
    r = read(faces, level)
    assert r.success is success and r.outcome == ("success" if success else "failure")
    assert r.dice == list(faces) and r.level == level


# Per row of the rulings' table (docs/rules/feats.md): the lowest counting face of white, red, blue (None = not listed).
TABLE = {
    8: (8, 8, 8),
    7: (8, 8, 7),
    6: (8, 7, 7),
    5: (8, 8, None),
    4: (8, 7, None),
    3: (7, 7, None),
    2: (8, None, None),
    1: (7, None, None),
    0: (5, None, None),
    -1: (3, None, None),
    -2: (2, None, None),
    -3: (3, 3, None),
    -4: (2, 3, None),
    -5: (2, 2, None),
    -6: (2, 3, 3),
    -7: (2, 2, 3),
    -8: (2, 2, 2),
}


def model(faces, level):
    """The table read by hand: every listed die counts above 0, any listed die at 0 and below."""
    counts = [f >= low for f, low in zip(faces, TABLE[level]) if low is not None]
    return all(counts) if level > 0 else any(counts)


@pytest.mark.parametrize("level", sorted(TABLE))
def test_every_row_of_the_table(level):
    for faces in ALL_ROLLS:
        assert read(faces, level).success is model(faces, level), faces


@pytest.mark.parametrize("n", range(0, 9))
def test_chance_is_a_power_of_two(n):
    assert p_success(n) == Fraction(1, 2 ** (n + 1))
    if n:
        assert p_success(-n) == 1 - Fraction(1, 2 ** (n + 1))


@pytest.mark.parametrize("n", range(1, 9))
def test_plus_and_minus_sum_to_one(n):
    assert p_success(n) + p_success(-n) == 1


# --- degrees ---------------------------------------------------------------------------------


def test_degree_examples_from_the_text():
    # Level 1: a white 7 succeeds; an 8 would have succeeded at level 2.
    assert read((7, 1, 1), 1).degree == 0
    assert read((8, 1, 1), 1).degree == 1
    # White and red 7–8 would have succeeded at level 3; three 8s at level 8.
    assert read((7, 7, 1), 1).degree == 2
    assert read((8, 8, 8), 1).degree == 7 and read((8, 8, 8), 1).best_level == 8
    # A white 1–2 is a failure at level −1; three 1s fail at level −8.
    r = read((2, 8, 8), 1)
    assert not r.success and r.worst_level == -1 and r.degree == -2
    r = read((1, 1, 1), 1)
    assert not r.success and r.worst_level == -8 and r.degree == -9 and r.best_level is None


def test_degree_is_zero_at_the_boundary():
    # (8, 7, 7) satisfies +6 but fails +5 (red must be 8 there): the table is not nested.
    r6, r5 = read((8, 7, 7), 6), read((8, 7, 7), 5)
    assert r6.success and r6.best_level == 6 and r6.degree == 0
    assert not r5.success and r5.worst_level == 5 and r5.degree == 0
    # (2, 1, 1) satisfies −2 but fails −3 (and −1).
    a, b = read((2, 1, 1), -2), read((2, 1, 1), -3)
    assert a.success and a.best_level == -2 and a.degree == 0
    assert not b.success and b.worst_level == -3 and b.degree == 0


def test_all_eights_satisfies_every_row():
    r = read((8, 8, 8), -4)
    assert r.best_level == 8 and r.worst_level is None and r.degree == 12


@pytest.mark.parametrize("level", range(-8, 9))
def test_degree_property_over_every_roll(level):
    for faces in ALL_ROLLS:
        r = read(faces, level)
        passed = [k for k in TABLE if model(faces, k)]
        failed = [k for k in TABLE if not model(faces, k)]
        assert r.best_level == (max(passed) if passed else None)
        assert r.worst_level == (min(failed) if failed else None)
        if r.success:
            assert r.degree == r.best_level - level >= 0
        else:
            assert r.degree == r.worst_level - level <= 0


# --- how the level is given ------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, level",
    [
        ({"ability": 3, "difficulty": 5}, 2),
        ({"ability": 7, "difficulty": 4}, -3),
        ({"ability": 4, "opposing": 6}, 2),  # the opponent's ability − the actor's
        ({"ability": 6, "opposing": 4}, -2),
        ({"level": -5}, -5),
    ],
)
def test_level_is_worked_out(kw, level):
    r = feats.read(FeatsCheck(**kw), [8, 8, 8])
    assert r.level == level


def test_opposed_level_decides_the_roll():
    # Opponent 5, actor 3: level +2, so white 7 fails and white 8 succeeds.
    assert not feats.read(FeatsCheck(ability=3, opposing=5), [7, 8, 8]).success
    assert feats.read(FeatsCheck(ability=3, opposing=5), [8, 1, 1]).success


@pytest.mark.parametrize(
    "kw, code",
    [
        ({}, "missing_level"),
        ({"ability": 3}, "missing_level"),
        ({"difficulty": 3}, "missing_level"),
        ({"opposing": 3}, "missing_level"),
        ({"difficulty": 3, "opposing": 4}, "ambiguous_level"),
        ({"ability": 1, "difficulty": 3, "opposing": 4}, "ambiguous_level"),
        ({"level": 1, "ability": 2}, "ambiguous_level"),
        ({"level": 1, "difficulty": 2}, "ambiguous_level"),
        ({"level": 1, "ability": 2, "opposing": 3}, "ambiguous_level"),
    ],
)
def test_level_refused(kw, code):
    with pytest.raises(CheckError) as e:
        feats.read(FeatsCheck(**kw), [4, 4, 4])
    assert e.value.code == code


# --- outside the table -----------------------------------------------------------------------


@pytest.mark.parametrize("level", [-9, -12, -100])
def test_below_minus_eight_succeeds_without_a_roll(level):
    check = FeatsCheck(level=level)
    assert feats.sizes(check) == [] and feats.roll(check, Dice()) == []
    r = feats.read(check, [])
    assert r.success and r.outcome == "success" and r.automatic and r.dice == [] and r.cost == 0
    assert r.degree == 0 and r.best_level is None and r.worst_level is None
    assert resolve(check) == r


def test_minus_eight_is_still_rolled():
    assert feats.sizes(FeatsCheck(level=-8)) == [8, 8, 8]


@pytest.mark.parametrize("level", [9, 10, 20])
def test_above_plus_eight_needs_twenty_wyrd(level):
    with pytest.raises(CheckError) as e:
        feats.read(FeatsCheck(level=level), [8, 8, 8])
    assert e.value.code == "wyrd_feat_required"
    with pytest.raises(CheckError) as e:
        feats.roll(FeatsCheck(level=level), Dice())
    assert e.value.code == "wyrd_feat_required"
    check = FeatsCheck(level=level, wyrd_feat=True)
    assert feats.sizes(check) == []
    r = feats.read(check, [])
    assert r.success and r.automatic and r.cost == 20 and r.dice == [] and r.bought == []


def test_plus_eight_cannot_use_the_wyrd_feat():
    with pytest.raises(CheckError) as e:
        feats.read(FeatsCheck(level=8, wyrd_feat=True), [8, 8, 8])
    assert e.value.code == "wyrd_feat_not_needed"


# --- Wyrd purchases --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "wyrd, faces, dice, bought",
    [
        (1, [7, 7], [8, 7, 7], ["white"]),
        (2, [7], [8, 8, 7], ["white", "red"]),
        (3, [], [8, 8, 8], ["white", "red", "blue"]),
    ],
)
def test_wyrd_buys_first_die_first(wyrd, faces, dice, bought):
    check = FeatsCheck(level=8, wyrd=wyrd)
    assert feats.sizes(check) == [8] * (3 - wyrd)
    r = feats.read(check, faces)
    assert r.dice == dice and r.bought == bought and r.cost == 5 * wyrd


def test_three_bought_eights_make_plus_eight():
    r = feats.read(FeatsCheck(level=8, wyrd=3), [])
    assert r.success and not r.automatic and r.degree == 0 and r.cost == 15


def test_bought_eight_changes_the_outcome():
    # Level +2 needs a white 8: a rolled 1 fails, a bought 8 succeeds.
    assert not read((1, 1, 1), 2).success
    r = feats.read(FeatsCheck(level=2, wyrd=1), [1, 1])
    assert r.success and r.dice == [8, 1, 1]


@pytest.mark.parametrize(
    "wyrd_dice, faces, dice, bought",
    [
        (["blue"], [3, 4], [3, 4, 8], ["blue"]),
        (["red"], [3, 4], [3, 8, 4], ["red"]),
        (["blue", "white"], [5], [8, 5, 8], ["white", "blue"]),
        (["red", "blue"], [6], [6, 8, 8], ["red", "blue"]),
    ],
)
def test_wyrd_names_the_dice(wyrd_dice, faces, dice, bought):
    check = FeatsCheck(level=0, wyrd=len(wyrd_dice), wyrd_dice=wyrd_dice)
    r = feats.read(check, faces)
    assert r.dice == dice and r.bought == bought and r.cost == 5 * len(wyrd_dice)


def test_bought_die_matters_for_which_row_passes():
    # +5 needs white and red 8: buying red with white 8 rolled succeeds; buying blue does not help.
    assert feats.read(FeatsCheck(level=5, wyrd=1, wyrd_dice=["red"]), [8, 1]).success
    assert not feats.read(FeatsCheck(level=5, wyrd=1, wyrd_dice=["blue"]), [8, 1]).success


def test_rolled_wyrd_dice_fill_the_unbought_places():
    check = FeatsCheck(level=3, wyrd=1, wyrd_dice=["red"])
    faces = feats.roll(check, Dice())
    assert len(faces) == 2
    r = feats.read(check, faces)
    assert r.dice[1] == 8 and [r.dice[0], r.dice[2]] == faces


@pytest.mark.parametrize(
    "kw, faces, code",
    [
        ({"level": 1, "wyrd": 1}, [3, 8, 8], "bought_dice_supplied"),
        ({"level": 1, "wyrd": 2}, [8, 2, 8], "bought_dice_supplied"),
        ({"level": 1, "wyrd": 1, "wyrd_dice": ["blue"]}, [8, 8, 7], "bought_dice_supplied"),
        ({"level": 1, "wyrd": 1}, [8], "invalid_dice"),
        ({"level": 1, "wyrd": 3}, [8], "invalid_dice"),
        ({"level": 1, "wyrd": -1}, [8, 8, 8], "invalid_wyrd"),
        ({"level": 1, "wyrd": 4}, [], "invalid_wyrd"),
        ({"level": 1, "wyrd": 1, "wyrd_dice": ["red", "blue"]}, [8, 8], "wyrd_dice_mismatch"),
        ({"level": 1, "wyrd_dice": ["red"]}, [8, 8, 8], "wyrd_dice_mismatch"),
        ({"level": 1, "wyrd": 2, "wyrd_dice": ["red", "red"]}, [8], "wyrd_dice_repeated"),
        ({"level": -9, "wyrd": 1}, [], "wyrd_not_rolled"),
        ({"level": 9, "wyrd": 1, "wyrd_feat": True}, [], "wyrd_not_rolled"),
        ({"level": 1}, [8, 8], "invalid_dice"),
        ({"level": 1}, [9, 1, 1], "invalid_dice"),
        ({"level": 1}, [0, 1, 1], "invalid_dice"),
        ({"level": -9}, [9, 1, 1], "invalid_dice"),  # dice thrown for nothing must still be d8 faces
        ({"level": -9}, [1, 1], "invalid_dice"),
    ],
)
def test_refused(kw, faces, code):
    with pytest.raises(CheckError) as e:
        feats.read(FeatsCheck(**kw), faces)
    assert e.value.code == code


def test_bought_dice_supplied_is_a_dice_error():
    with pytest.raises(DiceError):
        feats.read(FeatsCheck(level=1, wyrd=1), [7, 8, 8])


@pytest.mark.parametrize(
    "kw, three, rolled",
    [
        ({"level": 2, "wyrd": 1}, [8, 1, 1], [1, 1]),
        ({"level": 3, "wyrd": 1, "wyrd_dice": ["red"]}, [7, 8, 1], [7, 1]),
        ({"level": 5, "wyrd": 2}, [8, 8, 7], [7]),
        ({"level": 8, "wyrd": 3}, [8, 8, 8], []),
    ],
)
def test_all_three_faces_with_the_bought_eights_read_as_the_rolled_ones(kw, three, rolled):
    # The faces as they lie on the table (W,R,B) give exactly what the rolled faces alone give.
    check = FeatsCheck(**kw)
    assert feats.read(check, three) == feats.read(check, rolled)


# --- properties and data ---------------------------------------------------------------------


@given(st.integers(-12, 12), st.integers(0, 3))
def test_roll_then_read(level, wyrd):
    if level < -8 or level > 8:
        return
    check = FeatsCheck(level=level, wyrd=wyrd)
    faces = feats.roll(check, Dice())
    assert len(faces) == 3 - wyrd and all(1 <= f <= 8 for f in faces)
    r = feats.read(check, faces)
    assert len(r.dice) == 3 and r.dice[:wyrd] == [8] * wyrd and r.cost == 5 * wyrd
    assert resolve(FeatsCheck(level=level, wyrd=wyrd, dice=faces)) == r


@given(st.tuples(st.integers(1, 8), st.integers(1, 8), st.integers(1, 8)), st.integers(-8, 7))
def test_success_at_a_level_means_success_at_the_degree_level(faces, level):
    r = read(faces, level)
    if r.success:
        assert read(faces, level + r.degree).success
    else:
        assert not read(faces, level + r.degree).success


def test_costs_and_table_are_data():
    rules = feats.FeatsRules(wyrd_cost=3, wyrd_feat_cost=12)
    assert feats.read(FeatsCheck(level=2, wyrd=2), [1], rules).cost == 6
    assert feats.read(FeatsCheck(level=10, wyrd_feat=True), [], rules).cost == 12
    # A house table where +1 needs a white 6–8.
    table = tuple(feats.FeatRow(1, (6, 7, 8)) if row.level == 1 else row for row in feats.DEFAULT_TABLE)
    house = feats.FeatsRules(table=table)
    assert feats.read(FeatsCheck(level=1), [6, 1, 1], house).success
    assert not read((6, 1, 1), 1).success


def test_a_table_without_a_row_for_the_level_is_named_when_no_degree_can_be_read():
    # A house table without +3: a roll failing some row still reads its degree from the lowest failed row ...
    gap = feats.FeatsRules(table=tuple(row for row in feats.DEFAULT_TABLE if row.level != 3))
    r = feats.read(FeatsCheck(level=3), [1, 1, 1], gap)
    assert (r.success, r.worst_level, r.degree) == (False, -8, -11)
    # ... but three 8s pass every row there is, and the missing row is named instead of a crash.
    with pytest.raises(CheckError) as e:
        feats.read(FeatsCheck(level=3), [8, 8, 8], gap)
    assert e.value.code == "invalid_rules" and "no row for level +3" in str(e.value)


def test_result_round_trips_on_the_wire():
    r = feats.read(FeatsCheck(ability=2, difficulty=5, wyrd=1, wyrd_dice=["blue"]), [7, 7])
    again = msgspec.json.decode(msgspec.json.encode(r), type=FeatsResult)
    assert again == r and again.bought == ["blue"]


def test_check_decodes_from_the_wire():
    c = msgspec.json.decode(
        b'{"system":"feats","ability":3,"opposing":5,"wyrd":1,"wyrd_dice":["red"]}', type=FeatsCheck
    )
    assert feats.validate(c) == 2 and feats.sizes(c) == [8, 8]


def test_describe():
    assert "success" in feats.describe(read((8, 1, 1), 2))
    assert "20 WP" in feats.describe(feats.read(FeatsCheck(level=9, wyrd_feat=True), []))


def test_dice_thrown_for_an_automatic_success_change_nothing():
    # "Any task below -8 is so very likely as to be unnecessary to roll for": three 1s thrown anyway still succeed.
    r = feats.read(FeatsCheck(level=-9), [1, 1, 1])
    assert r.success and r.automatic and r.dice == []


# =====================================================================================================
# Cases worked out by hand from docs/rules/feats.md without looking at the engine's answer: faces in, the
# result fields the text and its rulings name out, with edge cases at every band boundary and ladder step.
# =====================================================================================================

# (level, faces) -> (success, best_level, worst_level, degree)
FEATS_CASES = [
    # The text's example at level +1: white 7 succeeds; white 8 would have succeeded at +2; white and red
    # 7-8 at +3; three 8s at +8; white 1 or 2 fails at -1; three 1s fail at -8.
    (1, [7, 1, 1], True, 1, 2, 0),
    (1, [8, 1, 1], True, 2, 3, 1),
    (1, [7, 7, 1], True, 3, 2, 2),
    (1, [8, 8, 8], True, 8, None, 7),
    (1, [8, 7, 7], True, 6, 5, 5),
    (1, [6, 8, 8], False, 0, 1, 0),
    (1, [2, 8, 8], False, -2, -1, -2),
    (1, [1, 8, 8], False, -3, -2, -3),
    (1, [1, 1, 1], False, None, -8, -9),
    # Every row at its own level.
    (8, [8, 8, 8], True, 8, None, 0),
    (8, [8, 8, 7], False, 7, 8, 0),
    (7, [8, 8, 7], True, 7, 8, 0),
    (7, [8, 7, 7], False, 6, 5, -2),
    (6, [8, 7, 7], True, 6, 5, 0),
    (6, [7, 8, 8], False, 3, 2, -4),
    (5, [8, 8, 1], True, 5, 6, 0),
    (5, [8, 7, 8], False, 6, 5, 0),
    (4, [8, 7, 1], True, 4, 5, 0),
    (4, [7, 8, 8], False, 3, 2, -2),
    (3, [7, 7, 1], True, 3, 2, 0),
    (3, [7, 6, 8], False, 1, 2, -1),
    (2, [8, 1, 1], True, 2, 3, 0),
    (2, [7, 8, 8], False, 3, 2, 0),
    (0, [5, 1, 1], True, 0, 1, 0),
    (0, [4, 8, 8], False, -1, 0, 0),
    (-1, [3, 1, 1], True, -1, 0, 0),
    (-1, [2, 8, 8], False, -2, -1, 0),
    (-2, [2, 1, 1], True, -2, -3, 0),  # the table is not monotone: -3 fails, -4 passes
    (-2, [1, 8, 8], False, -3, -2, 0),
    (-3, [1, 3, 1], True, -3, -2, 0),
    (-3, [2, 2, 8], False, -2, -3, 0),
    (-4, [2, 1, 1], True, -2, -3, 2),
    (-4, [1, 2, 8], False, -5, -4, 0),
    (-5, [1, 2, 1], True, -5, -6, 0),
    (-5, [1, 1, 8], False, -6, -5, 0),
    (-6, [1, 1, 3], True, -6, -5, 0),
    (-6, [1, 2, 2], False, -5, -6, 0),
    (-7, [1, 2, 2], True, -5, -6, 2),
    (-7, [1, 1, 2], False, -8, -7, 0),
    (-8, [1, 1, 2], True, -8, -7, 0),
    (-8, [1, 1, 1], False, None, -8, 0),
]


@pytest.mark.parametrize("level, faces, success, best, worst, degree", FEATS_CASES)
def test_feats_cases(level, faces, success, best, worst, degree):
    r = feats.read(FeatsCheck(level=level), faces)
    assert (r.success, r.best_level, r.worst_level, r.degree) == (success, best, worst, degree)
    assert r.outcome == ("success" if success else "failure") and r.level == level and r.dice == faces
    assert (r.bought, r.cost) == ([], 0)


@pytest.mark.parametrize(
    "kw, level",
    [
        ({"ability": 5, "difficulty": 7}, 2),
        ({"ability": 7, "difficulty": 5}, -2),
        ({"ability": 5, "opposing": 3}, -2),
        ({"ability": 3, "opposing": 5}, 2),
        ({"ability": 4, "difficulty": 4}, 0),
    ],
)
def test_feats_level_from_abilities(kw, level):
    assert feats.read(FeatsCheck(**kw), [5, 1, 1]).level == level


def test_feats_beyond_the_table():
    high = feats.read(FeatsCheck(level=9, wyrd_feat=True), [])
    assert (high.success, high.cost, high.dice) == (True, 20, [])
    low = feats.read(FeatsCheck(level=-9), [])
    assert (low.success, low.cost, low.dice) == (True, 0, [])
    with pytest.raises(CheckError):
        feats.read(FeatsCheck(level=9), [8, 8, 8])
    assert feats.sizes(FeatsCheck(level=8)) == [8, 8, 8] and feats.sizes(FeatsCheck(level=-8)) == [8, 8, 8]


# Wyrd: (kw, rolled faces) -> (full dice, success, best, degree, bought, cost)
WYRD = [
    ({"level": 2, "wyrd": 1}, [1, 1], [8, 1, 1], True, 2, 0, ["white"], 5),
    ({"level": 5, "wyrd": 2}, [1], [8, 8, 1], True, 5, 0, ["white", "red"], 10),
    ({"level": 5, "wyrd": 2}, [7], [8, 8, 7], True, 7, 2, ["white", "red"], 10),
    ({"level": 8, "wyrd": 3}, [], [8, 8, 8], True, 8, 0, ["white", "red", "blue"], 15),
    ({"level": 3, "wyrd": 1, "wyrd_dice": ["red"]}, [7, 1], [7, 8, 1], True, 3, 0, ["red"], 5),
    ({"level": 3, "wyrd": 1, "wyrd_dice": ["red"]}, [6, 1], [6, 8, 1], False, 0, -2, ["red"], 5),
    ({"level": 7, "wyrd": 1, "wyrd_dice": ["blue"]}, [8, 8], [8, 8, 8], True, 8, 1, ["blue"], 5),
    ({"level": 4, "wyrd": 2, "wyrd_dice": ["blue", "white"]}, [6], [8, 6, 8], False, 2, -1, ["white", "blue"], 10),
]


@pytest.mark.parametrize("kw, faces, full, success, best, degree, bought, cost", WYRD)
def test_feats_wyrd_purchases(kw, faces, full, success, best, degree, bought, cost):
    r = feats.read(FeatsCheck(**kw), faces)
    assert (r.dice, r.success, r.best_level, r.degree, r.bought, r.cost) == (full, success, best, degree, bought, cost)
    # The same purchase given as all three faces on the table (W,R,B), the bought dice showing 8.
    r3 = feats.read(FeatsCheck(**kw), full)
    assert (r3.dice, r3.success, r3.best_level, r3.degree, r3.bought, r3.cost) == (
        full,
        success,
        best,
        degree,
        bought,
        cost,
    )


# Every possible roll of small pools against a transcription of the rulings that shares no code with
# the engine.


_R = {k: range(k, 9) for k in range(1, 9)}
FEAT_TABLE = {  # the rulings' table (docs/rules/feats.md): the counting faces of white, red, blue (None: not listed)
    8: (_R[8], _R[8], _R[8]),
    7: (_R[8], _R[8], _R[7]),
    6: (_R[8], _R[7], _R[7]),
    5: (_R[8], _R[8], None),
    4: (_R[8], _R[7], None),
    3: (_R[7], _R[7], None),
    2: (_R[8], None, None),
    1: (_R[7], None, None),
    0: (_R[5], None, None),
    -1: (_R[3], None, None),
    -2: (_R[2], None, None),
    -3: (_R[3], _R[3], None),
    -4: (_R[2], _R[3], None),
    -5: (_R[2], _R[2], None),
    -6: (_R[2], _R[3], _R[3]),
    -7: (_R[2], _R[2], _R[3]),
    -8: (_R[2], _R[2], _R[2]),
}


def _satisfies(level: int, faces: list[int]) -> bool:
    listed = [f in counting for f, counting in zip(faces, FEAT_TABLE[level]) if counting is not None]
    return all(listed) if level > 0 else any(listed)


@pytest.mark.parametrize("level", range(-8, 9))
def test_feats_every_roll_and_the_chance(level):
    wins = 0
    for faces in itertools.product(range(1, 9), repeat=3):
        faces = list(faces)
        ok = _satisfies(level, faces)
        wins += ok
        passed = [lv for lv in FEAT_TABLE if _satisfies(lv, faces)]
        failed = [lv for lv in FEAT_TABLE if not _satisfies(lv, faces)]
        best, worst = (max(passed) if passed else None), (min(failed) if failed else None)
        r = feats.read(FeatsCheck(level=level), faces)
        assert (r.success, r.best_level, r.worst_level, r.degree) == (
            ok,
            best,
            worst,
            (best - level) if ok else (worst - level),  # type: ignore[operator]
        ), faces
    # docs/rules/feats.md: 2^-(n+1) at +n, 1 - 2^-(n+1) at -n.
    chance = Fraction(1, 2 ** (level + 1)) if level >= 0 else 1 - Fraction(1, 2 ** (-level + 1))
    assert Fraction(wins, 512) == chance
