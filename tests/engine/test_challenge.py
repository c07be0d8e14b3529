"""Every `challenge` rule from docs/rules/challenge.md (the rule and its rulings), from given faces."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.v1.challenge import ChallengeCheck, ChallengeChoice, ChallengeResult
from sidecar.engine import CheckError, Dice, DiceError, FollowUpError, challenge, resolve
from sidecar.engine.rulesets.challenge import followups


def read(d20, cl=1, modifier=0, **kw):
    return challenge.read(ChallengeCheck(cl=cl, modifier=modifier, **kw), [d20])


def choose(result, option, cl=1):
    return followups.follow(ChallengeCheck(cl=cl), result, ChallengeChoice(option=option), Dice())


@pytest.mark.parametrize(
    "total, level",
    [
        (-7, 0),
        (0, 0),
        (1, 1),
        (5, 1),
        (6, 2),
        (10, 2),
        (11, 3),
        (15, 3),
        (16, 4),
        (20, 4),
        (21, 5),
        (25, 5),
        (26, 6),
        (41, 9),
    ],
)
def test_ladder(total, level):
    assert challenge.level_of(total) == level


@given(st.integers(-50, 200))
def test_ladder_property(total):
    k = challenge.level_of(total)
    if total <= 0:
        assert k == 0
    else:
        assert 5 * k - 4 <= total <= 5 * k


@pytest.mark.parametrize(
    "d20, modifier, cl, outcome, margin, strain, choice",
    [
        # CL 3 covers 11–15: meeting it is a success at a cost, +1 strain.
        (11, 0, 3, "success_at_cost", 0, 1, None),
        (15, 0, 3, "success_at_cost", 0, 1, None),
        (16, 0, 3, "success", 1, 0, None),
        (20, 0, 3, "success", 1, 0, None),
        (20, 1, 3, "success", 2, 0, ["game_changer", "strain"]),
        (20, 10, 3, "success", 3, 0, ["game_changer", "strain"]),
        (20, 11, 3, "epic_success", 4, -2, None),
        (20, 40, 3, "epic_success", 9, -2, None),
        (10, 0, 3, "failure", -1, 2, None),
        (6, 0, 3, "failure", -1, 2, None),
        (5, 0, 3, "failure", -2, 3, None),
        (2, -2, 3, "failure", -3, 4, None),  # total 0 is level 0
        (2, -1, 3, "failure", -2, 3, None),  # total 1 is level 1
        (2, -2, 4, "epic_failure", -4, 0, None),
        (20, -20, 4, "epic_failure", -4, 0, None),
        (5, 0, 6, "epic_failure", -5, 0, None),
    ],
)
def test_bands(d20, modifier, cl, outcome, margin, strain, choice):
    r = read(d20, cl=cl, modifier=modifier)
    assert (r.outcome, r.margin, r.strain, r.choice) == (outcome, margin, strain, choice)
    assert (r.strain_option is not None) == (choice is not None)
    assert r.total == d20 + modifier and r.natural == d20 and r.dice == [d20] and r.cl == cl
    assert r.success == (outcome in ("success_at_cost", "success", "epic_success"))


def test_epic_success_removes_a_complication_and_strain():
    r = read(20, cl=1, modifier=5)  # total 25: level 5, margin +4
    assert r.outcome == "epic_success"
    assert r.strain == -2 and r.complication == "remove" and not r.condition and r.choice is None


def test_epic_failure_is_a_condition_and_a_complication_without_strain():
    r = read(2, cl=5)  # level 1, margin -4
    assert r.outcome == "epic_failure"
    assert r.condition and r.complication == "add" and r.strain == 0 and not r.success


@pytest.mark.parametrize("modifier, cl", [(0, 1), (30, 1), (100, 2), (4, 1)])
def test_natural_one_is_an_epic_failure_whatever_the_total(modifier, cl):
    r = read(1, cl=cl, modifier=modifier)
    assert r.outcome == "epic_failure" and r.natural == 1
    assert r.condition and r.complication == "add" and r.strain == 0 and r.choice is None
    assert r.margin == challenge.level_of(1 + modifier) - cl  # the margin is still reported


def test_natural_twenty_has_no_special_rule():
    r = read(20, cl=5)  # total 20 is level 4: a miss by 1
    assert r.outcome == "failure" and r.strain == 2


@pytest.mark.parametrize(
    "d20, outcome",
    [(2, "failure"), (5, "failure"), (6, "success_at_cost"), (10, "success_at_cost"), (11, "success"), (16, "success")],
)
def test_only_epics_touch_conditions_and_complications(d20, outcome):
    r = read(d20, cl=2)
    assert r.outcome == outcome and not r.condition and r.complication is None


# --- the +2/+3 choice ------------------------------------------------------------------------


@pytest.mark.parametrize("modifier, margin, reduction", [(6, 2, -1), (10, 2, -1), (11, 3, -2), (15, 3, -2)])
def test_choice_of_strain(modifier, margin, reduction):
    r = read(5, cl=1, modifier=modifier)
    assert r.margin == margin and r.chosen is None and r.game_changers == 0 and r.strain == 0
    assert r.strain_option == reduction
    after = choose(r, "strain")
    assert after.chosen == "strain" and after.strain == reduction and after.game_changers == 0
    assert after.outcome == "success" and after.choice == ["game_changer", "strain"]


@pytest.mark.parametrize("modifier", [6, 11])
def test_choice_of_game_changer(modifier):
    r = read(5, cl=1, modifier=modifier)
    after = choose(r, "game_changer")
    assert after.chosen == "game_changer" and after.game_changers == 1 and after.strain == 0


@pytest.mark.parametrize("first", ["game_changer", "strain"])
@pytest.mark.parametrize("second", ["game_changer", "strain"])
def test_choice_is_made_once(first, second):
    r = choose(read(5, cl=1, modifier=6), first)
    with pytest.raises(FollowUpError) as e:
        choose(r, second)
    assert e.value.code == "choice_already_made"


@pytest.mark.parametrize("d20, modifier", [(1, 0), (5, 0), (10, 0), (5, 20), (1, 10), (2, -10)])
def test_no_choice_where_none_is_offered(d20, modifier):
    r = read(d20, cl=1, modifier=modifier)
    assert r.choice is None
    with pytest.raises(FollowUpError) as e:
        choose(r, "game_changer")
    assert e.value.code == "no_choice_offered"


def test_unknown_followup_refused():
    class Other(msgspec.Struct):
        pass

    with pytest.raises(FollowUpError) as e:
        followups.follow(ChallengeCheck(), read(10, modifier=5), Other(), Dice())  # type: ignore[arg-type]
    assert e.value.code == "unknown_followup"


def test_choice_does_not_change_the_original_result():
    r = read(5, cl=1, modifier=6)
    choose(r, "strain")
    assert r.chosen is None and r.strain == 0


# --- addressing a complication ---------------------------------------------------------------


@pytest.mark.parametrize("d20, success", [(11, True), (6, True), (5, False), (1, False), (20, True)])
def test_addressing_a_complication_is_echoed(d20, success):
    r = read(d20, cl=2, complication="c-7")
    assert r.addresses == "c-7" and r.success is success
    assert read(d20, cl=2).addresses is None


# --- refusals --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, faces, code",
    [
        ({"cl": 0}, [10], "invalid_cl"),
        ({"cl": -3}, [10], "invalid_cl"),
        ({}, [0], "invalid_dice"),
        ({}, [21], "invalid_dice"),
        ({}, [-1], "invalid_dice"),
        ({}, [], "invalid_dice"),
        ({}, [10, 10], "invalid_dice"),
        ({"complication": " "}, [10], "invalid_complication"),
    ],
)
def test_refused(kw, faces, code):
    with pytest.raises(CheckError) as e:
        challenge.read(ChallengeCheck(**kw), faces)
    assert e.value.code == code


def test_dice_error_is_a_dice_error():
    with pytest.raises(DiceError):
        challenge.read(ChallengeCheck(), [21])


def test_cl_refused_before_rolling():
    with pytest.raises(CheckError) as e:
        challenge.roll(ChallengeCheck(cl=0), Dice())
    assert e.value.code == "invalid_cl"


# --- properties ------------------------------------------------------------------------------


@given(st.integers(1, 20), st.integers(-30, 30), st.integers(1, 10))
def test_rolled_and_read_agree(d20, modifier, cl):
    check = ChallengeCheck(cl=cl, modifier=modifier, dice=[d20])
    assert resolve(check) == challenge.read(check, [d20])


@given(st.integers(2, 19), st.integers(-30, 30), st.integers(1, 10))
def test_higher_total_never_worse(d20, modifier, cl):
    order = ["epic_failure", "failure", "success_at_cost", "success", "epic_success"]
    a, b = read(d20, cl=cl, modifier=modifier), read(d20 + 1, cl=cl, modifier=modifier)
    assert order.index(b.outcome) >= order.index(a.outcome)
    assert b.strain <= a.strain or a.outcome == "epic_failure"


@given(st.integers(-30, 30), st.integers(1, 10))
def test_roll_gives_one_d20(modifier, cl):
    faces = challenge.roll(ChallengeCheck(cl=cl, modifier=modifier), Dice())
    assert len(faces) == 1 and 1 <= faces[0] <= 20


def test_result_round_trips_on_the_wire():
    r = choose(read(5, cl=1, modifier=6, complication="c1"), "strain")
    again = msgspec.json.decode(msgspec.json.encode(r), type=ChallengeResult)
    assert again == r
    assert b'"system":"challenge"' in msgspec.json.encode(r)


def test_rules_are_data():
    wide = challenge.ChallengeRules(ladder_step=10, epic_failure_natural=None)
    r = challenge.read(ChallengeCheck(cl=1, modifier=-1), [1], wide)  # total 0, no natural-1 rule
    assert r.outcome == "failure" and r.strain == 2
    assert challenge.read(ChallengeCheck(cl=2), [11], wide).outcome == "success_at_cost"


def test_describe_mentions_the_outcome():
    assert "epic failure" in challenge.describe(read(1))
    assert "choose" in challenge.describe(read(5, modifier=6))


def test_the_gms_complication_removal_follows_only_an_epic_success_once():
    from protocol.v1.challenge import ChallengeRemoveComplication

    c = ChallengeCheck(cl=1, modifier=5)
    epic = challenge.read(c, [20])
    assert epic.outcome == "epic_success" and epic.complication == "remove"
    done = followups.follow(c, epic, ChallengeRemoveComplication(complication="k1"), Dice())
    assert (
        done.complication == "removed"
        and done.strain == epic.strain
        and "removed a complication" in challenge.describe(done)
    )
    with pytest.raises(FollowUpError) as e:
        followups.follow(c, done, ChallengeRemoveComplication(complication="k2"), Dice())
    assert e.value.code == "complication_already_removed"
    for faces in ([14], [1], [2]):  # beaten by 3, a natural 1, beaten by 1
        with pytest.raises(FollowUpError) as e:
            followups.follow(c, challenge.read(c, faces), ChallengeRemoveComplication(complication="k1"), Dice())
        assert e.value.code == "no_complication_to_remove"


# =====================================================================================================
# Cases worked out by hand from docs/rules/challenge.md without looking at the engine's answer: faces in, the
# result fields the text and its rulings name out, with edge cases at every band boundary and ladder step.
# =====================================================================================================


def no_dice() -> Dice:
    """A source that fails the test if a follow-up rolls when its faces were given."""

    def source(n: int) -> bytes:
        raise AssertionError("rolled a die although the faces were given")

    return Dice(source)


@pytest.mark.parametrize(
    "total, level",
    [
        (-7, 0),
        (-1, 0),
        (0, 0),
        (1, 1),
        (5, 1),
        (6, 2),
        (10, 2),
        (11, 3),
        (15, 3),
        (16, 4),
        (20, 4),
        (21, 5),
        (25, 5),
        (26, 6),
        (40, 8),
    ],
)
def test_challenge_ladder(total, level):
    # Put the total on the ladder through a d20 of 10 and a modifier.
    r = challenge.read(ChallengeCheck(cl=1, modifier=total - 10), [10])
    assert (r.total, r.level) == (total, level)


# (d20, modifier, cl) -> (total, level, margin, outcome, strain, choice, strain_option, condition, complication)
GC = ["game_changer", "strain"]
CHALLENGE_CASES = [
    # Meet the CL (CL2 covers 6-10): success at a cost, one strain, at both ends of the range.
    (6, 0, 2, 6, 2, 0, "success_at_cost", 1, None, None, False, None),
    (10, 0, 2, 10, 2, 0, "success_at_cost", 1, None, None, False, None),
    # Beat by 1: succeeds as planned, no strain.
    (11, 0, 2, 11, 3, 1, "success", 0, None, None, False, None),
    (15, 0, 2, 15, 3, 1, "success", 0, None, None, False, None),
    # Beat by 2 / 3: a choice of +1 game changer or -1 / -2 strain.
    (16, 0, 2, 16, 4, 2, "success", 0, GC, -1, False, None),
    (20, 0, 2, 20, 4, 2, "success", 0, GC, -1, False, None),
    (20, 1, 2, 21, 5, 3, "success", 0, GC, -2, False, None),
    (20, 5, 2, 25, 5, 3, "success", 0, GC, -2, False, None),
    # Beat by 4 (or more): epic success, -2 strain, the GM removes a complication.
    (20, 6, 2, 26, 6, 4, "epic_success", -2, None, None, False, "remove"),
    (20, 20, 1, 40, 8, 7, "epic_success", -2, None, None, False, "remove"),
    (16, 0, 0 + 1, 16, 4, 3, "success", 0, GC, -2, False, None),
    (17, 4, 1, 21, 5, 4, "epic_success", -2, None, None, False, "remove"),
    # Miss by 1 / 2 / 3: fails with 2 / 3 / 4 strain.
    (10, 0, 3, 10, 2, -1, "failure", 2, None, None, False, None),
    (6, 0, 3, 6, 2, -1, "failure", 2, None, None, False, None),
    (5, 0, 3, 5, 1, -2, "failure", 3, None, None, False, None),
    (2, -2, 3, 0, 0, -3, "failure", 4, None, None, False, None),
    (2, -2, 1, 0, 0, -1, "failure", 2, None, None, False, None),
    # Miss by 4 (or more): epic failure, a new condition, the GM adds a complication.
    (2, -2, 4, 0, 0, -4, "epic_failure", 0, None, None, True, "add"),
    (15, 0, 7, 15, 3, -4, "epic_failure", 0, None, None, True, "add"),
    (16, 0, 7, 16, 4, -3, "failure", 4, None, None, False, None),
    (3, -20, 6, -17, 0, -6, "epic_failure", 0, None, None, True, "add"),
    # A natural 1 is an epic failure whatever the total.
    (1, 30, 1, 31, 7, 6, "epic_failure", 0, None, None, True, "add"),
    (1, 4, 1, 5, 1, 0, "epic_failure", 0, None, None, True, "add"),
    # A natural 20 has no special rule.
    (20, 0, 5, 20, 4, -1, "failure", 2, None, None, False, None),
    (20, 0, 4, 20, 4, 0, "success_at_cost", 1, None, None, False, None),
]


@pytest.mark.parametrize(
    "d20, modifier, cl, total, level, margin, outcome, strain, choice, strain_option, condition, complication",
    CHALLENGE_CASES,
)
def test_challenge_cases(
    d20, modifier, cl, total, level, margin, outcome, strain, choice, strain_option, condition, complication
):
    r = challenge.read(ChallengeCheck(cl=cl, modifier=modifier), [d20])
    got = (
        r.total,
        r.level,
        r.margin,
        r.outcome,
        r.strain,
        r.choice,
        r.strain_option,
        r.condition,
        r.complication,
        r.natural,
    )
    assert got == (total, level, margin, outcome, strain, choice, strain_option, condition, complication, d20)
    assert r.success == (outcome in ("success_at_cost", "success", "epic_success"))


@pytest.mark.parametrize(
    "d20, modifier, option, strain, game_changers",
    [(16, 0, "strain", -1, 0), (16, 0, "game_changer", 0, 1), (20, 1, "strain", -2, 0), (20, 1, "game_changer", 0, 1)],
)
def test_challenge_choice(d20, modifier, option, strain, game_changers):
    check = ChallengeCheck(cl=2, modifier=modifier)
    r = followups.follow(check, challenge.read(check, [d20]), ChallengeChoice(option=option), no_dice())
    assert (r.chosen, r.strain, r.game_changers, r.outcome) == (option, strain, game_changers, "success")
    # Made once.
    with pytest.raises(FollowUpError):
        followups.follow(check, r, ChallengeChoice(option="strain"), no_dice())


@pytest.mark.parametrize("d20, modifier", [(6, 0), (11, 0), (20, 6), (10, 0), (1, 15)])
def test_challenge_no_choice_outside_two_and_three(d20, modifier):
    check = ChallengeCheck(cl=2, modifier=modifier)
    with pytest.raises(FollowUpError):
        followups.follow(check, challenge.read(check, [d20]), ChallengeChoice(option="game_changer"), no_dice())


@pytest.mark.parametrize("d20, removed", [(6, True), (11, True), (20, True), (5, False), (1, False)])
def test_challenge_addressing_a_complication(d20, removed):
    # "If they succeed, the complication is removed": a success at a cost is a success.
    r = challenge.read(ChallengeCheck(cl=2, complication="k1"), [d20])
    assert r.addresses == "k1" and r.success is removed


# Every possible roll of small pools against a transcription of the rulings that shares no code with
# the engine.


@pytest.mark.parametrize("cl", range(1, 8))
def test_challenge_every_roll(cl):
    miss_strain = {-1: 2, -2: 3, -3: 4}
    for d20 in range(1, 21):
        for modifier in range(-25, 26):
            total = d20 + modifier
            level = 0 if total <= 0 else (total + 4) // 5
            margin = level - cl
            if d20 == 1 or margin <= -4:
                expected = ("epic_failure", 0, True, "add")
            elif margin >= 4:
                expected = ("epic_success", -2, False, "remove")
            elif margin == 0:
                expected = ("success_at_cost", 1, False, None)
            elif margin > 0:
                expected = ("success", 0, False, None)
            else:
                expected = ("failure", miss_strain[margin], False, None)
            r = challenge.read(ChallengeCheck(cl=cl, modifier=modifier), [d20])
            assert (r.outcome, r.strain, r.condition, r.complication) == expected, (d20, modifier)
            assert (r.level, r.margin) == (level, margin)
            assert (r.choice is not None) == (r.outcome == "success" and margin in (2, 3))
