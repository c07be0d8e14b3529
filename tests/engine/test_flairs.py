"""Every `flairs` rule from docs/rules/flairs.md (the rule and its rulings), from given faces."""

from __future__ import annotations

import itertools
from collections import Counter

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.v1.base import Action
from protocol.v1.flairs import (
    FlairsBargain,
    FlairsCheck,
    FlairsChoose,
    FlairsNameTrials,
    FlairsParticipant,
    FlairsResult,
    FlairsReveal,
    FlairsSetLurking,
)
from sidecar.engine import CheckError, Dice, DiceError, FollowUpError, flairs, resolve
from sidecar.engine.rulesets.flairs import followups


def read(faces, **kw):
    kw.setdefault("rank", len(faces))
    return flairs.read(FlairsCheck(**kw), faces)


def fixed(*faces):
    """A Dice whose d6s show ``faces`` in turn (byte b reads b % 6 + 1)."""
    data = bytes(f - 1 for f in faces)
    pos = [0]

    def source(n):
        out = data[pos[0] : pos[0] + n]
        pos[0] += len(out)
        assert out, "the test ran out of fixed dice"
        return out

    return Dice(source)


def follow(check, result, action, rng=None):
    return followups.follow(check, result, action, rng or fixed(1))


def refused(code, fn, *args, **kw):
    with pytest.raises(CheckError) as e:
        fn(*args, **kw)
    assert e.value.code == code, e.value.message
    return e.value


# --- bands -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "faces, outcome",
    [
        ([6], "triumph"),
        ([1, 2, 6], "triumph"),
        ([5], "conflict"),
        ([4], "conflict"),
        ([2, 4, 3], "conflict"),
        ([3], "failure"),
        ([1], "failure"),
        ([3, 2, 1], "failure"),
    ],
)
def test_the_highest_die_is_read(faces, outcome):
    r = read(faces)
    assert r.outcome == outcome and r.highest == max(faces) and not r.desperate


def test_pool_is_rank_plus_edges():
    assert flairs.sizes(FlairsCheck(rank=2)) == [6, 6]
    assert flairs.sizes(FlairsCheck(rank=2, edges=2)) == [6, 6, 6, 6]
    assert flairs.sizes(FlairsCheck(rank=3, edges=1, cuts=2)) == [6] * 4  # cuts remove after rolling
    r = flairs.read(FlairsCheck(rank=1, edges=1), [3, 6])
    assert r.outcome == "triumph" and r.pool == 2


# --- pairs -----------------------------------------------------------------------------------


def test_text_example_six_dice_triumph_with_four_flairs():
    r = read([6, 6, 1, 6, 1, 1])
    assert r.outcome == "triumph"
    assert (r.flairs, r.trials, r.tainted) == (4, 0, 0)
    assert [(m.face, m.count, m.amount, m.gives) for m in r.matches] == [(6, 3, 2, "flairs"), (1, 3, 2, "flairs")]


@pytest.mark.parametrize(
    "faces, n",
    [([5, 5], 1), ([5, 5, 5], 2), ([5, 5, 5, 5], 3), ([5, 5, 5, 5, 5], 4), ([5, 4], 0), ([5, 4, 3, 2, 1], 0)],
)
def test_each_matching_die_beyond_the_first_gives_one(faces, n):
    r = read(faces)
    assert r.outcome == "conflict" and r.flairs == n and r.trials == 0


def test_pairs_give_flairs_on_success_and_trials_on_failure():
    r = read([4, 4, 1])
    assert (r.outcome, r.flairs, r.trials, r.tainted) == ("conflict", 1, 0, 0)
    r = read([3, 3, 1])
    assert (r.outcome, r.flairs, r.trials, r.tainted) == ("failure", 0, 1, 0)
    r = read([2, 2, 2, 1, 1])
    assert (r.outcome, r.flairs, r.trials, r.tainted) == ("failure", 0, 3, 0)
    assert [t.source for t in r.standing] == ["pair"] * 3
    assert all(t.name is None for t in r.standing)  # the Judge chooses each trial


def test_a_triumph_pair_of_low_dice_still_gives_flairs():
    r = read([6, 2, 2])
    assert (r.outcome, r.flairs, r.trials) == ("triumph", 1, 0)


# --- cuts -------------------------------------------------------------------------------------


def test_each_cut_removes_the_highest_die():
    r = read([6, 4, 2], cuts=1)
    assert r.kept == [4, 2] and r.removed == [6] and r.outcome == "conflict"
    r = read([2, 6, 4], cuts=2)
    assert r.kept == [2] and r.removed == [6, 4] and r.outcome == "failure"
    assert r.dice == [2, 6, 4]  # faces in the order rolled, before cuts


def test_removed_dice_no_longer_contribute_to_the_result():
    assert read([6, 3], cuts=1).outcome == "failure"
    assert read([6, 6, 5], cuts=2).outcome == "conflict"


def test_a_pair_that_lost_a_die_to_a_cut_is_tainted_even_on_a_success():
    r = read([6, 6, 2], cuts=1)
    assert r.kept == [6, 2] and r.outcome == "triumph"
    assert (r.flairs, r.trials, r.tainted) == (0, 1, 1)
    assert r.matches[0].tainted and r.matches[0].gives == "trials"
    assert r.standing[0].source == "pair" and r.standing[0].tainted


def test_matching_counts_removed_dice_too():
    # Both 5s were cut: the pair still counts, and it is tainted.
    r = read([5, 5, 3], cuts=2)
    assert r.kept == [3] and r.outcome == "failure"
    assert (r.flairs, r.trials, r.tainted) == (0, 1, 1)


def test_a_tainted_group_gives_all_of_its_k_minus_1_as_trials():
    r = read([4, 4, 4, 2], cuts=1)
    assert r.kept == [4, 4, 2] and r.outcome == "conflict"
    assert (r.flairs, r.trials, r.tainted) == (0, 2, 2)


def test_text_example_with_a_cut_taints_only_the_sixes():
    r = read([6, 6, 1, 6, 1, 1], cuts=1)
    assert r.outcome == "triumph"
    assert (r.flairs, r.trials, r.tainted) == (2, 2, 2)
    r = read([6, 6, 1, 6, 1, 1], cuts=3)
    assert r.kept == [1, 1, 1] and r.outcome == "failure"
    assert (r.flairs, r.trials, r.tainted) == (0, 4, 2)


def test_a_cut_single_die_taints_nothing():
    r = read([6, 5, 5], cuts=1)
    assert r.outcome == "conflict" and (r.flairs, r.trials, r.tainted) == (1, 0, 0)


# --- desperate ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw", [{"rank": 0}, {"rank": 0, "cuts": 1}, {"rank": 2, "cuts": 2}, {"rank": 1, "edges": 1, "cuts": 5}]
)
def test_no_dice_or_cuts_at_least_the_pool_roll_2d6_keep_the_lowest(kw):
    c = FlairsCheck(**kw)
    assert flairs.sizes(c) == [6, 6]
    r = flairs.read(c, [5, 2])
    assert r.desperate and r.kept == [2] and r.removed == [5] and r.highest == 2 and r.outcome == "failure"
    assert flairs.read(c, [4, 6]).outcome == "conflict"
    assert flairs.read(c, [6, 6]).outcome == "triumph"


def test_fewer_cuts_than_dice_is_not_desperate():
    c = FlairsCheck(rank=2, edges=1, cuts=2)
    assert flairs.sizes(c) == [6, 6, 6]
    r = flairs.read(c, [6, 5, 1])
    assert not r.desperate and r.kept == [1] and r.outcome == "failure"


@pytest.mark.parametrize("faces, outcome", [([5, 5], "conflict"), ([6, 6], "triumph"), ([2, 2], "failure")])
def test_every_desperate_pair_is_tainted(faces, outcome):
    r = flairs.read(FlairsCheck(rank=0), faces)
    assert r.outcome == outcome and (r.flairs, r.trials, r.tainted) == (0, 1, 1)
    assert r.matches[0].tainted


# --- simple checks -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "faces, outcome", [([4], "success"), ([6], "success"), ([5, 1], "success"), ([3], "failure"), ([1, 2], "failure")]
)
def test_simple_check_is_success_or_failure(faces, outcome):
    assert read(faces, simple=True).outcome == outcome


def test_simple_check_generates_no_flairs_or_trials():
    for faces in ([6, 6, 6], [2, 2], [5, 5, 1]):
        r = read(faces, simple=True)
        assert (r.flairs, r.trials, r.tainted) == (0, 0, 0) and r.matches == [] and r.simple
    r = flairs.read(FlairsCheck(rank=0, simple=True), [2, 2])
    assert r.desperate and (r.outcome, r.trials) == ("failure", 0)
    assert read([6, 3], simple=True, cuts=1).outcome == "failure"


# --- darkness -----------------------------------------------------------------------------------


def test_darkness_adds_one_trial_whatever_the_outcome():
    r = read([6], darkness=True)
    assert (r.outcome, r.flairs, r.trials, r.tainted) == ("triumph", 0, 1, 0)
    assert [(t.source, t.name) for t in r.standing] == [("darkness", None)]
    r = read([3, 3], darkness=True)
    assert r.trials == 2 and [t.source for t in r.standing] == ["pair", "darkness"]
    r = read([5, 5], darkness=True)
    assert (r.flairs, r.trials) == (1, 1)


# --- random trials -----------------------------------------------------------------------------


def test_a_random_trial_is_a_d6_over_the_trials_in_order():
    assert [flairs.trial_for_face(f) for f in range(1, 7)] == [
        "costly",
        "slow",
        "loud",
        "harmful",
        "foolish",
        "chaotic",
    ]
    assert flairs.random_trial(fixed(3)) == "loud"


def test_each_flair_banishes_its_opposite():
    assert flairs.BANISHES == {
        "careful": "costly",
        "swift": "slow",
        "quiet": "loud",
        "unscathed": "harmful",
        "impressive": "foolish",
        "composed": "chaotic",
    }


# --- lurking trials ----------------------------------------------------------------------------


def lurking_check(names, **kw):
    return FlairsCheck(lurking=len(names), lurking_trials=names, **kw)


def test_lurking_trials_apply_even_on_a_success():
    c = lurking_check(["loud", "harmful"], rank=2)
    r = flairs.read(c, [6, 2])
    assert r.outcome == "triumph" and r.trials == 2 and r.lurking == 2
    assert [(t.source, t.name) for t in r.standing] == [("lurking", "loud"), ("lurking", "harmful")]
    assert not r.revealed and not r.chosen


def test_lurking_count_may_be_taken_from_the_names():
    r = flairs.read(FlairsCheck(rank=1, lurking_trials=["slow"]), [5])
    assert r.lurking == 1 and r.trials == 1 and r.lurking_trials == ["slow"]


def test_players_see_only_the_number_of_lurking_trials():
    c = lurking_check(["loud", "costly"], rank=2)
    r = flairs.read(c, [6, 2])
    safe = flairs.redact(r)
    assert safe.lurking == 2 and safe.trials == 2 and safe.lurking_trials is None and safe.lurking_dice is None
    assert [(t.source, t.name) for t in safe.standing] == [("lurking", None), ("lurking", None)]
    assert b"loud" not in msgspec.json.encode(safe) and b"costly" not in msgspec.json.encode(safe)
    assert r.lurking_trials == ["loud", "costly"]  # the GM's copy is untouched


def test_choosing_flairs_banishes_the_opposite_lurking_trial_then_reveals_the_rest():
    c = lurking_check(["loud", "harmful"], rank=3)
    r = flairs.read(c, [6, 6, 6])  # triumph, 2 flairs
    assert r.flairs == 2
    r2 = follow(c, r, FlairsChoose(flairs=["quiet", "swift"]))
    assert r2.chosen and r2.revealed and r2.chosen_flairs == ["quiet", "swift"]
    assert r2.banished == ["loud"] and r2.trials == 1
    assert [(t.source, t.name) for t in r2.standing] == [("lurking", "harmful")]
    assert flairs.redact(r2).lurking_trials == ["loud", "harmful"]  # revealed: nothing hidden any more
    assert r.trials == 2 and not r.chosen  # follow-ups never change the earlier result


def test_a_flair_banishes_one_lurking_trial_only():
    c = lurking_check(["loud", "loud"], rank=2)
    r = follow(c, flairs.read(c, [5, 5]), FlairsChoose(flairs=["quiet"]))
    assert r.banished == ["loud"] and [t.name for t in r.standing] == ["loud"]


def test_choosing_no_flairs_reveals_the_lurking_trials():
    c = lurking_check(["chaotic"], rank=2)
    r = flairs.read(c, [6, 5])
    assert r.flairs == 0 and not r.revealed
    r2 = follow(c, r, FlairsChoose(flairs=[]))
    assert r2.revealed and r2.chosen and r2.trials == 1 and flairs.redact(r2).lurking_trials == ["chaotic"]


def test_the_gm_reveals_lurking_trials_on_a_result_without_flairs():
    c = lurking_check(["costly"], rank=2)
    r = flairs.read(c, [3, 2])
    r2 = follow(c, r, FlairsReveal())
    assert r2.revealed and not r2.chosen and r2.trials == 1 and flairs.redact(r2).lurking_trials == ["costly"]


def test_lurking_trials_are_drawn_at_roll_time_and_read_back_from_the_faces():
    c = FlairsCheck(rank=2, lurking=2)
    faces = flairs.roll(c, fixed(6, 2, 3, 6))
    assert faces == [6, 2, 3, 6]  # the pool, then one d6 per lurking trial
    r = flairs.read(c, faces)
    assert r.dice == [6, 2] and r.outcome == "triumph"
    assert r.lurking_trials == ["loud", "chaotic"] and r.lurking_dice == [3, 6]
    assert flairs.read(c, faces) == r
    assert resolve(c, fixed(6, 2, 3, 6)) == r


def test_named_lurking_trials_need_no_draw():
    c = lurking_check(["slow"], rank=2)
    assert flairs.roll(c, fixed(4, 4)) == [4, 4]


def test_reading_pool_faces_leaves_lurking_trials_unset_until_the_gm_sets_them():
    c = FlairsCheck(rank=2, lurking=1)
    r = flairs.read(c, [6, 6])
    assert r.lurking == 1 and r.lurking_trials is None and r.trials == 1 and r.flairs == 1
    assert r.standing[0].source == "lurking" and r.standing[0].name is None
    refused("lurking_not_set", follow, c, r, FlairsChoose(flairs=["quiet"]))
    r2 = follow(c, r, FlairsSetLurking(trials=["loud"]))
    assert r2.lurking_trials == ["loud"] and not r2.revealed
    r3 = follow(c, r2, FlairsChoose(flairs=["quiet"]))
    assert r3.banished == ["loud"] and r3.trials == 0


def test_the_gm_may_set_lurking_trials_from_dice():
    c = FlairsCheck(rank=2, lurking=2)
    r = flairs.read(c, [6, 1])
    assert follow(c, r, FlairsSetLurking(dice=[1, 4])).lurking_trials == ["costly", "harmful"]
    r2 = follow(c, r, FlairsSetLurking(), fixed(2, 5))
    assert r2.lurking_trials == ["slow", "foolish"] and r2.lurking_dice == [2, 5]


# --- devil's bargain ---------------------------------------------------------------------------


def test_bargain_adds_a_die_and_reads_again():
    c = FlairsCheck(rank=2)
    r = flairs.read(c, [3, 2])
    assert r.outcome == "failure"
    r2 = follow(c, r, FlairsBargain(trial="harmful", dice=[5]))
    assert r2.outcome == "conflict" and r2.kept == [3, 2, 5] and r2.dice == [3, 2, 5]
    assert r2.bargain == "harmful" and r2.bargain_die == 5
    assert r2.trials == 1 and [(t.source, t.name) for t in r2.standing] == [("bargain", "harmful")]


def test_bargain_die_comes_from_the_dice_when_not_given():
    c = FlairsCheck(rank=1)
    r2 = follow(c, flairs.read(c, [1]), FlairsBargain(trial="slow"), fixed(6))
    assert r2.bargain_die == 6 and r2.outcome == "triumph"


def test_bargain_may_still_fail_and_its_die_joins_the_pairs():
    c = FlairsCheck(rank=2)
    r = follow(c, flairs.read(c, [3, 2]), FlairsBargain(trial="slow", dice=[3]))
    assert r.outcome == "failure" and (r.flairs, r.trials) == (0, 2)


def test_bargain_reads_the_pairs_again():
    c = FlairsCheck(rank=2)
    r = flairs.read(c, [3, 3])
    assert (r.outcome, r.flairs, r.trials) == ("failure", 0, 1)
    r2 = follow(c, r, FlairsBargain(trial="loud", dice=[6]))
    assert (r2.outcome, r2.flairs, r2.trials) == ("triumph", 1, 1)
    assert [t.source for t in r2.standing] == ["bargain"]


def test_earlier_cuts_are_not_reapplied_to_the_bargain_die():
    c = FlairsCheck(rank=2, cuts=1)
    r = flairs.read(c, [6, 2])
    assert r.kept == [2] and r.outcome == "failure"
    r2 = follow(c, r, FlairsBargain(trial="costly", dice=[6]))
    assert r2.kept == [2, 6] and r2.removed == [6] and r2.outcome == "triumph"
    # The 6s lost a die to the cut: tainted, a trial.
    assert (r2.flairs, r2.trials, r2.tainted) == (0, 2, 1)


def test_bargain_on_a_desperate_roll_reads_the_highest_kept():
    c = FlairsCheck(rank=1, cuts=1)
    r = flairs.read(c, [5, 2])
    assert r.desperate and r.outcome == "failure"
    r2 = follow(c, r, FlairsBargain(trial="slow", dice=[4]))
    assert r2.kept == [2, 4] and r2.outcome == "conflict"
    r3 = follow(c, r, FlairsBargain(trial="slow", dice=[5]))
    assert r3.outcome == "conflict" and (r3.flairs, r3.trials, r3.tainted) == (0, 2, 1)


def test_bargain_trial_cannot_be_banished_and_may_repeat_a_lurking_trial():
    c = lurking_check(["loud"], rank=2)
    r = flairs.read(c, [3, 3])
    r2 = follow(c, r, FlairsBargain(trial="loud", dice=[6]))
    assert r2.flairs == 1 and [t.name for t in r2.standing] == ["loud", "loud"]
    r3 = follow(c, r2, FlairsChoose(flairs=["quiet"]))
    assert r3.banished == ["loud"]
    assert [(t.source, t.name) for t in r3.standing] == [("bargain", "loud")]


def test_bargain_refusals():
    c = FlairsCheck(rank=2)
    fail = flairs.read(c, [3, 2])
    once = follow(c, fail, FlairsBargain(trial="slow", dice=[1]))
    assert once.outcome == "failure"
    refused("bargain_twice", follow, c, once, FlairsBargain(trial="slow", dice=[6]))
    refused("bargain_not_failure", follow, c, flairs.read(c, [5, 2]), FlairsBargain(trial="slow"))
    refused("bargain_not_failure", follow, c, flairs.read(c, [6, 2]), FlairsBargain(trial="slow"))
    won = follow(c, fail, FlairsBargain(trial="slow", dice=[6]))
    refused("bargain_twice", follow, c, won, FlairsBargain(trial="loud"))
    c0 = FlairsCheck(rank=0, edges=2)
    refused("bargain_needs_rank", follow, c0, flairs.read(c0, [3, 2]), FlairsBargain(trial="slow"))
    c00 = FlairsCheck(rank=0)
    refused("bargain_needs_rank", follow, c00, flairs.read(c00, [3, 2]), FlairsBargain(trial="slow"))
    # docs/rules/flairs.md names the checks without a bargain (a success, rank 0, a group check, a second one): a simple
    # check is not among them. Its re-read is success or failure, and the named trial stands.
    cs = FlairsCheck(rank=2, simple=True)
    b = follow(cs, flairs.read(cs, [3, 2]), FlairsBargain(trial="slow", dice=[5]))
    assert b.outcome == "success" and [t.name for t in b.standing] == ["slow"] and b.trials == 1
    cg = FlairsCheck(group=[FlairsParticipant(name="a", rank=1)])
    refused("bargain_in_group_check", follow, cg, flairs.read(cg, [1]), FlairsBargain(trial="slow"))
    refused("unknown_trial", follow, c, fail, FlairsBargain(trial="sleepy", dice=[6]))  # type: ignore[arg-type]
    refused("invalid_dice", follow, c, fail, FlairsBargain(trial="slow", dice=[7]))
    refused("invalid_dice", follow, c, fail, FlairsBargain(trial="slow", dice=[6, 6]))
    chosen = follow(c, fail, FlairsChoose(flairs=[]))
    after = follow(c, chosen, FlairsBargain(trial="slow", dice=[6]))  # a choice of no flairs does not close it
    assert after.outcome == "triumph" and after.bargain == "slow"


def test_a_bargain_after_the_judge_named_a_trial_can_incur_it_twice():
    # "If you accept a devil's bargain and a trial is already chosen by the Judge, you can incur the same
    # trial twice. You can only benefit from one devil's bargain per check."
    c = FlairsCheck(rank=3)
    named = follow(c, flairs.read(c, [3, 3, 1]), FlairsNameTrials(trials=["costly"]))
    b = follow(c, named, FlairsBargain(trial="costly", dice=[2]))
    assert b.outcome == "failure" and b.named
    assert [(t.source, t.name) for t in b.standing] == [("pair", "costly"), ("bargain", "costly")]
    refused("bargain_twice", follow, c, b, FlairsBargain(trial="loud", dice=[6]))
    # the new die turns the failure into a conflict: the untainted pair now gives a flair, its trial goes
    won = follow(c, named, FlairsBargain(trial="costly", dice=[5]))
    assert won.outcome == "conflict" and won.flairs == 1
    assert [(t.source, t.name) for t in won.standing] == [("bargain", "costly")]


def test_the_judges_names_stay_with_their_pairs_after_a_bargain():
    c = FlairsCheck(rank=4, darkness=True)
    r = flairs.read(c, [3, 3, 1, 1])  # two pair trials (3s, 1s) and darkness's
    named = follow(c, r, FlairsNameTrials(trials=["costly", "slow", "loud"]))
    b = follow(c, named, FlairsBargain(trial="harmful", dice=[3]))  # the 3s become a triple: one more trial
    assert [(t.source, t.name) for t in b.standing] == [
        ("pair", "costly"),
        ("pair", None),
        ("pair", "slow"),
        ("darkness", "loud"),
        ("bargain", "harmful"),
    ]
    assert not b.named
    done = follow(c, b, FlairsNameTrials(trials=["foolish"]))  # the Judge names only the new one
    assert [t.name for t in done.standing] == ["costly", "foolish", "slow", "loud", "harmful"] and done.named
    refused("trials_already_named", follow, c, done, FlairsNameTrials(trials=["foolish"]))


def test_a_bargain_after_the_lurking_trials_are_revealed():
    # Revealed lurking trials are trials the Judge chose: the bargain may follow, the same trial may stand
    # twice, and the revealed trials stay revealed and stand.
    c = lurking_check(["loud"], rank=2)
    revealed = follow(c, flairs.read(c, [3, 2]), FlairsReveal())
    b = follow(c, revealed, FlairsBargain(trial="loud", dice=[2]))
    assert b.outcome == "failure" and b.revealed
    assert [(t.source, t.name) for t in b.standing] == [("pair", None), ("lurking", "loud"), ("bargain", "loud")]
    # after the player's (empty) choice revealed them, a bargain that earns a flair opens the choice again,
    # but a chosen flair no longer banishes a trial the player already knows
    chosen = follow(c, flairs.read(c, [3, 3]), FlairsChoose(flairs=[]))
    assert chosen.revealed and chosen.lurking_trials == ["loud"]
    won = follow(c, chosen, FlairsBargain(trial="slow", dice=[6]))
    assert won.outcome == "triumph" and won.flairs == 1 and won.revealed and not won.chosen
    picked = follow(c, won, FlairsChoose(flairs=["quiet"]))
    assert picked.chosen_flairs == ["quiet"] and picked.banished == []
    assert sorted(t.name for t in picked.standing if t.name) == ["loud", "slow"]
    refused("flairs_already_chosen", follow, c, picked, FlairsChoose(flairs=["quiet"]))
    refused("bargain_twice", follow, c, picked, FlairsBargain(trial="loud", dice=[6]))


# --- the flair choice ----------------------------------------------------------------------------


def test_choice_refusals():
    c = FlairsCheck(rank=3)
    r = flairs.read(c, [6, 6, 1])  # 1 flair
    refused("flair_chosen_twice", follow, c, flairs.read(c, [6, 6, 6]), FlairsChoose(flairs=["quiet", "quiet"]))
    refused("too_many_flairs", follow, c, r, FlairsChoose(flairs=["quiet", "swift"]))
    refused("too_many_flairs", follow, c, flairs.read(c, [6, 5, 1]), FlairsChoose(flairs=["quiet"]))
    refused("unknown_flair", follow, c, r, FlairsChoose(flairs=["lucky"]))  # type: ignore[list-item]
    once = follow(c, r, FlairsChoose(flairs=["careful"]))
    assert once.chosen_flairs == ["careful"] and once.flairs == 1
    refused("flairs_already_chosen", follow, c, once, FlairsChoose(flairs=[]))
    cs = FlairsCheck(rank=2, simple=True)
    refused("choice_in_simple_check", follow, cs, flairs.read(cs, [6, 6]), FlairsChoose())
    cg = FlairsCheck(group=[FlairsParticipant(name="a", rank=1)])
    refused("choice_in_simple_check", follow, cg, flairs.read(cg, [6]), FlairsChoose())
    cl = lurking_check(["slow"], rank=2)
    revealed = follow(cl, flairs.read(cl, [3, 1]), FlairsReveal())
    refused("already_revealed", follow, cl, revealed, FlairsChoose())


def test_reveal_refusals():
    c = FlairsCheck(rank=2)
    refused("no_lurking_trials", follow, c, flairs.read(c, [3, 1]), FlairsReveal())
    cl = lurking_check(["slow"], rank=2)
    refused("reveal_before_choice", follow, cl, flairs.read(cl, [6, 6]), FlairsReveal())
    once = follow(cl, flairs.read(cl, [3, 1]), FlairsReveal())
    refused("already_revealed", follow, cl, once, FlairsReveal())
    chosen = follow(cl, flairs.read(cl, [6, 6]), FlairsChoose(flairs=["careful"]))
    refused("already_revealed", follow, cl, chosen, FlairsReveal())
    cu = FlairsCheck(rank=2, lurking=1)
    refused("lurking_not_set", follow, cu, flairs.read(cu, [3, 1]), FlairsReveal())


def test_set_lurking_refusals():
    c = FlairsCheck(rank=2)
    refused("no_lurking_trials", follow, c, flairs.read(c, [3, 1]), FlairsSetLurking(trials=[]))
    cl = lurking_check(["slow"], rank=2)
    refused("lurking_already_set", follow, cl, flairs.read(cl, [3, 1]), FlairsSetLurking(trials=["loud"]))
    cu = FlairsCheck(rank=2, lurking=2)
    r = flairs.read(cu, [3, 1])
    refused("trial_count_mismatch", follow, cu, r, FlairsSetLurking(trials=["loud"]))
    refused("unknown_trial", follow, cu, r, FlairsSetLurking(trials=["loud", "wet"]))  # type: ignore[list-item]
    refused("trials_and_dice", follow, cu, r, FlairsSetLurking(trials=["loud", "slow"], dice=[1, 2]))
    refused("invalid_dice", follow, cu, r, FlairsSetLurking(dice=[1]))
    refused("invalid_dice", follow, cu, r, FlairsSetLurking(dice=[1, 0]))


# --- naming the Judge's trials ------------------------------------------------------------------


def test_the_judge_names_pair_and_darkness_trials():
    c = lurking_check(["foolish"], rank=3, darkness=True)
    r = flairs.read(c, [3, 3, 3])  # failure: 2 pair trials, darkness, 1 lurking
    assert r.trials == 4
    r2 = follow(c, r, FlairsNameTrials(trials=["costly", "slow", "loud"]))
    assert r2.named and [(t.source, t.name) for t in r2.standing] == [
        ("pair", "costly"),
        ("pair", "slow"),
        ("darkness", "loud"),
        ("lurking", "foolish"),
    ]
    assert [t.name for t in flairs.redact(r2).standing] == ["costly", "slow", "loud", None]
    r3 = follow(c, r, FlairsNameTrials(), fixed(6, 1, 4))
    assert [t.name for t in r3.standing][:3] == ["chaotic", "costly", "harmful"]
    # Naming survives later follow-ups.
    r4 = follow(c, r2, FlairsReveal())
    assert [t.name for t in r4.standing] == ["costly", "slow", "loud", "foolish"]
    refused("trials_already_named", follow, c, r2, FlairsNameTrials(trials=["costly", "slow", "loud"]))
    refused("trial_count_mismatch", follow, c, r, FlairsNameTrials(trials=["costly"]))
    c0 = FlairsCheck(rank=2)
    refused("no_trials_to_name", follow, c0, flairs.read(c0, [6, 1]), FlairsNameTrials())


def test_unknown_followup():
    class Other(Action, tag="test_only_other_action"):
        pass

    c = FlairsCheck(rank=1)
    refused("unknown_followup", follow, c, flairs.read(c, [1]), Other())


# --- group checks -----------------------------------------------------------------------------------


def group(*parts, **kw):
    return FlairsCheck(group=[FlairsParticipant(name=n, rank=r, **extra) for n, r, extra in parts], **kw)


@pytest.mark.parametrize(
    "faces, outcome",
    [
        ([6, 4, 1], "success"),  # 2 of 3
        ([6, 1, 1], "failure"),  # 1 of 3
        ([4, 4, 4], "success"),
        ([3, 3, 3], "failure"),
    ],
)
def test_group_check_succeeds_when_at_least_half_succeed(faces, outcome):
    c = group(("a", 1, {}), ("b", 1, {}), ("c", 1, {}))
    r = flairs.read(c, faces)
    assert r.outcome == outcome and r.simple and (r.flairs, r.trials) == (0, 0)
    assert [p.outcome for p in r.group] == ["success" if f >= 4 else "failure" for f in faces]


def test_half_of_an_even_group_is_enough():
    c = group(("a", 1, {}), ("b", 1, {}))
    assert flairs.read(c, [5, 2]).outcome == "success"
    assert flairs.read(c, [3, 2]).outcome == "failure"


def test_group_dice_are_each_participants_faces_in_order():
    c = group(("a", 2, {"cuts": 1}), ("b", 0, {}), ("c", 1, {"edges": 1}))
    assert flairs.sizes(c) == [6] * 6
    r = flairs.read(c, [6, 2, 5, 3, 1, 4])
    a, b, cc = r.group
    assert (a.dice, a.kept, a.removed, a.outcome) == ([6, 2], [2], [6], "failure")
    assert (b.dice, b.kept, b.desperate, b.outcome) == ([5, 3], [3], True, "failure")
    assert (cc.dice, cc.highest, cc.outcome) == ([1, 4], 4, "success")
    assert r.outcome == "failure" and r.dice == [6, 2, 5, 3, 1, 4] and r.springs == []


def test_room_trap_failure_is_sprung_by_the_lowest():
    c = group(("a", 1, {}), ("b", 1, {}), ("c", 1, {}), trap=True)
    assert flairs.read(c, [3, 1, 5]).springs == ["b"]
    assert flairs.read(c, [2, 2, 3]).springs == ["a", "b"]  # all tied lowest are named
    assert flairs.read(c, [6, 1, 5]).springs == []  # success: the trap is spotted in time
    r = flairs.read(c, [2, 2, 3])
    assert r.trap and r.outcome == "failure"


def test_group_refusals():
    refused("empty_group", flairs.read, FlairsCheck(group=[]), [])
    refused("group_check_fields", flairs.read, group(("a", 1, {}), rank=2), [1])
    refused("group_check_fields", flairs.read, group(("a", 1, {}), darkness=True), [1])
    refused("group_check_fields", flairs.read, group(("a", 1, {}), lurking=1), [1])
    refused("duplicate_participant", flairs.read, group(("a", 1, {}), ("a", 1, {})), [1, 1])
    refused("invalid_check", flairs.read, group(("a", -1, {})), [1])
    refused("invalid_dice", flairs.read, group(("a", 1, {}), ("b", 2, {})), [1, 1])
    refused("trap_needs_group", flairs.read, FlairsCheck(rank=1, trap=True), [1])


# --- check refusals -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, faces, code",
    [
        ({"rank": -1}, [1, 1], "invalid_check"),
        ({"rank": 1, "edges": -1}, [1, 1], "invalid_check"),
        ({"rank": 1, "cuts": -1}, [1], "invalid_check"),
        ({"rank": 1, "lurking": -1}, [1], "invalid_check"),
        ({"rank": 31}, [1] * 31, "too_many_dice"),
        ({"rank": 29, "edges": 2}, [1] * 31, "too_many_dice"),
        ({"rank": 1, "lurking": 13}, [1], "too_many_lurking"),
        ({"rank": 1, "lurking": 2, "lurking_trials": ["loud"]}, [1], "lurking_count_mismatch"),
        ({"rank": 1, "lurking_trials": ["wet"]}, [1], "unknown_trial"),
        ({"rank": 1, "simple": True, "lurking": 1}, [1], "simple_check_trials"),
        ({"rank": 3}, [1, 2], "invalid_dice"),
        ({"rank": 2}, [7, 1], "invalid_dice"),
        ({"rank": 2}, [0, 1], "invalid_dice"),
        ({"rank": 0}, [1], "invalid_dice"),
        ({"rank": 2, "cuts": 2}, [1, 1, 1], "invalid_dice"),
        ({"rank": 2, "lurking": 2}, [1, 1, 1], "invalid_dice"),
        ({"rank": 2, "lurking": 1}, [1, 1, 7], "invalid_dice"),
    ],
)
def test_refused(kw, faces, code):
    e = refused(code, flairs.read, FlairsCheck(**kw), faces)
    assert e.message.startswith("flairs") or isinstance(e, DiceError)


def test_follow_up_errors_are_follow_up_errors():
    c = FlairsCheck(rank=2)
    with pytest.raises(FollowUpError):
        follow(c, flairs.read(c, [6, 1]), FlairsBargain(trial="slow"))


# --- describe and the wire ----------------------------------------------------------------------------


def test_describe_and_round_trip():
    c = lurking_check(["loud"], rank=3, cuts=1, darkness=True)
    r = flairs.read(c, [6, 6, 1])
    text = flairs.describe(r)
    assert "triumph" in text and "tainted" in text and "loud" in text
    assert "loud" not in flairs.describe(flairs.redact(r))
    assert msgspec.json.decode(msgspec.json.encode(r), type=FlairsResult) == r
    g = flairs.read(group(("a", 1, {}), ("b", 1, {}), trap=True), [1, 2])
    assert "a" in flairs.describe(g) and g.springs == ["a"]


# --- properties -------------------------------------------------------------------------------------------

faces_st = st.lists(st.integers(1, 6), min_size=1, max_size=12)


@given(faces_st, st.integers(0, 11), st.integers(1, 6))
def test_adding_an_edge_never_lowers_the_best_kept_die(faces, cuts, extra):
    cuts = min(cuts, len(faces) - 1)  # stay off the desperate roll
    before = read(faces, cuts=cuts)
    after = flairs.read(FlairsCheck(rank=len(faces), edges=1, cuts=cuts), faces + [extra])
    assert after.highest >= before.highest


@given(faces_st, st.integers(0, 14), st.booleans())
def test_flairs_and_pair_trials_are_the_sum_over_groups_of_k_minus_1(faces, cuts, darkness):
    if cuts >= len(faces):
        faces = (faces + faces)[:2]  # a desperate roll: 2d6
    r = read(faces, cuts=cuts, darkness=darkness)
    pair_trials = sum(1 for t in r.standing if t.source == "pair")
    assert r.flairs + pair_trials == sum(k - 1 for k in Counter(faces).values())
    assert r.trials == len(r.standing) == pair_trials + darkness
    assert r.tainted <= pair_trials
    assert sorted(r.kept + r.removed) == sorted(faces)
    if r.outcome == "failure":
        assert r.flairs == 0


@given(faces_st, st.integers(0, 11), st.randoms())
def test_reading_does_not_depend_on_order(faces, cuts, rnd):
    cuts = min(cuts, len(faces) - 1)
    shuffled = list(faces)
    rnd.shuffle(shuffled)
    a, b = read(faces, cuts=cuts), read(shuffled, cuts=cuts)
    assert (a.outcome, a.flairs, a.trials, a.tainted, sorted(a.kept)) == (
        b.outcome,
        b.flairs,
        b.trials,
        b.tainted,
        sorted(b.kept),
    )


@given(faces_st, st.integers(0, 11))
def test_cuts_keep_the_lowest(faces, cuts):
    if cuts >= len(faces):
        two = (faces + faces)[:2]
        r = read(two, rank=len(faces), cuts=cuts)
        assert r.desperate and r.kept == [min(two)] and r.removed == [max(two)]
    else:
        r = read(faces, cuts=cuts)
        assert sorted(r.kept, reverse=True) == sorted(faces, reverse=True)[cuts:]
        assert r.removed == sorted(faces, reverse=True)[:cuts]


@given(st.integers(0, 8), st.integers(0, 3), st.integers(0, 10), st.integers(0, 3), st.booleans())
def test_rolled_checks_read_back(rank, edges, cuts, lurking, darkness):
    c = FlairsCheck(rank=rank, edges=edges, cuts=cuts, lurking=lurking, darkness=darkness)
    faces = flairs.roll(c, Dice())
    n = 2 if rank + edges == 0 or cuts >= rank + edges else rank + edges
    assert len(faces) == n + lurking
    r = flairs.read(c, faces)
    assert len(r.dice) == n and r.lurking == lurking
    assert lurking == 0 or (r.lurking_trials is not None and len(r.lurking_trials) == lurking)
    assert r.trials >= lurking + darkness
    safe = flairs.redact(r)
    assert safe.trials == r.trials and (lurking == 0 or safe.lurking_trials is None)


def test_darkness_adds_no_trial_to_a_simple_check():
    # "A simple check cannot generate flairs or trials": darkness's extra trial included.
    r = flairs.read(FlairsCheck(rank=2, simple=True, darkness=True), [2, 2])
    assert r.outcome == "failure" and r.trials == 0 and r.standing == []


# --- resolve: validated once, its own faces not checked again ------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    rank=st.integers(0, 6),
    edges=st.integers(0, 3),
    cuts=st.integers(0, 4),
    lurking=st.integers(0, 3),
    named=st.booleans(),
    simple=st.booleans(),
    darkness=st.booleans(),
    seed=st.binary(min_size=64, max_size=64),
)
def test_resolve_gives_what_reading_the_same_roll_gives(rank, edges, cuts, lurking, named, simple, darkness, seed):
    trials = ["loud", "slow", "costly"][:lurking] if named and not simple else None
    check = FlairsCheck(
        rank=rank,
        edges=edges,
        cuts=cuts,
        simple=simple,
        darkness=darkness,
        lurking=0 if simple or named else lurking,
        lurking_trials=trials,
    )
    source = lambda n: (seed * (n // len(seed) + 1))[:n]  # noqa: E731
    fused = flairs.resolve(check, Dice(source))
    stepwise = flairs.read(check, flairs.roll(check, Dice(source)))
    assert msgspec.json.encode(fused) == msgspec.json.encode(stepwise)


def test_resolve_refuses_what_roll_refuses():
    with pytest.raises(CheckError):
        flairs.resolve(FlairsCheck(rank=-1), Dice())
    group = FlairsCheck(group=[FlairsParticipant(name="a", rank=1), FlairsParticipant(name="b", rank=2)])
    assert flairs.resolve(group, Dice()).group is not None


# =====================================================================================================
# Cases worked out by hand from docs/rules/flairs.md without looking at the engine's answer: faces in, the
# result fields the text and its rulings name out, with edge cases at every band boundary and ladder step.
# =====================================================================================================


def no_dice() -> Dice:
    """A source that fails the test if a follow-up rolls when its faces were given."""

    def source(n: int) -> bytes:
        raise AssertionError("rolled a die although the faces were given")

    return Dice(source)


# (rank, edges, cuts, faces) -> (outcome, kept, removed, flairs, trials, tainted, desperate)
FLAIRS_CASES = [
    # The text's example: triumph with 4 flairs (two from the 6s, two from the 1s).
    (6, 0, 0, [6, 6, 1, 6, 1, 1], "triumph", [6, 6, 1, 6, 1, 1], [], 4, 0, 0, False),
    # Bands of the highest die.
    (1, 0, 0, [6], "triumph", [6], [], 0, 0, 0, False),
    (1, 0, 0, [5], "conflict", [5], [], 0, 0, 0, False),
    (1, 0, 0, [4], "conflict", [4], [], 0, 0, 0, False),
    (1, 0, 0, [3], "failure", [3], [], 0, 0, 0, False),
    (1, 0, 0, [1], "failure", [1], [], 0, 0, 0, False),
    # Pairs: flairs on success, trials on failure; a triple gives 2, four of a kind 3.
    (3, 0, 0, [4, 4, 2], "conflict", [4, 4, 2], [], 1, 0, 0, False),
    (3, 0, 0, [3, 3, 1], "failure", [3, 3, 1], [], 0, 1, 0, False),
    (3, 0, 0, [2, 2, 2], "failure", [2, 2, 2], [], 0, 2, 0, False),
    (4, 0, 0, [5, 5, 5, 5], "conflict", [5, 5, 5, 5], [], 3, 0, 0, False),
    (5, 0, 0, [6, 3, 3, 1, 1], "triumph", [6, 3, 3, 1, 1], [], 2, 0, 0, False),
    # Edges add dice.
    (1, 2, 0, [2, 6, 2], "triumph", [2, 6, 2], [], 1, 0, 0, False),
    (0, 1, 0, [5], "conflict", [5], [], 0, 0, 0, False),  # pool 1 from an edge alone: not desperate
    # Cuts remove the highest remaining die, each.
    (3, 0, 1, [6, 5, 2], "conflict", [5, 2], [6], 0, 0, 0, False),
    (3, 0, 2, [6, 5, 2], "failure", [2], [6, 5], 0, 0, 0, False),
    (4, 0, 1, [6, 3, 3, 2], "failure", [3, 3, 2], [6], 0, 1, 0, False),
    (4, 0, 1, [6, 4, 4, 2], "conflict", [4, 4, 2], [6], 1, 0, 0, False),
    # A pair that lost a die to a cut is tainted: trials whatever the outcome.
    (3, 0, 1, [6, 6, 2], "triumph", [6, 2], [6], 0, 1, 1, False),
    (2, 0, 1, [6, 6], "triumph", [6], [6], 0, 1, 1, False),
    (4, 0, 2, [6, 5, 5, 3], "conflict", [5, 3], [6, 5], 0, 1, 1, False),
    (5, 0, 1, [6, 6, 6, 4, 4], "triumph", [6, 6, 4, 4], [6], 1, 2, 2, False),
    (5, 1, 2, [6, 6, 1, 6, 1, 1], "triumph", [1, 6, 1, 1], [6, 6], 2, 2, 2, False),
    (4, 0, 3, [2, 5, 5, 5], "failure", [2], [5, 5, 5], 0, 2, 2, False),
    (4, 0, 1, [5, 5, 6, 6], "triumph", [5, 5, 6], [6], 1, 1, 1, False),
    # Cuts equal to or above the pool, or no dice: 2d6, lowest kept, every pair tainted.
    (0, 0, 0, [3, 5], "failure", [3], [5], 0, 0, 0, True),
    (0, 0, 0, [5, 4], "conflict", [4], [5], 0, 0, 0, True),
    (0, 0, 0, [6, 6], "triumph", [6], [6], 0, 1, 1, True),
    (0, 0, 0, [4, 4], "conflict", [4], [4], 0, 1, 1, True),
    (0, 0, 0, [1, 1], "failure", [1], [1], 0, 1, 1, True),
    (2, 0, 2, [6, 2], "failure", [2], [6], 0, 0, 0, True),
    (2, 0, 2, [6, 6], "triumph", [6], [6], 0, 1, 1, True),
    (1, 0, 1, [5, 6], "conflict", [5], [6], 0, 0, 0, True),
    (2, 1, 5, [3, 3], "failure", [3], [3], 0, 1, 1, True),
    # One cut fewer than the pool is not desperate.
    (1, 1, 1, [6, 2], "failure", [2], [6], 0, 0, 0, False),
    (3, 0, 2, [6, 6, 6], "triumph", [6], [6, 6], 0, 2, 2, False),
]


@pytest.mark.parametrize(
    "rank, edges, cuts, faces, outcome, kept, removed, n_flairs, trials, tainted, desperate", FLAIRS_CASES
)
def test_flairs_cases(rank, edges, cuts, faces, outcome, kept, removed, n_flairs, trials, tainted, desperate):
    r = flairs.read(FlairsCheck(rank=rank, edges=edges, cuts=cuts), faces)
    assert (r.outcome, sorted(r.kept), sorted(r.removed), r.flairs, r.trials, r.tainted, r.desperate) == (
        outcome,
        sorted(kept),
        sorted(removed),
        n_flairs,
        trials,
        tainted,
        desperate,
    )
    assert r.dice == faces


@pytest.mark.parametrize(
    "rank, cuts, faces, outcome",
    [
        (2, 0, [4, 4], "success"),
        (2, 0, [3, 3], "failure"),
        (1, 0, [4], "success"),
        (1, 0, [3], "failure"),
        (3, 1, [6, 3, 2], "failure"),
        (3, 1, [6, 4, 2], "success"),
        (0, 0, [4, 6], "success"),
        (0, 0, [3, 6], "failure"),
        (2, 2, [6, 6], "success"),
    ],
)
def test_flairs_simple_check_has_no_flairs_or_trials(rank, cuts, faces, outcome):
    r = flairs.read(FlairsCheck(rank=rank, cuts=cuts, simple=True), faces)
    assert (r.outcome, r.flairs, r.trials, r.tainted) == (outcome, 0, 0, 0)


@pytest.mark.parametrize(
    "faces, outcome, n_flairs, trials",
    [([6, 2], "triumph", 0, 1), ([5, 5], "conflict", 1, 1), ([3, 3], "failure", 0, 2), ([2, 1], "failure", 0, 1)],
)
def test_flairs_darkness_adds_one_trial(faces, outcome, n_flairs, trials):
    r = flairs.read(FlairsCheck(rank=2, darkness=True), faces)
    assert (r.outcome, r.flairs, r.trials) == (outcome, n_flairs, trials)


@pytest.mark.parametrize(
    "face, trial", list(enumerate(["costly", "slow", "loud", "harmful", "foolish", "chaotic"], start=1))
)
def test_flairs_random_trial_is_a_d6_in_order(face, trial):
    assert flairs.trial_for_face(face) == trial
    # The same order draws lurking trials after the pool's faces.
    r = flairs.read(FlairsCheck(rank=1, lurking=1), [2, face])
    assert r.lurking_trials == [trial] and r.dice == [2]


def test_flairs_flair_banishes_its_trial_in_order():
    pairs = dict(
        zip(
            ["careful", "swift", "quiet", "unscathed", "impressive", "composed"],
            ["costly", "slow", "loud", "harmful", "foolish", "chaotic"],
        )
    )
    for flair, trial in pairs.items():
        check = FlairsCheck(rank=2, lurking_trials=[trial])
        r = flairs.read(check, [5, 5])
        assert r.flairs == 1 and r.trials == 1  # the lurking trial stands until banished
        done = followups.follow(check, r, FlairsChoose(flairs=[flair]), no_dice())
        assert done.banished == [trial] and done.trials == 0 and done.revealed


# Lurking trials: (lurking_trials, faces, chosen) -> (trials standing before, after, banished)
LURKING = [
    # They apply even on a success (triumph without pairs).
    (["loud"], [6, 2], [], 1, 1, []),
    (["loud"], [5, 5], ["quiet"], 1, 0, ["loud"]),
    (["loud"], [5, 5], ["careful"], 1, 1, []),
    # A flair applies at most once per result: it banishes one of two equal lurking trials.
    (["loud", "loud"], [5, 5], ["quiet"], 2, 1, ["loud"]),
    (["loud", "costly"], [5, 5, 5], ["quiet", "careful"], 2, 0, ["loud", "costly"]),
    # Lurking trials on a failure stand alongside the pair's trial.
    (["slow"], [3, 3], [], 2, 2, []),
]


@pytest.mark.parametrize("names, faces, chosen, before, after, banished", LURKING)
def test_flairs_lurking_trials(names, faces, chosen, before, after, banished):
    check = FlairsCheck(rank=len(faces), lurking=len(names), lurking_trials=names)
    r = flairs.read(check, faces)
    assert r.trials == before and r.lurking == len(names)
    # Players see only the number until revealed.
    hidden = flairs.redact(r)
    assert hidden.lurking == len(names) and hidden.lurking_trials is None
    assert all(t.name is None for t in hidden.standing if t.source == "lurking")
    if r.flairs:
        done = followups.follow(check, r, FlairsChoose(flairs=chosen), no_dice())
    else:
        done = followups.follow(check, r, FlairsReveal(), no_dice())
    assert done.trials == after and done.banished == banished and done.revealed
    assert flairs.redact(done).lurking_trials == names


def test_flairs_flairs_do_not_banish_tainted_pair_trials():
    # A tainted pair's trial is not a lurking trial: choosing its opposite leaves it standing.
    check = FlairsCheck(rank=4, cuts=1, lurking_trials=["loud"])
    r = flairs.read(check, [6, 6, 4, 4])  # one 6 cut: kept [6, 4, 4] triumph; 6s tainted, 4s flair
    assert (r.outcome, r.flairs, r.trials, r.tainted) == ("triumph", 1, 2, 1)
    done = followups.follow(check, r, FlairsChoose(flairs=["quiet"]), no_dice())
    assert (done.trials, done.tainted, done.banished) == (1, 1, ["loud"])


@pytest.mark.parametrize(
    "chosen, earned_faces",
    [(["quiet", "quiet"], [5, 5, 5]), (["quiet", "careful"], [5, 5]), (["quiet"], [5, 2])],
)
def test_flairs_choice_refused(chosen, earned_faces):
    check = FlairsCheck(rank=len(earned_faces), lurking_trials=["loud"])
    with pytest.raises(FollowUpError):
        followups.follow(check, flairs.read(check, earned_faces), FlairsChoose(flairs=chosen), no_dice())


# Devil's bargain: (rank, edges, cuts, faces, trial, die) -> (outcome, kept, flairs, trials, tainted)
BARGAIN = [
    # The new die can turn a failure into a triumph; the named trial stands.
    (2, 0, 0, [3, 1], "slow", 6, "triumph", [3, 1, 6], 0, 1, 0),
    # The pairs are read again: an untainted pair of 3s gives a flair on the new conflict.
    (2, 0, 0, [3, 3], "costly", 5, "conflict", [3, 3, 5], 1, 1, 0),
    # The new die can make a pair on a failure: a trial more.
    (2, 0, 0, [3, 1], "loud", 3, "failure", [3, 1, 3], 0, 2, 0),
    (2, 0, 0, [3, 1], "loud", 1, "failure", [3, 1, 1], 0, 2, 0),
    # Earlier cuts are not re-applied; the new die pairs with a cut die: a tainted group.
    (3, 0, 1, [6, 2, 1], "harmful", 6, "triumph", [2, 1, 6], 0, 2, 1),
    (3, 0, 1, [6, 2, 1], "harmful", 4, "conflict", [2, 1, 4], 0, 1, 0),
    # The new die matching a kept die on a failure: an untainted pair, a trial.
    (3, 0, 1, [6, 2, 1], "foolish", 2, "failure", [2, 1, 2], 0, 2, 0),
    # Edges count in the pool; the rank is at least 1.
    (1, 1, 0, [2, 3], "chaotic", 4, "conflict", [2, 3, 4], 0, 1, 0),
]


@pytest.mark.parametrize("rank, edges, cuts, faces, trial, die, outcome, kept, n_flairs, trials, tainted", BARGAIN)
def test_flairs_devils_bargain(rank, edges, cuts, faces, trial, die, outcome, kept, n_flairs, trials, tainted):
    check = FlairsCheck(rank=rank, edges=edges, cuts=cuts)
    r = flairs.read(check, faces)
    assert r.outcome == "failure"
    b = followups.follow(check, r, FlairsBargain(trial=trial, dice=[die]), no_dice())
    assert (b.outcome, sorted(b.kept), b.flairs, b.trials, b.tainted) == (
        outcome,
        sorted(kept),
        n_flairs,
        trials,
        tainted,
    )
    assert b.bargain == trial and b.bargain_die == die and b.dice == faces + [die]
    assert any(t.source == "bargain" and t.name == trial for t in b.standing)
    # Once per check.
    with pytest.raises(FollowUpError):
        followups.follow(check, b, FlairsBargain(trial=trial, dice=[6]), no_dice())


def test_flairs_bargain_on_a_desperate_roll_adds_to_the_kept_die():
    # Cuts >= pool with rank 1: desperate. The new die joins the kept (lowest) die; the highest kept is read.
    check = FlairsCheck(rank=1, cuts=1)
    r = flairs.read(check, [2, 5])
    assert (r.outcome, r.kept, r.desperate) == ("failure", [2], True)
    b = followups.follow(check, r, FlairsBargain(trial="slow", dice=[4]), no_dice())
    assert (b.outcome, sorted(b.kept), b.trials) == ("conflict", [2, 4], 1)
    # Pairs on a desperate roll stay tainted after the bargain.
    b2 = followups.follow(check, r, FlairsBargain(trial="slow", dice=[5]), no_dice())
    assert (b2.outcome, b2.flairs, b2.trials, b2.tainted) == ("conflict", 0, 2, 1)


def test_flairs_bargain_may_repeat_the_judges_trial():
    check = FlairsCheck(rank=2)
    r = flairs.read(check, [3, 3])
    named = followups.follow(check, r, FlairsNameTrials(trials=["slow"]), no_dice())
    assert [t.name for t in named.standing] == ["slow"]
    # The bargain names the same trial as one the Judge would choose: allowed (before naming settles it).
    b = followups.follow(check, r, FlairsBargain(trial="slow", dice=[2]), no_dice())
    assert b.outcome == "failure" and b.trials == 2 and b.bargain == "slow"


@pytest.mark.parametrize(
    "kw, faces",
    [
        ({"rank": 2}, [4, 1]),  # not a failure
        ({"rank": 2}, [6, 1]),
        ({"rank": 0, "edges": 2}, [3, 1]),  # no skill rank
        ({"rank": 0}, [3, 1]),  # untrained, desperate
    ],
)
def test_flairs_bargain_refused(kw, faces):
    check = FlairsCheck(**kw)
    with pytest.raises(FollowUpError):
        followups.follow(check, flairs.read(check, faces), FlairsBargain(trial="slow", dice=[6]), no_dice())


def test_flairs_bargain_refused_in_a_group_check():
    check = FlairsCheck(group=[FlairsParticipant(name="a", rank=1), FlairsParticipant(name="b", rank=1)])
    r = flairs.read(check, [1, 2])
    assert r.outcome == "failure"
    with pytest.raises(FollowUpError):
        followups.follow(check, r, FlairsBargain(trial="slow", dice=[6]), no_dice())


def P(name, rank=1, edges=0, cuts=0):
    return FlairsParticipant(name=name, rank=rank, edges=edges, cuts=cuts)


# Group checks: (participants, faces, trap) -> (outcome, per-participant outcomes, springs)
GROUP = [
    # Half or more succeed.
    ([P("a"), P("b")], [4, 3], False, "success", ["success", "failure"], []),
    ([P("a"), P("b")], [3, 3], False, "failure", ["failure", "failure"], []),
    ([P("a"), P("b"), P("c")], [4, 3, 2], False, "failure", ["success", "failure", "failure"], []),
    ([P("a"), P("b"), P("c")], [4, 5, 2], False, "success", ["success", "success", "failure"], []),
    (
        [P("a"), P("b"), P("c"), P("d")],
        [6, 3, 4, 1],
        False,
        "success",
        ["success", "failure", "success", "failure"],
        [],
    ),
    (
        [P("a"), P("b"), P("c"), P("d")],
        [6, 3, 3, 1],
        False,
        "failure",
        ["success", "failure", "failure", "failure"],
        [],
    ),
    ([P("a")], [3], False, "failure", ["failure"], []),
    ([P("a")], [4], False, "success", ["success"], []),
    # Each participant's own pool, cuts and desperate roll (simple checks).
    ([P("a", rank=2, cuts=1), P("b", rank=0)], [6, 3, 2, 5], False, "failure", ["failure", "failure"], []),
    ([P("a", rank=0, edges=2), P("b", rank=1, cuts=1)], [1, 4, 6, 4], False, "success", ["success", "success"], []),
    # A room trap: on a failure the lowest result springs it; all tied lowest are named.
    (
        [P("a"), P("b"), P("c"), P("d")],
        [3, 2, 5, 2],
        True,
        "failure",
        ["failure", "failure", "success", "failure"],
        ["b", "d"],
    ),
    ([P("a"), P("b"), P("c")], [3, 1, 2], True, "failure", ["failure", "failure", "failure"], ["b"]),
    ([P("a"), P("b")], [4, 1], True, "success", ["success", "failure"], []),
    # a: [1, 6] reads 6, a success; b (desperate) [6, 2] reads 2; one of two is half: no one springs it.
    ([P("a", rank=2), P("b", rank=0)], [1, 6, 6, 2], True, "success", ["success", "failure"], []),
]


@pytest.mark.parametrize("people, faces, trap, outcome, each, springs", GROUP)
def test_flairs_group_checks(people, faces, trap, outcome, each, springs):
    r = flairs.read(FlairsCheck(group=people, trap=trap), faces)
    assert r.outcome == outcome
    assert [p.outcome for p in r.group] == each
    assert r.springs == springs
    assert r.flairs == 0 and r.trials == 0


def test_flairs_room_trap_lowest_result_uses_each_kept_die():
    # a: rank 2, one cut [6, 3] -> reads 3; b: desperate [5, 2] -> reads 2; c: [1]. c springs it.
    people = [P("a", rank=2, cuts=1), P("b", rank=0), P("c")]
    r = flairs.read(FlairsCheck(group=people, trap=True), [6, 3, 5, 2, 1])
    assert [p.highest for p in r.group] == [3, 2, 1]
    assert r.outcome == "failure" and r.springs == ["c"]


def test_flairs_set_lurking_from_dice_and_the_judges_random_trials():
    check = FlairsCheck(rank=2, lurking=2)
    r = flairs.read(check, [5, 5])  # lurking trials not drawn yet
    assert r.lurking_trials is None and r.lurking == 2
    r = followups.follow(check, r, FlairsSetLurking(dice=[3, 6]), no_dice())
    assert r.lurking_trials == ["loud", "chaotic"] and not r.revealed
    done = followups.follow(check, r, FlairsChoose(flairs=["composed"]), no_dice())
    assert done.banished == ["chaotic"] and [t.name for t in done.standing] == ["loud"]


# Every possible roll of small pools against a transcription of the rulings that shares no code with
# the engine.


def _ref_flairs(n: int, cuts: int, faces: list[int]) -> tuple:
    desperate = n == 0 or cuts >= n
    if desperate:
        kept, removed = [min(faces)], [max(faces)]
    else:
        ordered = sorted(faces, reverse=True)
        kept, removed = ordered[cuts:], ordered[:cuts]
    high = max(kept)
    outcome = "triumph" if high == 6 else "conflict" if high >= 4 else "failure"
    got_flairs = trials = tainted = 0
    for face, count in Counter(faces).items():
        if count < 2:
            continue
        if desperate or face in removed:
            trials += count - 1
            tainted += count - 1
        elif outcome == "failure":
            trials += count - 1
        else:
            got_flairs += count - 1
    return outcome, sorted(kept), got_flairs, trials, tainted, desperate


@pytest.mark.parametrize("rank, edges, cuts", [(r, e, c) for r in range(5) for e in range(2) for c in range(5)])
def test_flairs_every_roll(rank, edges, cuts):
    n = rank + edges
    for faces in itertools.product(range(1, 7), repeat=2 if n == 0 or cuts >= n else n):
        r = flairs.read(FlairsCheck(rank=rank, edges=edges, cuts=cuts), list(faces))
        got = (r.outcome, sorted(r.kept), r.flairs, r.trials, r.tainted, r.desperate)
        assert got == _ref_flairs(n, cuts, list(faces)), faces


# --- rule sentences traced to cases: what a flair banishes, and what the bargain's trial does ----------


def test_a_flair_never_banishes_the_bargain_trial():
    # "The player names a trial (it stands and cannot be banished)." No lurking trial to take the hit.
    check = FlairsCheck(rank=2)
    r = flairs.read(check, [3, 3])
    b = followups.follow(check, r, FlairsBargain(trial="loud", dice=[5]), no_dice())
    assert (b.outcome, b.flairs, b.trials) == ("conflict", 1, 1)
    done = followups.follow(check, b, FlairsChoose(flairs=["quiet"]), no_dice())
    assert done.banished == [] and [(t.source, t.name) for t in done.standing] == [("bargain", "loud")]


def test_a_flair_banishes_only_lurking_trials_not_named_darkness_or_pair_trials():
    # "each chosen flair banishes its opposite lurking trial": the Judge's named trials stand.
    dark = FlairsCheck(rank=2, darkness=True)
    r = followups.follow(dark, flairs.read(dark, [4, 4]), FlairsNameTrials(trials=["loud"]), no_dice())
    done = followups.follow(dark, r, FlairsChoose(flairs=["quiet"]), no_dice())
    assert done.banished == [] and [(t.source, t.name) for t in done.standing] == [("darkness", "loud")]
    cut = FlairsCheck(rank=4, cuts=1)
    r = flairs.read(cut, [6, 6, 4, 4])  # kept 6, 4, 4: a triumph; the 6s tainted (a trial), the 4s a flair
    assert (r.outcome, r.flairs, r.trials, r.tainted) == ("triumph", 1, 1, 1)
    r = followups.follow(cut, r, FlairsNameTrials(trials=["harmful"]), no_dice())
    done = followups.follow(cut, r, FlairsChoose(flairs=["unscathed"]), no_dice())
    assert done.banished == [] and done.trials == 1 and done.standing[0].name == "harmful"


def test_lurking_trials_still_wait_after_a_bargain_and_the_new_flairs_banish_them():
    # The bargain re-reads the result and the pairs; the lurking trial is then met by the flair choice.
    check = FlairsCheck(rank=2, lurking_trials=["slow"])
    r = flairs.read(check, [3, 3])
    assert (r.outcome, r.flairs, r.trials) == ("failure", 0, 2)  # the 3s' trial and the lurking one
    b = followups.follow(check, r, FlairsBargain(trial="costly", dice=[6]), no_dice())
    assert (b.outcome, b.flairs, b.trials, b.revealed) == ("triumph", 1, 2, False)
    done = followups.follow(check, b, FlairsChoose(flairs=["swift"]), no_dice())
    assert done.banished == ["slow"] and [(t.source, t.name) for t in done.standing] == [("bargain", "costly")]
    assert done.revealed and done.trials == 1


def test_a_flair_whose_opposite_is_not_lurking_banishes_nothing():
    check = FlairsCheck(rank=3, lurking_trials=["loud", "slow"])
    r = flairs.read(check, [5, 5, 5])
    done = followups.follow(check, r, FlairsChoose(flairs=["careful", "composed"]), no_dice())
    assert done.banished == [] and sorted(t.name for t in done.standing) == ["loud", "slow"]
