"""An independent reading of the five rule texts and their rulings (docs/rules/*.md), case by case, worked out by hand.

Every row below was computed from the texts and their rulings (docs/rules/*.md) without looking at the engine's
answer: faces in, the result fields the texts and rulings name out. Edge cases sit at every band
boundary and ladder step: desperate pools, cuts equal to the pool, ties, the texts' own examples.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from fractions import Fraction

import pytest

from protocol.v1.boons import BoonsCheck, BoonsPool
from protocol.v1.challenge import ChallengeCheck, ChallengeChoice
from protocol.v1.facets import FacetsCheck
from protocol.v1.feats import FeatsCheck
from protocol.v1.flairs import (
    FlairsBargain,
    FlairsCheck,
    FlairsChoose,
    FlairsNameTrials,
    FlairsParticipant,
    FlairsReveal,
    FlairsSetLurking,
)
from sidecar.cli import main as cli_main
from sidecar.engine import CheckError, Dice, FollowUpError, boons, challenge, facets, feats, flairs


def no_dice() -> Dice:
    """A source that fails the test if a follow-up rolls when its faces were given."""

    def source(n: int) -> bytes:
        raise AssertionError("rolled a die although the faces were given")

    return Dice(source)


# =====================================================================================================
# facets
# =====================================================================================================

# (pool, helping, hindering, faces) -> (outcome, desperate, highest)
FACETS_BANDS = [
    # The single highest die: 6 success, 4-5 costly, 1-3 failure.
    (1, 0, 0, [6], "success", False, 6),
    (1, 0, 0, [5], "costly_success", False, 5),
    (1, 0, 0, [4], "costly_success", False, 4),
    (1, 0, 0, [3], "failure", False, 3),
    (1, 0, 0, [1], "failure", False, 1),  # one 1 is only a failure
    (3, 0, 0, [3, 2, 1], "failure", False, 3),
    # More than one 6: triumph, whatever else shows.
    (2, 0, 0, [6, 6], "triumph", False, 6),
    (4, 0, 0, [6, 1, 6, 1], "triumph", False, 6),
    (3, 0, 0, [6, 6, 6], "triumph", False, 6),
    # A catastrophe is a failure with more than one 1 (docs/rules/facets.md: [6,1,1] success, [5,1,1] costly).
    (3, 0, 0, [6, 1, 1], "success", False, 6),
    (3, 0, 0, [5, 1, 1], "costly_success", False, 5),
    (3, 0, 0, [4, 1, 1], "costly_success", False, 4),
    (3, 0, 0, [3, 1, 1], "catastrophe", False, 3),
    (2, 0, 0, [1, 1], "catastrophe", False, 1),
    (4, 0, 0, [2, 1, 3, 1], "catastrophe", False, 3),
    # Pool = brought + helping - hindering.
    (1, 2, 0, [2, 6, 6], "triumph", False, 6),
    (3, 0, 1, [6, 6], "triumph", False, 6),
    # Zero or fewer dice: 2d6, the lowest kept; never a triumph; two 1s still a catastrophe.
    (0, 0, 0, [6, 6], "success", True, 6),
    (0, 0, 0, [6, 5], "costly_success", True, 5),
    (0, 0, 0, [4, 6], "costly_success", True, 4),
    (0, 0, 0, [6, 3], "failure", True, 3),
    (0, 0, 0, [1, 6], "failure", True, 1),
    (0, 0, 0, [1, 1], "catastrophe", True, 1),
    (1, 0, 1, [6, 6], "success", True, 6),  # 1 - 1 = 0 dice
    (1, 0, 3, [2, 5], "failure", True, 2),  # -2 dice
    (2, 1, 3, [1, 1], "catastrophe", True, 1),
]


@pytest.mark.parametrize("pool, helping, hindering, faces, outcome, desperate, highest", FACETS_BANDS)
def test_facets_bands(pool, helping, hindering, faces, outcome, desperate, highest):
    r = facets.read(FacetsCheck(pool=pool, helping=helping, hindering=hindering), faces)
    assert (r.outcome, r.desperate, r.highest, r.dice) == (outcome, desperate, highest, faces)
    assert r.pool == pool + helping - hindering


# The text's own examples: two sixes, a six, a five, a three, two ones.
@pytest.mark.parametrize(
    "pool, faces, outcome",
    [(2, [6, 6], "triumph"), (2, [6, 2], "success"), (2, [5, 3], "costly_success"), (1, [3], "failure"), (2, [1, 1], "catastrophe")],
)
def test_facets_text_examples(pool, faces, outcome):
    assert facets.read(FacetsCheck(pool=pool), faces).outcome == outcome


# kind, faces -> harm.opponent, harm.character, discord
FACETS_HARM = [
    ("opposition", [6, 6], ["wound", "condition"], [], None),
    ("opposition", [6, 2], ["wound"], [], None),
    ("opposition", [5, 2], ["scratch"], ["scratch"], None),
    ("opposition", [3, 2], [], ["wound"], None),
    ("opposition", [1, 1], [], ["wound", "condition"], None),
    ("interpersonal", [6, 6], ["wound", "condition"], [], None),
    ("interpersonal", [4, 1], ["scratch"], ["scratch"], None),
    ("interpersonal", [2, 1], [], ["wound"], None),
    ("interpersonal", [3, 1], [], ["wound"], None),
    ("obstacle", [6, 6], [], [], None),
    ("obstacle", [1, 1], [], [], None),
    ("mystical", [6, 6], [], [], None),
    ("mystical", [6, 1], [], [], None),
    ("mystical", [5, 1], [], [], "backlash"),
    ("mystical", [3, 1], [], [], "discord"),
    ("mystical", [1, 1], [], [], "severe_discord"),
]


@pytest.mark.parametrize("kind, faces, opponent, character, discord", FACETS_HARM)
def test_facets_harm_only_in_conflict_and_discord_only_mystical(kind, faces, opponent, character, discord):
    r = facets.read(FacetsCheck(pool=len(faces), kind=kind), faces)
    assert (r.harm.opponent, r.harm.character, r.discord) == (opponent, character, discord)


@pytest.mark.parametrize(
    "faces, facet, cost",
    [([6, 6], "beneficial", False), ([6, 1], None, False), ([4, 1], None, True), ([3, 2], None, False), ([1, 1], "detrimental", False)],
)
@pytest.mark.parametrize("domain", ["physical", "mental", "social", "mystical"])
def test_facets_facet_and_cost_with_a_suggestion_from_the_domain(faces, facet, cost, domain):
    r = facets.read(FacetsCheck(pool=2, domain=domain), faces)
    assert (r.facet, r.cost) == (facet, cost)
    if facet:
        assert r.suggestion in facets.FACETS_BY_DOMAIN[domain]
    elif cost:
        assert r.suggestion in facets.COSTS_BY_DOMAIN[domain]
    else:
        assert r.suggestion is None


def test_facets_desperate_double_six_is_no_triumph_nor_beneficial_facet():
    r = facets.read(FacetsCheck(pool=0, kind="opposition"), [6, 6])
    assert r.outcome == "success" and r.facet is None and r.harm.opponent == ["wound"]


# =====================================================================================================
# challenge
# =====================================================================================================


@pytest.mark.parametrize(
    "total, level",
    [(-7, 0), (-1, 0), (0, 0), (1, 1), (5, 1), (6, 2), (10, 2), (11, 3), (15, 3), (16, 4), (20, 4), (21, 5), (25, 5), (26, 6), (40, 8)],
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
def test_challenge_cases(d20, modifier, cl, total, level, margin, outcome, strain, choice, strain_option, condition, complication):
    r = challenge.read(ChallengeCheck(cl=cl, modifier=modifier), [d20])
    got = (r.total, r.level, r.margin, r.outcome, r.strain, r.choice, r.strain_option, r.condition, r.complication, r.natural)
    assert got == (total, level, margin, outcome, strain, choice, strain_option, condition, complication, d20)
    assert r.success == (outcome in ("success_at_cost", "success", "epic_success"))


@pytest.mark.parametrize(
    "d20, modifier, option, strain, game_changers",
    [(16, 0, "strain", -1, 0), (16, 0, "game_changer", 0, 1), (20, 1, "strain", -2, 0), (20, 1, "game_changer", 0, 1)],
)
def test_challenge_choice(d20, modifier, option, strain, game_changers):
    check = ChallengeCheck(cl=2, modifier=modifier)
    r = challenge.follow(check, challenge.read(check, [d20]), ChallengeChoice(option=option), no_dice())
    assert (r.chosen, r.strain, r.game_changers, r.outcome) == (option, strain, game_changers, "success")
    # Made once.
    with pytest.raises(FollowUpError):
        challenge.follow(check, r, ChallengeChoice(option="strain"), no_dice())


@pytest.mark.parametrize("d20, modifier", [(6, 0), (11, 0), (20, 6), (10, 0), (1, 15)])
def test_challenge_no_choice_outside_two_and_three(d20, modifier):
    check = ChallengeCheck(cl=2, modifier=modifier)
    with pytest.raises(FollowUpError):
        challenge.follow(check, challenge.read(check, [d20]), ChallengeChoice(option="game_changer"), no_dice())


@pytest.mark.parametrize("d20, removed", [(6, True), (11, True), (20, True), (5, False), (1, False)])
def test_challenge_addressing_a_complication(d20, removed):
    # "If they succeed, the complication is removed": a success at a cost is a success.
    r = challenge.read(ChallengeCheck(cl=2, complication="k1"), [d20])
    assert r.addresses == "k1" and r.success is removed


# =====================================================================================================
# flairs
# =====================================================================================================

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


@pytest.mark.parametrize("rank, edges, cuts, faces, outcome, kept, removed, n_flairs, trials, tainted, desperate", FLAIRS_CASES)
def test_flairs_cases(rank, edges, cuts, faces, outcome, kept, removed, n_flairs, trials, tainted, desperate):
    r = flairs.read(FlairsCheck(rank=rank, edges=edges, cuts=cuts), faces)
    assert (r.outcome, sorted(r.kept), sorted(r.removed), r.flairs, r.trials, r.tainted, r.desperate) == (
        outcome, sorted(kept), sorted(removed), n_flairs, trials, tainted, desperate,
    )
    assert r.dice == faces


@pytest.mark.parametrize(
    "rank, cuts, faces, outcome",
    [
        (2, 0, [4, 4], "success"), (2, 0, [3, 3], "failure"), (1, 0, [4], "success"), (1, 0, [3], "failure"),
        (3, 1, [6, 3, 2], "failure"), (3, 1, [6, 4, 2], "success"),
        (0, 0, [4, 6], "success"), (0, 0, [3, 6], "failure"), (2, 2, [6, 6], "success"),
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


@pytest.mark.parametrize("face, trial", list(enumerate(["costly", "slow", "loud", "harmful", "foolish", "chaotic"], start=1)))
def test_flairs_random_trial_is_a_d6_in_order(face, trial):
    assert flairs.trial_for_face(face) == trial
    # The same order draws lurking trials after the pool's faces.
    r = flairs.read(FlairsCheck(rank=1, lurking=1), [2, face])
    assert r.lurking_trials == [trial] and r.dice == [2]


def test_flairs_flair_banishes_its_trial_in_order():
    pairs = dict(zip(["careful", "swift", "quiet", "unscathed", "impressive", "composed"], ["costly", "slow", "loud", "harmful", "foolish", "chaotic"]))
    for flair, trial in pairs.items():
        check = FlairsCheck(rank=2, lurking_trials=[trial])
        r = flairs.read(check, [5, 5])
        assert r.flairs == 1 and r.trials == 1  # the lurking trial stands until banished
        done = flairs.follow(check, r, FlairsChoose(flairs=[flair]), no_dice())
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
        done = flairs.follow(check, r, FlairsChoose(flairs=chosen), no_dice())
    else:
        done = flairs.follow(check, r, FlairsReveal(), no_dice())
    assert done.trials == after and done.banished == banished and done.revealed
    assert flairs.redact(done).lurking_trials == names


def test_flairs_flairs_do_not_banish_tainted_pair_trials():
    # A tainted pair's trial is not a lurking trial: choosing its opposite leaves it standing.
    check = FlairsCheck(rank=4, cuts=1, lurking_trials=["loud"])
    r = flairs.read(check, [6, 6, 4, 4])  # one 6 cut: kept [6, 4, 4] triumph; 6s tainted, 4s flair
    assert (r.outcome, r.flairs, r.trials, r.tainted) == ("triumph", 1, 2, 1)
    done = flairs.follow(check, r, FlairsChoose(flairs=["quiet"]), no_dice())
    assert (done.trials, done.tainted, done.banished) == (1, 1, ["loud"])


@pytest.mark.parametrize(
    "chosen, earned_faces",
    [(["quiet", "quiet"], [5, 5, 5]), (["quiet", "careful"], [5, 5]), (["quiet"], [5, 2])],
)
def test_flairs_choice_refused(chosen, earned_faces):
    check = FlairsCheck(rank=len(earned_faces), lurking_trials=["loud"])
    with pytest.raises(FollowUpError):
        flairs.follow(check, flairs.read(check, earned_faces), FlairsChoose(flairs=chosen), no_dice())


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
    b = flairs.follow(check, r, FlairsBargain(trial=trial, dice=[die]), no_dice())
    assert (b.outcome, sorted(b.kept), b.flairs, b.trials, b.tainted) == (outcome, sorted(kept), n_flairs, trials, tainted)
    assert b.bargain == trial and b.bargain_die == die and b.dice == faces + [die]
    assert any(t.source == "bargain" and t.name == trial for t in b.standing)
    # Once per check.
    with pytest.raises(FollowUpError):
        flairs.follow(check, b, FlairsBargain(trial=trial, dice=[6]), no_dice())


def test_flairs_bargain_on_a_desperate_roll_adds_to_the_kept_die():
    # Cuts >= pool with rank 1: desperate. The new die joins the kept (lowest) die; the highest kept is read.
    check = FlairsCheck(rank=1, cuts=1)
    r = flairs.read(check, [2, 5])
    assert (r.outcome, r.kept, r.desperate) == ("failure", [2], True)
    b = flairs.follow(check, r, FlairsBargain(trial="slow", dice=[4]), no_dice())
    assert (b.outcome, sorted(b.kept), b.trials) == ("conflict", [2, 4], 1)
    # Pairs on a desperate roll stay tainted after the bargain.
    b2 = flairs.follow(check, r, FlairsBargain(trial="slow", dice=[5]), no_dice())
    assert (b2.outcome, b2.flairs, b2.trials, b2.tainted) == ("conflict", 0, 2, 1)


def test_flairs_bargain_may_repeat_the_judges_trial():
    check = FlairsCheck(rank=2)
    r = flairs.read(check, [3, 3])
    named = flairs.follow(check, r, FlairsNameTrials(trials=["slow"]), no_dice())
    assert [t.name for t in named.standing] == ["slow"]
    # The bargain names the same trial as one the Judge would choose: allowed (before naming settles it).
    b = flairs.follow(check, r, FlairsBargain(trial="slow", dice=[2]), no_dice())
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
        flairs.follow(check, flairs.read(check, faces), FlairsBargain(trial="slow", dice=[6]), no_dice())


def test_flairs_bargain_refused_in_a_group_check():
    check = FlairsCheck(group=[FlairsParticipant(name="a", rank=1), FlairsParticipant(name="b", rank=1)])
    r = flairs.read(check, [1, 2])
    assert r.outcome == "failure"
    with pytest.raises(FollowUpError):
        flairs.follow(check, r, FlairsBargain(trial="slow", dice=[6]), no_dice())


def P(name, rank=1, edges=0, cuts=0):
    return FlairsParticipant(name=name, rank=rank, edges=edges, cuts=cuts)


# Group checks: (participants, faces, trap) -> (outcome, per-participant outcomes, springs)
GROUP = [
    # Half or more succeed.
    ([P("a"), P("b")], [4, 3], False, "success", ["success", "failure"], []),
    ([P("a"), P("b")], [3, 3], False, "failure", ["failure", "failure"], []),
    ([P("a"), P("b"), P("c")], [4, 3, 2], False, "failure", ["success", "failure", "failure"], []),
    ([P("a"), P("b"), P("c")], [4, 5, 2], False, "success", ["success", "success", "failure"], []),
    ([P("a"), P("b"), P("c"), P("d")], [6, 3, 4, 1], False, "success", ["success", "failure", "success", "failure"], []),
    ([P("a"), P("b"), P("c"), P("d")], [6, 3, 3, 1], False, "failure", ["success", "failure", "failure", "failure"], []),
    ([P("a")], [3], False, "failure", ["failure"], []),
    ([P("a")], [4], False, "success", ["success"], []),
    # Each participant's own pool, cuts and desperate roll (simple checks).
    ([P("a", rank=2, cuts=1), P("b", rank=0)], [6, 3, 2, 5], False, "failure", ["failure", "failure"], []),
    ([P("a", rank=0, edges=2), P("b", rank=1, cuts=1)], [1, 4, 6, 4], False, "success", ["success", "success"], []),
    # A room trap: on a failure the lowest result springs it; all tied lowest are named.
    ([P("a"), P("b"), P("c"), P("d")], [3, 2, 5, 2], True, "failure", ["failure", "failure", "success", "failure"], ["b", "d"]),
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
    r = flairs.follow(check, r, FlairsSetLurking(dice=[3, 6]), no_dice())
    assert r.lurking_trials == ["loud", "chaotic"] and not r.revealed
    done = flairs.follow(check, r, FlairsChoose(flairs=["composed"]), no_dice())
    assert done.banished == ["chaotic"] and [t.name for t in done.standing] == ["loud"]


# =====================================================================================================
# feats
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
    assert (r3.dice, r3.success, r3.best_level, r3.degree, r3.bought, r3.cost) == (full, success, best, degree, bought, cost)


# =====================================================================================================
# boons
# =====================================================================================================

# Faces by symbol, from the rulings' table (docs/rules/boons.md).
A = {"-": 1, "S": 2, "SS": 4, "B": 5, "SB": 7, "X": 8}
BO = {"-": 1, "S": 3, "SB": 4, "BB": 5, "B": 6}
BA = {"-": 1, "F": 3, "N": 5}
T = {"-": 1, "F": 2, "FF": 3, "N": 4, "NN": 7, "FN": 8}
C = {"-": 1, "F": 2, "FF": 4, "N": 6, "FN": 8, "NN": 10, "C": 12}

# (pool, faces) -> (outcome, symbols, net_successes, net_boons, breakthroughs, calamities)
BOONS_CASES = [
    ({"ability": 1}, [A["S"]], "success", ["S"], 1, 0, 0, 0),
    ({"ability": 1}, [A["-"]], "failure", ["-"], 0, 0, 0, 0),
    ({"ability": 2}, [A["SS"], A["-"]], "improved", ["SS", "-"], 2, 0, 0, 0),
    ({"ability": 2}, [A["SS"], A["S"]], "improved", ["SS", "S"], 3, 0, 0, 0),
    ({"ability": 2}, [A["SS"], A["SS"]], "exceptional", ["SS", "SS"], 4, 0, 0, 0),
    ({"ability": 3}, [A["SS"], A["SS"], A["X"]], "exceptional", ["SS", "SS", "X"], 5, 0, 1, 0),
    ({"ability": 1, "trial": 1}, [A["SS"], T["F"]], "success", ["SS", "F"], 1, 0, 0, 0),
    ({"ability": 1, "trial": 1}, [A["S"], T["F"]], "failure", ["S", "F"], 0, 0, 0, 0),
    ({"ability": 1, "trial": 1}, [A["S"], T["FF"]], "failure", ["S", "FF"], -1, 0, 0, 0),
    # A breakthrough is a success; a calamity a failure; they never cancel each other.
    ({"ability": 1}, [A["X"]], "success", ["X"], 1, 0, 1, 0),
    ({"ability": 1, "crisis": 1}, [A["X"], C["C"]], "failure", ["X", "C"], 0, 0, 1, 1),
    ({"ability": 2, "crisis": 1}, [A["X"], A["S"], C["C"]], "success", ["X", "S", "C"], 1, 0, 1, 1),
    # Net boons = boons - banes, negative when banes remain.
    ({"ability": 1, "boon": 1, "bane": 1}, [A["B"], BO["BB"], BA["N"]], "failure", ["B", "BB", "N"], 0, 2, 0, 0),
    ({"bane": 2}, [BA["N"], BA["N"]], "failure", ["N", "N"], 0, -2, 0, 0),
    ({"ability": 1, "trial": 1}, [A["SB"], T["FN"]], "failure", ["SB", "FN"], 0, 0, 0, 0),
    ({"ability": 1, "trial": 1}, [A["SB"], T["NN"]], "success", ["SB", "NN"], 1, -1, 0, 0),
    ({"boon": 2, "trial": 1}, [BO["SB"], BO["S"], T["-"]], "improved", ["SB", "S", "-"], 2, 1, 0, 0),
    ({"ability": 1, "boon": 1, "bane": 1, "trial": 1, "crisis": 1}, [A["SS"], BO["S"], BA["F"], T["F"], C["FF"]],
     "failure", ["SS", "S", "F", "F", "FF"], -1, 0, 0, 0),
    ({"ability": 1, "crisis": 1}, [A["SS"], C["NN"]], "improved", ["SS", "NN"], 2, -2, 0, 0),
    # An empty pool reads zero net successes: a failure.
    ({}, [], "failure", [], 0, 0, 0, 0),
]


@pytest.mark.parametrize("pool, faces, outcome, symbols, net, net_boons, breaks, cals", BOONS_CASES)
def test_boons_cases(pool, faces, outcome, symbols, net, net_boons, breaks, cals):
    r = boons.read(BoonsCheck(**pool), faces)
    assert (r.outcome, r.symbols, r.net_successes, r.net_boons, r.breakthroughs, r.calamities) == (
        outcome, symbols, net, net_boons, breaks, cals,
    )


@pytest.mark.parametrize("die, faces", [("ability", 8), ("boon", 6), ("bane", 6), ("trial", 8), ("crisis", 12)])
def test_boons_die_sizes(die, faces):
    assert boons.sizes(BoonsCheck(**{die: 2})) == [faces, faces]


def test_boons_upgrade_turns_trial_dice_into_crisis_dice():
    check = BoonsCheck(ability=1, trial=2, upgrade=1)
    assert boons.sizes(check) == [8, 8, 12]
    r = boons.read(check, [A["SS"], T["F"], C["C"]])
    assert (r.net_successes, r.calamities, r.outcome) == (0, 1, "failure")


@pytest.mark.parametrize("kw", [{"ability": 11}, {"boon": 11}, {"bane": 11}, {"trial": 11}, {"crisis": 11},
                                {"boon": 10, "rank": 1, "assists": [0]}, {"bane": 9, "performer_rank": 3, "participant_ranks": [1]}])
def test_boons_limit_of_ten_of_each_type(kw):
    with pytest.raises(CheckError):
        boons.validate(BoonsCheck(**kw))


def test_boons_ten_of_each_type_is_allowed():
    check = BoonsCheck(ability=10, boon=10, bane=10, trial=10, crisis=0)
    assert len(boons.sizes(check)) == 40


# Assisted: (primary rank, assistants' ranks) -> dice added
ASSISTS = [
    (2, [3], ["ability"]),
    (2, [2], ["boon"]),  # equal ranks are not more ranks
    (2, [1], ["boon"]),
    (2, [1, 1], ["boon", "boon"]),
    (2, [3, 1], ["ability", "boon"]),
    (2, [1, 3], ["boon", "ability"]),
    (2, [3, 4], ["ability", "boon"]),  # at most one ability die
    (0, [1, 1], ["ability", "boon"]),
]


@pytest.mark.parametrize("rank, assists, added", ASSISTS)
def test_boons_assisted_caps(rank, assists, added):
    check = BoonsCheck(ability=1, rank=rank, assists=assists)
    r = boons.read(check, [1] * (1 + len(added)))
    assert r.assist_dice == added
    assert r.actor.pool.ability == 1 + added.count("ability") and r.actor.pool.boon == added.count("boon")


# Group: (performer, necessary participants) -> bane dice added
GROUPS = [(3, [1, 2], 2), (3, [3], 0), (1, [3], 0), (4, [0], 4), (2, [2, 0, 1], 2), (2, [], 0)]


@pytest.mark.parametrize("performer, others, banes", GROUPS)
def test_boons_group_bane_dice(performer, others, banes):
    check = BoonsCheck(ability=2, performer_rank=performer, participant_ranks=others)
    assert boons.sizes(check) == [8, 8] + [6] * banes
    r = boons.read(check, [A["SS"], A["S"]] + [BA["F"]] * banes)
    assert r.group_banes == banes and r.net_successes == 3 - banes


# Opposed: (actor faces, defender faces) -> winner, outcome, actor/defender remaining boons and banes
OPPOSED = [
    # Tie goes to the defender.
    ([A["S"]], [A["S"]], "defender", "failure"),
    ([A["-"]], [A["-"]], "defender", "failure"),
    ([A["SS"]], [A["S"]], "actor", "success"),
    ([A["S"]], [A["SS"]], "defender", "failure"),
    ([A["X"]], [A["-"]], "actor", "success"),
]


@pytest.mark.parametrize("mine, theirs, winner, outcome", OPPOSED)
def test_boons_opposed(mine, theirs, winner, outcome):
    r = boons.read(BoonsCheck(ability=1, opponent=BoonsPool(ability=1)), mine + theirs)
    # The text names no band for an opposed win; only that the initiator wins or loses.
    assert (r.winner, r.outcome == "failure") == (winner, outcome == "failure")


def test_boons_opposed_reports_both_sides_boons_and_banes():
    check = BoonsCheck(ability=1, bane=1, opponent=BoonsPool(ability=1, boon=1))
    r = boons.read(check, [A["SB"], BA["N"], A["S"], BO["BB"]])
    # Actor: S, B, N -> net 1, boons 0 left; defender: S, BB -> net 1, 2 boons. A tie: defender.
    assert r.winner == "defender" and r.outcome == "failure"
    assert (r.actor.net_successes, r.actor.remaining_boons, r.actor.remaining_banes) == (1, 0, 0)
    assert (r.defender.net_successes, r.defender.remaining_boons, r.defender.remaining_banes) == (1, 2, 0)
    r = boons.read(check, [A["SS"], BA["N"], A["-"], BO["B"]])
    assert r.winner == "actor" and r.actor.remaining_banes == 1 and r.defender.remaining_boons == 1


def test_boons_opposed_has_no_difficulty_dice_for_each_other():
    with pytest.raises(CheckError):
        boons.validate(BoonsCheck(ability=1, trial=1, opponent=BoonsPool(ability=1)))


# Extended: (threshold, limit, progress, attempts, faces) -> (added, progress, attempts, status)
EXTENDED = [
    (3, None, 0, 0, [A["SS"]], 2, 2, 1, "in_progress"),
    (3, None, 2, 1, [A["S"]], 1, 3, 2, "complete"),
    (3, None, 2, 1, [A["SS"]], 2, 4, 2, "complete"),
    (3, None, 2, 1, [A["-"]], 0, 2, 2, "in_progress"),
    # The last attempt: reaching the threshold completes it; falling short fails it.
    (3, 3, 1, 2, [A["SS"]], 2, 3, 3, "complete"),
    (3, 3, 1, 2, [A["S"]], 1, 2, 3, "failed"),
    (4, 1, 0, 0, [A["SS"]], 2, 2, 1, "failed"),
    (1, 1, 0, 0, [A["X"]], 1, 1, 1, "complete"),
]


@pytest.mark.parametrize("threshold, limit, progress, attempts, faces, added, after, tries, status", EXTENDED)
def test_boons_extended(threshold, limit, progress, attempts, faces, added, after, tries, status):
    check = BoonsCheck(ability=1, threshold=threshold, limit=limit, progress=progress, attempts=attempts, time_unit="hours")
    e = boons.read(check, faces).extended
    assert (e.added, e.progress, e.attempts, e.status) == (added, after, tries, status)


def test_boons_extended_negative_roll_adds_nothing():
    check = BoonsCheck(ability=1, trial=1, threshold=3, progress=2, attempts=1)
    e = boons.read(check, [A["-"], T["FF"]]).extended
    assert (e.added, e.progress) == (0, 2)


# =====================================================================================================
# The CLI prints the fields the issue names
# =====================================================================================================

CLI = [
    (["challenge", "--modifier", "3", "--cl", "2", "--dice", "13"],
     {"total": 16, "level": 4, "margin": 2, "outcome": "success", "strain": 0, "choice": GC, "condition": False,
      "complication": None, "natural": 13}),
    (["challenge", "--modifier", "30", "--cl", "1", "--dice", "1"],
     {"outcome": "epic_failure", "condition": True, "complication": "add", "natural": 1}),
    (["flairs", "--rank", "3", "--cuts", "1", "--dice", "6,6,2"],
     {"outcome": "triumph", "kept": [6, 2], "removed": [6], "flairs": 0, "trials": 1, "tainted": 1, "desperate": False}),
    (["flairs", "--rank", "2", "--simple", "--dice", "4,4"], {"outcome": "success", "flairs": 0, "trials": 0}),
    (["flairs", "--rank", "0", "--lurking", "1", "--darkness", "--dice", "2,2"],
     {"outcome": "failure", "desperate": True, "kept": [2], "removed": [2], "trials": 3, "tainted": 1}),
    (["feats", "--ability", "5", "--difficulty", "6", "--dice", "7,1,1"],
     {"level": 1, "success": True, "best_level": 1, "worst_level": 2, "degree": 0, "bought": [], "cost": 0}),
    (["feats", "--level", "2", "--wyrd", "1", "--dice", "1,1"],
     {"level": 2, "success": True, "degree": 0, "bought": ["white"], "cost": 5}),
    (["feats", "--level", "2", "--wyrd", "1", "--dice", "8,1,1"],
     {"level": 2, "success": True, "degree": 0, "bought": ["white"], "cost": 5, "dice": [8, 1, 1]}),
    (["boons", "--ability", "1", "--crisis", "1", "--dice", "8,12"],
     {"outcome": "failure", "symbols": ["X", "C"], "net_successes": 0, "net_boons": 0, "breakthroughs": 1, "calamities": 1}),
    (["facets", "--pool", "3", "--dice", "5,1,1"], {"outcome": "costly_success"}),
]


@pytest.mark.parametrize("args, fields", CLI)
def test_cli_json_names_the_issues_fields(args, fields, capsys):
    assert cli_main(["read", *args, "--json"]) == 0
    out = capsys.readouterr().out
    obj = json.loads(out)
    assert obj["system"] == args[0] and "dice" in obj
    assert {k: obj[k] for k in fields} == fields


# =====================================================================================================
# Exhaustive cross-checks against independent transcriptions of the rulings
# =====================================================================================================
# Each reference below is written straight from the rulings (docs/rules/*.md), sharing no code with the engine, and every
# possible roll of small pools is compared with it.


def _ref_facets(n: int, faces: list[int]) -> str:
    read_die = min(faces) if n <= 0 else max(faces)
    if read_die == 6:
        return "triumph" if n > 0 and faces.count(6) >= 2 else "success"
    if read_die >= 4:
        return "costly_success"
    return "catastrophe" if faces.count(1) >= 2 else "failure"


@pytest.mark.parametrize("n", range(-2, 5))
def test_facets_every_roll(n):
    for faces in itertools.product(range(1, 7), repeat=n if n > 0 else 2):
        r = facets.read(FacetsCheck(pool=max(n, 0), hindering=max(-n, 0)), list(faces))
        assert r.outcome == _ref_facets(n, list(faces)), faces


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


_R = {k: range(k, 9) for k in range(1, 9)}
FEAT_TABLE = {  # the rulings' table (docs/rules/feats.md): the counting faces of white, red, blue (None: not listed)
    8: (_R[8], _R[8], _R[8]), 7: (_R[8], _R[8], _R[7]), 6: (_R[8], _R[7], _R[7]), 5: (_R[8], _R[8], None),
    4: (_R[8], _R[7], None), 3: (_R[7], _R[7], None), 2: (_R[8], None, None), 1: (_R[7], None, None),
    0: (_R[5], None, None), -1: (_R[3], None, None), -2: (_R[2], None, None), -3: (_R[3], _R[3], None),
    -4: (_R[2], _R[3], None), -5: (_R[2], _R[2], None), -6: (_R[2], _R[3], _R[3]), -7: (_R[2], _R[2], _R[3]),
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
            ok, best, worst, (best - level) if ok else (worst - level),  # type: ignore[operator]
        ), faces
    # docs/rules/feats.md: 2^-(n+1) at +n, 1 - 2^-(n+1) at -n.
    chance = Fraction(1, 2 ** (level + 1)) if level >= 0 else 1 - Fraction(1, 2 ** (-level + 1))
    assert Fraction(wins, 512) == chance


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


_FACES = {
    "ability": "- S S SS B B SB X".split(),
    "boon": "- - S SB BB B".split(),
    "bane": "- - F F N N".split(),
    "trial": "- F FF N N N NN FN".split(),
    "crisis": "- F F FF FF N N FN FN NN NN C".split(),
}


def test_boons_random_pools_against_the_face_table():
    rng = random.Random(20261129)
    for _ in range(5000):
        pool = {t: rng.randint(0, 3) for t in _FACES}
        types = [t for t in ("ability", "boon", "bane", "trial", "crisis") for _ in range(pool[t])]
        faces = [rng.randint(1, len(_FACES[t])) for t in types]
        symbols = "".join(_FACES[t][f - 1] for t, f in zip(types, faces))
        net = symbols.count("S") + symbols.count("X") - symbols.count("F") - symbols.count("C")
        band = "exceptional" if net >= 4 else "improved" if net >= 2 else "success" if net >= 1 else "failure"
        r = boons.read(BoonsCheck(**pool), faces)
        assert (r.outcome, r.net_successes, r.net_boons, r.breakthroughs, r.calamities) == (
            band, net, symbols.count("B") - symbols.count("N"), symbols.count("X"), symbols.count("C"),
        ), (pool, faces)
