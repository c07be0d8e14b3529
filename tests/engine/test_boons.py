"""Every `boons` rule from docs/rules/boons.md (the rule and its rulings), from given faces."""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.v1 import messages
from protocol.v1.boons import BoonsCheck, BoonsPool, BoonsResult
from sidecar.engine import CheckError, Dice, DiceError, boons, resolve

# The rulings' face table (docs/rules/boons.md), written out again so that a wrong table in the engine fails here.
TABLE = {
    "ability": ["-", "S", "S", "SS", "B", "B", "SB", "X"],
    "boon": ["-", "-", "S", "SB", "BB", "B"],
    "bane": ["-", "-", "F", "F", "N", "N"],
    "trial": ["-", "F", "FF", "N", "N", "N", "NN", "FN"],
    "crisis": ["-", "F", "F", "FF", "FF", "N", "N", "FN", "FN", "NN", "NN", "C"],
}
SIZE = {"ability": 8, "boon": 6, "bane": 6, "trial": 8, "crisis": 12}

# Handy faces.
A_BLANK, A_S, A_SS, A_B, A_SB, A_X = 1, 2, 4, 5, 7, 8
BO_BLANK, BO_S, BO_SB, BO_BB, BO_B = 1, 3, 4, 5, 6
BA_BLANK, BA_F, BA_N = 1, 3, 5
T_BLANK, T_F, T_FF, T_N, T_NN, T_FN = 1, 2, 3, 4, 7, 8
C_BLANK, C_F, C_FF, C_N, C_FN, C_NN, C_C = 1, 2, 4, 6, 8, 10, 12


def read(faces, **kw):
    return boons.read(BoonsCheck(**kw), faces)


def refused(code, **kw):
    with pytest.raises(CheckError) as e:
        boons.validate(BoonsCheck(**kw))
    assert e.value.code == code, e.value.message
    # Nothing is half-applied: rolling and reading refuse the same way.
    with pytest.raises(CheckError) as e2:
        boons.roll(BoonsCheck(**kw), Dice())
    assert e2.value.code == code
    return e.value


# --- the dice ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("die", list(TABLE))
def test_die_sizes(die):
    assert boons.sizes(BoonsCheck(**{die: 3})) == [SIZE[die]] * 3


@pytest.mark.parametrize(
    "die, face, symbols", [(d, i + 1, s) for d, faces in TABLE.items() for i, s in enumerate(faces)]
)
def test_every_face(die, face, symbols):
    r = read([face], **{die: 1})
    assert r.symbols == [symbols] and r.types == [die]
    succ = symbols.count("S") + symbols.count("X")
    fail = symbols.count("F") + symbols.count("C")
    assert r.net_successes == succ - fail
    assert r.net_boons == symbols.count("B") - symbols.count("N")
    assert r.breakthroughs == symbols.count("X")
    assert r.calamities == symbols.count("C")


def test_breakthrough_is_one_success_and_a_breakthrough():
    r = read([A_X], ability=1)
    assert (r.actor.successes, r.breakthroughs, r.net_successes, r.outcome) == (1, 1, 1, "success")


def test_calamity_is_one_failure_and_a_calamity():
    r = read([C_C], crisis=1)
    assert (r.actor.failures, r.calamities, r.net_successes, r.outcome) == (1, 1, -1, "failure")


def test_breakthroughs_and_calamities_never_cancel():
    r = read([A_X, C_C], ability=1, crisis=1)
    assert r.breakthroughs == 1 and r.calamities == 1
    assert r.net_successes == 0 and r.outcome == "failure"


def test_canonical_order_of_faces():
    # ability, boon, bane, trial, crisis - whatever order the fields are written in.
    c = BoonsCheck(crisis=1, trial=1, bane=1, boon=1, ability=1)
    assert boons.sizes(c) == [8, 6, 6, 8, 12]
    r = boons.read(c, [A_SS, BO_BB, BA_F, T_N, C_C])
    assert r.types == ["ability", "boon", "bane", "trial", "crisis"]
    assert r.symbols == ["SS", "BB", "F", "N", "C"]


def test_empty_pool_is_a_failure():
    r = read([])
    assert r.outcome == "failure" and r.net_successes == 0 and r.dice == []


# --- outcome bands ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, faces, net, outcome",
    [
        ({"ability": 1}, [A_S], 1, "success"),
        ({"ability": 1}, [A_SS], 2, "improved"),
        ({"ability": 2}, [A_SS, A_S], 3, "improved"),
        ({"ability": 2}, [A_SS, A_SS], 4, "exceptional"),
        ({"ability": 3}, [A_SS, A_SS, A_X], 5, "exceptional"),
        ({"ability": 1, "bane": 1}, [A_S, BA_F], 0, "failure"),
        ({"ability": 1}, [A_BLANK], 0, "failure"),
        ({"ability": 1, "trial": 1}, [A_S, T_FF], -1, "failure"),
        # successes beyond the difficulty: 4 successes - 2 failures = 2 net
        ({"ability": 2, "trial": 1}, [A_SS, A_SS, T_FF], 2, "improved"),
        ({"ability": 2, "trial": 1}, [A_SS, A_S, T_F], 2, "improved"),
        ({"ability": 2, "trial": 1}, [A_SS, A_S, T_FF], 1, "success"),
    ],
)
def test_bands(kw, faces, net, outcome):
    r = read(faces, **kw)
    assert r.net_successes == net and r.outcome == outcome


def test_net_boons_negative_when_banes_remain():
    r = read([A_SB, BA_N, T_NN], ability=1, bane=1, trial=1)
    assert r.net_boons == 1 - 3
    assert r.actor.remaining_banes == 2 and r.actor.remaining_boons == 0
    assert r.outcome == "success"  # boons and banes do not move successes


def test_boons_remaining():
    r = read([BO_BB, BO_SB, BA_N], boon=2, bane=1)
    assert (r.actor.boons, r.actor.banes, r.net_boons, r.actor.remaining_boons) == (3, 1, 2, 2)


# --- difficulty: trial and crisis dice -------------------------------------------------------------------


def test_upgrade_turns_trial_dice_into_crisis_dice():
    c = BoonsCheck(ability=1, trial=3, upgrade=2)
    assert boons.sizes(c) == [8, 8, 12, 12]
    r = boons.read(c, [A_SS, T_F, C_C, C_NN])
    assert r.types == ["ability", "trial", "crisis", "crisis"]
    assert r.actor.pool.trial == 1 and r.actor.pool.crisis == 2
    assert r.calamities == 1 and r.net_successes == 0


def test_upgrade_adds_to_crisis_asked_directly():
    assert boons.sizes(BoonsCheck(trial=2, crisis=1, upgrade=1)) == [8, 12, 12]


def test_upgrade_beyond_trial_refused():
    refused("upgrade_exceeds_trial", trial=1, upgrade=2)


# --- limits and refusals ---------------------------------------------------------------------------------


@pytest.mark.parametrize("die", list(TABLE))
def test_ten_of_each_type(die):
    assert len(boons.sizes(BoonsCheck(**{die: 10}))) == 10
    refused("too_many_dice", **{die: 11})


def test_limit_is_per_type():
    c = BoonsCheck(ability=10, boon=10, bane=10, trial=10, crisis=10)
    assert len(boons.sizes(c)) == 50


@pytest.mark.parametrize("field", ["ability", "boon", "bane", "trial", "crisis", "upgrade"])
def test_negative_counts_refused(field):
    refused("negative_dice", **{field: -1})


def test_wrong_number_of_faces():
    with pytest.raises(DiceError) as e:
        read([A_S], ability=2)
    assert e.value.code == "invalid_dice"


@pytest.mark.parametrize("die, face", [("ability", 9), ("boon", 7), ("bane", 0), ("trial", 9), ("crisis", 13)])
def test_impossible_face(die, face):
    with pytest.raises(DiceError) as e:
        read([face], **{die: 1})
    assert e.value.code == "invalid_dice"


def test_limit_is_data():
    rules = boons.BoonsRules(max_dice=3)
    with pytest.raises(CheckError) as e:
        boons.validate(BoonsCheck(ability=4), rules)
    assert e.value.code == "too_many_dice"


def test_faces_are_data():
    faces = dict(boons.DEFAULT_FACES)
    faces["ability"] = ("SSS", "X")
    rules = boons.BoonsRules(faces=faces)
    c = BoonsCheck(ability=2)
    assert boons.sizes(c, rules) == [2, 2]
    r = boons.read(c, [1, 2], rules)
    assert r.net_successes == 4 and r.outcome == "exceptional" and r.breakthroughs == 1


def test_bands_are_data():
    rules = boons.BoonsRules(improved_at=3, exceptional_at=5)
    assert boons.read(BoonsCheck(ability=1), [A_SS], rules).outcome == "success"


# --- assisted checks -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rank, assists, added, ability, boon",
    [
        (2, [1], ["boon"], 0, 1),  # a meaningful assist adds 1 boon die
        (2, [2], ["boon"], 0, 1),  # equal ranks: not "more ranks"
        (2, [3], ["ability"], 1, 0),  # more ranks: an ability die instead
        (2, [1, 0], ["boon", "boon"], 0, 2),  # +2 boon dice
        (2, [3, 1], ["ability", "boon"], 1, 1),  # +1 boon, +1 ability
        (2, [1, 3], ["boon", "ability"], 1, 1),
        # no more than one of the assisting dice may be an ability die: the second adds a boon die
        (2, [3, 4], ["ability", "boon"], 1, 1),
        (0, [], [], 0, 0),
    ],
)
def test_assists(rank, assists, added, ability, boon):
    c = BoonsCheck(ability=2, boon=1, rank=rank, assists=assists)
    built = boons.build(c)
    assert built.assist == added
    assert built.actor.ability == 2 + ability and built.actor.boon == 1 + boon
    r = boons.read(c, [1] * len(boons.sizes(c)))
    assert r.assist_dice == added
    assert r.types.count("ability") == 2 + ability and r.types.count("boon") == 1 + boon


def test_assist_dice_are_read():
    # An ability die from the assistant can carry the check.
    r = read([A_S, A_SS, BO_BLANK], ability=1, rank=1, assists=[2, 0])
    assert r.types == ["ability", "ability", "boon"] and r.net_successes == 3


@pytest.mark.parametrize("assists", [[0, 0, 0], [0, 0, 2], [2, 3, 4, 0]])
def test_a_third_assistant_is_refused(assists):
    # "up to two characters help"; "extra helpers ... do not add more dice": `assists` lists those whose
    # dice count, so a third is refused rather than silently dropped.
    with pytest.raises(CheckError) as e:
        boons.assist_dice(1, assists)
    assert e.value.code == "too_many_assists" and "more than 2 assisting dice" in e.value.message
    refused("too_many_assists", ability=1, rank=1, assists=assists)
    refused("too_many_assists", ability=1, opponent=BoonsPool(ability=1, rank=1, assists=assists))


@pytest.mark.parametrize("rank, assists", [(2, [3, 1]), (2, [1, 3]), (2, [3, 4]), (0, [0, 1]), (5, [1, 1])])
def test_assist_dice_follow_the_order_of_the_assists(rank, assists):
    added = boons.assist_dice(rank, assists)
    assert len(added) == len(assists)
    first_outranking = next((i for i, r in enumerate(assists) if r > rank), None)
    assert [i for i, d in enumerate(added) if d == "ability"] == (
        [] if first_outranking is None else [first_outranking]
    )


def test_assists_need_the_primary_rank():
    refused("missing_rank", assists=[2])


def test_assists_fall_back_to_the_performer_rank():
    c = BoonsCheck(performer_rank=2, participant_ranks=[2], assists=[3])
    assert boons.build(c).assist == ["ability"]


@pytest.mark.parametrize("kw", [{"rank": -1, "assists": [1]}, {"rank": 1, "assists": [-1]}])
def test_negative_assist_rank_refused(kw):
    refused("negative_rank", **kw)


def test_assists_respect_the_dice_limit():
    assert len(boons.sizes(BoonsCheck(boon=9, rank=1, assists=[0]))) == 10
    refused("too_many_dice", boon=9, rank=1, assists=[0, 1])
    refused("too_many_dice", ability=10, rank=1, assists=[2])


def test_assist_caps_are_data():
    rules = boons.BoonsRules(max_assist_dice=3, max_assist_ability=2)
    assert boons.build(BoonsCheck(rank=1, assists=[2, 3, 4]), rules).assist == ["ability", "ability", "boon"]


# --- group checks ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "performer, participants, banes",
    [
        (3, [1, 2], 2),  # the lowest necessary participant counts
        (3, [3, 3], 0),
        (2, [4, 3], 0),  # never negative
        (4, [0], 4),  # one who must be carried counts as rank 0
        (3, [], 0),  # no other necessary participant
    ],
)
def test_group_banes(performer, participants, banes):
    c = BoonsCheck(ability=2, bane=1, performer_rank=performer, participant_ranks=participants)
    assert boons.build(c).actor.bane == 1 + banes
    r = boons.read(c, [1] * len(boons.sizes(c)))
    assert r.group_banes == banes and r.types.count("bane") == 1 + banes


def test_group_banes_are_read():
    r = read([A_SS, BA_F, BA_N], ability=1, performer_rank=3, participant_ranks=[1])
    assert r.net_successes == 1 and r.net_boons == -1 and r.outcome == "success"


def test_group_keeps_the_dice_limit():
    assert len(boons.sizes(BoonsCheck(bane=8, performer_rank=3, participant_ranks=[1]))) == 10
    refused("too_many_dice", bane=8, performer_rank=3, participant_ranks=[0])


@pytest.mark.parametrize("kw", [{"performer_rank": 2}, {"participant_ranks": [1]}])
def test_incomplete_group_refused(kw):
    refused("incomplete_group", **kw)


@pytest.mark.parametrize(
    "kw", [{"performer_rank": -1, "participant_ranks": [0]}, {"performer_rank": 1, "participant_ranks": [-1]}]
)
def test_negative_group_rank_refused(kw):
    refused("negative_rank", **kw)


# --- opposed checks --------------------------------------------------------------------------------------


def opposed(actor_faces, defender_faces, actor=None, defender=None):
    c = BoonsCheck(
        **(actor or {"ability": len(actor_faces)}), opponent=BoonsPool(**(defender or {"ability": len(defender_faces)}))
    )
    return boons.read(c, actor_faces + defender_faces)


def test_opposed_dice_follow_the_actor():
    c = BoonsCheck(ability=1, boon=1, bane=1, opponent=BoonsPool(ability=1, boon=1, bane=1))
    assert boons.sizes(c) == [8, 6, 6, 8, 6, 6]
    r = boons.read(c, [A_SS, BO_B, BA_F, A_X, BO_BB, BA_N])
    assert r.types == ["ability", "boon", "bane", "ability", "boon", "bane"]
    assert r.net_successes == 1 and r.defender.net_successes == 1
    assert r.breakthroughs == 0 and r.defender.breakthroughs == 1
    assert r.net_boons == 1 and r.defender.net_boons == 1


def test_more_net_successes_wins():
    r = opposed([A_SS], [A_S])
    assert r.winner == "actor" and r.outcome == "improved"
    r = opposed([A_S], [A_SS])
    assert r.winner == "defender" and r.outcome == "failure"


def test_tie_goes_to_the_defender():
    r = opposed([A_SS], [A_SS])
    assert r.winner == "defender" and r.outcome == "failure"
    r = opposed([A_BLANK], [A_BLANK])
    assert r.winner == "defender"


def test_actor_wins_with_no_net_success():
    # More net successes wins, even at 0 against -1: a win is at least a success.
    r = opposed([A_BLANK], [A_BLANK, BA_F], defender={"ability": 1, "bane": 1})
    assert r.winner == "actor" and r.net_successes == 0 and r.outcome == "success"


def test_actor_win_band_follows_net_successes():
    r = opposed([A_SS, A_SS], [A_S, A_S])
    assert r.winner == "actor" and r.outcome == "exceptional"


def test_both_sides_remaining_boons_and_banes():
    r = opposed([A_SB, BA_N], [A_SS, BO_BB], actor={"ability": 1, "bane": 1}, defender={"ability": 1, "boon": 1})
    assert r.winner == "defender"
    assert r.actor.net_boons == 0 and r.actor.remaining_boons == 0 and r.actor.remaining_banes == 0
    assert r.defender.remaining_boons == 2 and r.defender.remaining_banes == 0
    r = opposed([A_S, BA_N], [A_BLANK, BA_N], actor={"ability": 1, "bane": 1}, defender={"ability": 1, "bane": 1})
    assert r.winner == "actor" and r.actor.remaining_banes == 1 and r.defender.remaining_banes == 1


@pytest.mark.parametrize("kw", [{"trial": 1}, {"crisis": 1}, {"trial": 1, "upgrade": 1}])
def test_no_trial_or_crisis_dice_in_opposed_checks(kw):
    refused("opposed_difficulty", ability=1, opponent=BoonsPool(ability=1), **kw)


def test_opponent_pool_is_assisted_and_limited():
    c = BoonsCheck(ability=1, opponent=BoonsPool(ability=1, rank=1, assists=[2, 0]))
    r = boons.read(c, [A_S, A_S, A_S, BO_S])
    assert r.defender_assist_dice == ["ability", "boon"] and r.defender.net_successes == 3 and r.winner == "defender"
    refused("too_many_dice", opponent=BoonsPool(boon=11))
    refused("negative_dice", opponent=BoonsPool(bane=-1))
    refused("too_many_assists", ability=1, opponent=BoonsPool(rank=0, assists=[0, 0, 0]))
    refused("missing_rank", opponent=BoonsPool(assists=[1]))


def test_simple_check_has_no_winner():
    r = read([A_S], ability=1)
    assert r.winner is None and r.defender is None and r.extended is None


# --- extended checks -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "progress, attempts, threshold, limit, net, after",
    [
        (0, 0, 5, None, 2, (2, 1, "in_progress")),
        (2, 1, 5, None, 3, (5, 2, "complete")),  # reaching the threshold completes
        (2, 1, 5, None, 4, (6, 2, "complete")),
        (2, 1, 5, None, 0, (2, 2, "in_progress")),  # a roll at 0 adds nothing
        (2, 1, 5, None, -3, (2, 2, "in_progress")),  # nor does a roll below 0: no lost progress
        (2, 2, 5, 3, 1, (3, 3, "failed")),  # the attempt limit runs out first
        (2, 2, 5, 3, 3, (5, 3, "complete")),  # met on the last attempt: complete
        (0, 0, 1, 1, 0, (0, 1, "failed")),
        (0, 0, 1, 1, 1, (1, 1, "complete")),
        (0, 0, 3, 10, 1, (1, 1, "in_progress")),
    ],
)
def test_advance(progress, attempts, threshold, limit, net, after):
    assert boons.advance(progress, attempts, threshold, limit, net) == after


@pytest.mark.parametrize(
    "args, code",
    [
        ((5, 1, 5, None, 1), "extended_complete"),
        ((1, 3, 5, 3, 1), "extended_failed"),
        ((0, 0, 0, None, 1), "invalid_threshold"),
        ((0, 0, 3, 0, 1), "invalid_limit"),
        ((-1, 0, 3, None, 1), "invalid_progress"),
        ((0, -1, 3, None, 1), "invalid_progress"),
    ],
)
def test_advance_refusals(args, code):
    with pytest.raises(CheckError) as e:
        boons.advance(*args)
    assert e.value.code == code


def test_extended_roll_reports_progress():
    r = read([A_SS, A_S, T_F], ability=2, trial=1, threshold=6, time_unit="hours", limit=4, progress=1, attempts=1)
    assert r.outcome == "improved"
    e = r.extended
    assert (e.added, e.progress, e.attempts, e.status) == (2, 3, 2, "in_progress")
    assert (e.threshold, e.time_unit, e.limit) == (6, "hours", 4)


def test_extended_failed_roll_adds_nothing():
    r = read([A_S, T_FF], ability=1, trial=1, threshold=3, progress=2, attempts=4)
    assert r.outcome == "failure" and r.extended.added == 0 and r.extended.progress == 2 and r.extended.attempts == 5


def test_extended_completes_and_fails():
    r = read([A_SS], ability=1, threshold=4, progress=2, attempts=1, limit=2)
    assert r.extended.status == "complete"
    r = read([A_S], ability=1, threshold=4, progress=2, attempts=1, limit=2)
    assert r.extended.status == "failed" and r.extended.progress == 3


def test_extended_rolls_still_read_the_symbols():
    r = read([A_X, C_C], ability=1, crisis=1, threshold=3)
    assert r.breakthroughs == 1 and r.calamities == 1 and r.extended.added == 0


def test_rolling_a_complete_extended_check_refused():
    refused("extended_complete", ability=1, threshold=3, progress=3, attempts=2)


def test_rolling_a_failed_extended_check_refused():
    refused("extended_failed", ability=1, threshold=3, progress=1, attempts=2, limit=2)


@pytest.mark.parametrize("kw", [{"limit": 3}, {"time_unit": "hours"}, {"progress": 1}, {"attempts": 1}])
def test_extended_fields_need_a_threshold(kw):
    refused("incomplete_extended", ability=1, **kw)


def test_extended_cannot_be_opposed():
    refused("opposed_extended", ability=1, threshold=3, opponent=BoonsPool(ability=1))


# --- properties ------------------------------------------------------------------------------------------

counts = st.integers(min_value=0, max_value=10)


@st.composite
def pools_and_faces(draw):
    kw = {t: draw(counts) for t in TABLE}
    c = BoonsCheck(**kw)
    faces = [draw(st.integers(min_value=1, max_value=s)) for s in boons.sizes(c)]
    return c, faces


@given(pools_and_faces())
@settings(max_examples=300)
def test_net_counts_are_the_face_sums(case):
    c, faces = case
    r = boons.read(c, faces)
    symbols = "".join(TABLE[t][f - 1] for t, f in zip(r.types, faces))
    s, f = symbols.count("S") + symbols.count("X"), symbols.count("F") + symbols.count("C")
    assert r.net_successes == s - f
    assert r.net_boons == symbols.count("B") - symbols.count("N")
    # never cancelled, by each other or anything else
    assert r.breakthroughs == symbols.count("X") and r.calamities == symbols.count("C")
    assert r.outcome == (
        "exceptional" if s - f >= 4 else "improved" if s - f >= 2 else "success" if s - f >= 1 else "failure"
    )
    assert r.actor.remaining_boons - r.actor.remaining_banes == r.net_boons
    assert min(r.actor.remaining_boons, r.actor.remaining_banes) == 0


@given(pools_and_faces(), st.integers(min_value=0, max_value=10))
def test_upgrade_keeps_the_pool_size(case, upgrade):
    c, _ = case
    if upgrade > c.trial or c.crisis + upgrade > 10:
        return
    up = msgspec.structs.replace(c, upgrade=upgrade)
    assert len(boons.sizes(up)) == len(boons.sizes(c))
    assert boons.sizes(up).count(12) == c.crisis + upgrade


@given(counts, counts, counts, counts, counts, counts)
def test_opposed_winner_and_tie(a1, a2, b1, b2, n1, n2):
    c = BoonsCheck(ability=min(a1, 3), bane=min(n1, 3), opponent=BoonsPool(ability=min(a2, 3), bane=min(n2, 3)))
    r = resolve(c, Dice())
    assert r.winner == ("actor" if r.net_successes > r.defender.net_successes else "defender")
    assert (r.outcome == "failure") == (r.winner == "defender")


@given(
    st.integers(0, 20),
    st.integers(0, 20),
    st.integers(1, 20),
    st.one_of(st.none(), st.integers(1, 20)),
    st.integers(-10, 10),
)
def test_advance_properties(progress, attempts, threshold, limit, net):
    if progress >= threshold or (limit is not None and attempts >= limit):
        with pytest.raises(CheckError):
            boons.advance(progress, attempts, threshold, limit, net)
        return
    p, a, status = boons.advance(progress, attempts, threshold, limit, net)
    assert a == attempts + 1 and p == progress + max(0, net) and p >= progress
    assert status == ("complete" if p >= threshold else "failed" if limit is not None and a >= limit else "in_progress")


@given(pools_and_faces())
@settings(max_examples=50)
def test_rolled_faces_read_like_supplied_faces(case):
    c, _ = case
    faces = boons.roll(c, Dice())
    assert all(1 <= f <= s for f, s in zip(faces, boons.sizes(c)))
    r = boons.read(c, faces)
    again = resolve(msgspec.structs.replace(c, dice=faces))
    assert r == again


# --- the wire and the terminal ---------------------------------------------------------------------------


def test_check_and_result_travel_on_the_wire():
    c = BoonsCheck(ability=2, trial=1, rank=1, assists=[2], opponent=None, threshold=4, time_unit="scenes")
    wire = msgspec.json.encode(c)
    back = msgspec.json.decode(wire, type=messages.AnyCheck)
    assert back == c
    r = resolve(c, Dice())
    back_r = msgspec.json.decode(msgspec.json.encode(r), type=messages.AnyResult)
    assert isinstance(back_r, BoonsResult) and back_r == r
    assert b'"system":"boons"' in msgspec.json.encode(r)


def test_opposed_check_on_the_wire():
    raw = b'{"system":"boons","ability":2,"opponent":{"ability":1,"boon":2},"dice":[2,2,4,3,3]}'
    c = msgspec.json.decode(raw, type=messages.AnyCheck)
    r = resolve(c)
    assert r.winner == "defender" and r.net_successes == 2 and r.defender.net_successes == 4


def test_describe():
    assert "improved" in boons.describe(read([A_SS], ability=1))
    text = boons.describe(opposed([A_SS], [A_SS]))
    assert "defender" in text and "tie" in text
    text = boons.describe(
        read(
            [A_SS, BA_BLANK, BA_BLANK],
            ability=1,
            threshold=3,
            time_unit="hours",
            limit=2,
            rank=0,
            assists=[],
            performer_rank=2,
            participant_ranks=[0],
        )
    )
    assert "2/3" in text and "hours" in text and "bane dice" in text


# --- the plain pool's worked-out path ------------------------------------------------------------------


def _general(check, faces):
    """The result by the general path (the pool built, every face checked), whatever the check."""
    b = boons.build(check)
    return boons._read_built(check, b, boons._all_types(b), faces, boons.RULES)


@settings(max_examples=300, deadline=None)
@given(
    counts=st.tuples(*(st.integers(0, 10) for _ in range(5))),
    data=st.data(),
)
def test_a_plain_pool_reads_as_the_general_path_does(counts, data):
    check = BoonsCheck(**dict(zip(("ability", "boon", "bane", "trial", "crisis"), counts)))
    assert boons._compiled(boons.RULES).shape(check) is not None
    sizes = boons.sizes(check)
    faces = [data.draw(st.integers(1, s)) for s in sizes]
    fast = boons.read(check, faces)
    assert msgspec.json.encode(fast) == msgspec.json.encode(_general(check, faces))
    # rolled: the same bytes give the same faces and the same result as reading them
    seed = data.draw(st.binary(min_size=64, max_size=64))
    source = lambda n: (seed * (n // len(seed) + 1))[:n]  # noqa: E731
    rolled = boons.resolve(check, Dice(source))
    assert rolled.dice == Dice(source).roll_sizes(sizes) == boons.roll(check, Dice(source))
    assert msgspec.json.encode(rolled) == msgspec.json.encode(_general(check, rolled.dice))


def test_a_plain_pool_still_refuses_impossible_faces_and_unknown_symbols():
    with pytest.raises(DiceError):
        read([9], ability=1)
    with pytest.raises(DiceError):
        read([1, 2], ability=1)
    odd = boons.BoonsRules(faces={**boons.DEFAULT_FACES, "boon": ("-", "Q")})
    assert boons._compiled(odd).shape(BoonsCheck(boon=1)) is None  # not exact: the general path, which refuses
    with pytest.raises(CheckError) as e:
        boons.read(BoonsCheck(boon=1), [2], odd)
    assert e.value.code == "invalid_rules"


def test_results_of_one_shape_share_no_lists():
    check = BoonsCheck(ability=2, boon=1)
    a, b = boons.read(check, [1, 2, 3]), boons.read(check, [1, 2, 3])
    a.types.append("crisis")
    a.symbols.append("C")
    a.actor.pool.ability = 9
    assert b.types == ["ability", "ability", "boon"] and b.symbols == ["-", "S", "S"] and b.actor.pool.ability == 2
    assert boons.read(check, [1, 2, 3]) == b


# =====================================================================================================
# Cases worked out by hand from docs/rules/boons.md without looking at the engine's answer: faces in, the
# result fields the text and its rulings name out, with edge cases at every band boundary and ladder step.
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
    (
        {"ability": 1, "boon": 1, "bane": 1, "trial": 1, "crisis": 1},
        [A["SS"], BO["S"], BA["F"], T["F"], C["FF"]],
        "failure",
        ["SS", "S", "F", "F", "FF"],
        -1,
        0,
        0,
        0,
    ),
    ({"ability": 1, "crisis": 1}, [A["SS"], C["NN"]], "improved", ["SS", "NN"], 2, -2, 0, 0),
    # An empty pool reads zero net successes: a failure.
    ({}, [], "failure", [], 0, 0, 0, 0),
]


@pytest.mark.parametrize("pool, faces, outcome, symbols, net, net_boons, breaks, cals", BOONS_CASES)
def test_boons_cases(pool, faces, outcome, symbols, net, net_boons, breaks, cals):
    r = boons.read(BoonsCheck(**pool), faces)
    assert (r.outcome, r.symbols, r.net_successes, r.net_boons, r.breakthroughs, r.calamities) == (
        outcome,
        symbols,
        net,
        net_boons,
        breaks,
        cals,
    )


@pytest.mark.parametrize("die, faces", [("ability", 8), ("boon", 6), ("bane", 6), ("trial", 8), ("crisis", 12)])
def test_boons_die_sizes(die, faces):
    assert boons.sizes(BoonsCheck(**{die: 2})) == [faces, faces]


def test_boons_upgrade_turns_trial_dice_into_crisis_dice():
    check = BoonsCheck(ability=1, trial=2, upgrade=1)
    assert boons.sizes(check) == [8, 8, 12]
    r = boons.read(check, [A["SS"], T["F"], C["C"]])
    assert (r.net_successes, r.calamities, r.outcome) == (0, 1, "failure")


@pytest.mark.parametrize(
    "kw",
    [
        {"ability": 11},
        {"boon": 11},
        {"bane": 11},
        {"trial": 11},
        {"crisis": 11},
        {"boon": 10, "rank": 1, "assists": [0]},
        {"bane": 9, "performer_rank": 3, "participant_ranks": [1]},
    ],
)
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
    check = BoonsCheck(
        ability=1, threshold=threshold, limit=limit, progress=progress, attempts=attempts, time_unit="hours"
    )
    e = boons.read(check, faces).extended
    assert (e.added, e.progress, e.attempts, e.status) == (added, after, tries, status)


def test_boons_extended_negative_roll_adds_nothing():
    check = BoonsCheck(ability=1, trial=1, threshold=3, progress=2, attempts=1)
    e = boons.read(check, [A["-"], T["FF"]]).extended
    assert (e.added, e.progress) == (0, 2)


# Every possible roll of small pools against a transcription of the rulings that shares no code with
# the engine.

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
            band,
            net,
            symbols.count("B") - symbols.count("N"),
            symbols.count("X"),
            symbols.count("C"),
        ), (pool, faces)
