"""Rule sentences traced to cases, read through the command line as a table would use it.

Each case below was worked out by hand from docs/rules/*.md (the rules and their rulings): it runs `verdict
read` in this process (``running.verdict``) and reads its ``--json``. The follow-ups, which the CLI does not
offer, are traced in the rule sets' own files under tests/engine/. The comment above each group quotes the
sentence.
"""

from __future__ import annotations

import json

import pytest

from .running import Ran, verdict

TRIALS = ["costly", "slow", "loud", "harmful", "foolish", "chaotic"]


def _run(system: str, args: list[str]) -> Ran:
    return verdict("read", system, *args, "--json")


def cli(system: str, *args: str) -> dict:
    """The result object `verdict read SYSTEM ARGS --json` prints."""
    done = _run(system, list(args))
    assert done.returncode == 0, done.stderr
    obj = json.loads(done.stdout)
    assert obj["system"] == system
    return obj


def cli_refused(system: str, *args: str) -> str:
    """The message of a refused `verdict read`: it exits non-zero and prints no result."""
    done = _run(system, list(args))
    assert done.returncode != 0 and not done.stdout.strip(), done.stdout
    return done.stderr


def pick(obj: dict, want: dict) -> dict:
    return {k: obj[k] for k in want}


# =====================================================================================================
# flairs
# =====================================================================================================

FLAIRS = [
    # "On a roll of 6d6 showing [6, 6, 1, 6, 1, 1] you triumph and gain 4 flairs."
    (["--rank", "6", "--dice", "6,6,1,6,1,1"], {"outcome": "triumph", "flairs": 4, "trials": 0, "tainted": 0}),
    # "Each cut removes the highest remaining die"; a group that lost a die is tainted: the 6s give
    # two trials, the untouched 1s two flairs.
    (
        ["--rank", "6", "--cuts", "1", "--dice", "6,6,1,6,1,1"],
        {"outcome": "triumph", "kept": [6, 1, 6, 1, 1], "removed": [6], "flairs": 2, "trials": 2, "tainted": 2},
    ),
    # Both dice of a pair cut away: the group still lost a die, so it is tainted.
    (
        ["--rank", "3", "--cuts", "2", "--dice", "6,6,2"],
        {
            "outcome": "failure",
            "kept": [2],
            "removed": [6, 6],
            "flairs": 0,
            "trials": 1,
            "tainted": 1,
            "desperate": False,
        },
    ),
    # "Pool = skill rank + edges."
    (["--rank", "1", "--edges", "1", "--dice", "4,4"], {"outcome": "conflict", "pool": 2, "flairs": 1, "trials": 0}),
    (["--edges", "1", "--dice", "6"], {"outcome": "triumph", "desperate": False, "pool": 1}),
    # Untainted groups: flairs on conflict/triumph, trials on failure; a group of k gives k - 1.
    (["--rank", "3", "--dice", "2,2,1"], {"outcome": "failure", "flairs": 0, "trials": 1, "tainted": 0}),
    (["--rank", "4", "--dice", "3,3,3,1"], {"outcome": "failure", "flairs": 0, "trials": 2, "tainted": 0}),
    (["--rank", "4", "--dice", "5,5,5,5"], {"outcome": "conflict", "flairs": 3, "trials": 0}),
    (["--rank", "5", "--dice", "6,2,2,1,1"], {"outcome": "triumph", "flairs": 2, "trials": 0}),
    # "No dice in the pool, or cuts >= pool: roll 2d6 and keep the lowest; every pair is tainted."
    (["--dice", "6,6"], {"outcome": "triumph", "desperate": True, "kept": [6], "flairs": 0, "trials": 1, "tainted": 1}),
    (["--dice", "5,2"], {"outcome": "failure", "desperate": True, "kept": [2], "removed": [5]}),
    (
        ["--rank", "2", "--cuts", "2", "--dice", "5,4"],
        {"outcome": "conflict", "desperate": True, "kept": [4], "removed": [5], "flairs": 0, "trials": 0},
    ),
    (
        ["--rank", "2", "--cuts", "3", "--dice", "3,3"],
        {"outcome": "failure", "desperate": True, "trials": 1, "tainted": 1},
    ),
    (
        ["--rank", "2", "--edges", "1", "--cuts", "2", "--dice", "6,5,5"],
        {"outcome": "conflict", "desperate": False, "kept": [5], "flairs": 0, "trials": 1, "tainted": 1},
    ),
    # "Darkness adds one trial when sight matters" - on any outcome, beside the pairs.
    (["--rank", "2", "--darkness", "--dice", "6,1"], {"outcome": "triumph", "flairs": 0, "trials": 1}),
    (["--rank", "2", "--darkness", "--dice", "4,4"], {"outcome": "conflict", "flairs": 1, "trials": 1}),
    (["--rank", "2", "--darkness", "--dice", "2,2"], {"outcome": "failure", "flairs": 0, "trials": 2}),
    # "Simple check: no flairs or trials; 4+ succeeds, 1-3 fails."
    (["--rank", "2", "--simple", "--dice", "4,4"], {"outcome": "success", "flairs": 0, "trials": 0, "tainted": 0}),
    (["--rank", "3", "--simple", "--cuts", "1", "--dice", "6,3,3"], {"outcome": "failure", "flairs": 0, "trials": 0}),
    (["--rank", "1", "--simple", "--dice", "3"], {"outcome": "failure"}),
    (["--simple", "--dice", "4,6"], {"outcome": "success", "desperate": True, "trials": 0}),
    (["--simple", "--dice", "3,6"], {"outcome": "failure", "desperate": True}),
    # "Lurking trials ... apply even on a success"; players see N; unnamed ones are drawn by a d6 each,
    # after the pool's dice, over the six trials in order.
    (
        ["--rank", "1", "--lurking", "1", "--dice", "6,3"],
        {"outcome": "triumph", "dice": [6], "lurking": 1, "lurking_trials": ["loud"], "trials": 1, "revealed": False},
    ),
    (
        ["--rank", "2", "--lurking", "2", "--dice", "3,1,2,2"],
        {"outcome": "failure", "lurking_trials": ["slow", "slow"], "trials": 2},
    ),
    (
        ["--rank", "2", "--lurking-trials", "harmful", "--dice", "5,5"],
        {"outcome": "conflict", "lurking": 1, "flairs": 1, "trials": 1, "revealed": False, "banished": []},
    ),
    # Every source at once on a failure: a triple (2 trials), darkness (1), a lurking trial (1).
    (["--rank", "3", "--darkness", "--lurking-trials", "loud", "--dice", "2,2,2"], {"outcome": "failure", "trials": 4}),
]


@pytest.mark.parametrize("args, want", FLAIRS)
def test_flairs_cli(args, want):
    assert pick(cli("flairs", *args), want) == want


@pytest.mark.parametrize("face, trial", list(enumerate(TRIALS, start=1)))
def test_flairs_cli_random_trial_is_a_d6_in_the_rulings_order(face, trial):
    r = cli("flairs", "--rank", "1", "--lurking", "1", "--dice", f"2,{face}")
    assert (r["lurking_trials"], r["lurking_dice"], r["dice"]) == ([trial], [face], [2])


def _group(*people: tuple) -> str:
    return json.dumps([{"name": n, "rank": r, "cuts": c} for n, r, c in people])


GROUP = [
    # "Each participant makes a simple check; it succeeds when at least half succeed."
    ([("a", 1, 0), ("b", 1, 0)], "4,3", False, "success", []),
    ([("a", 1, 0), ("b", 1, 0), ("c", 1, 0)], "4,3,2", False, "failure", []),
    ([("a", 1, 0), ("b", 1, 0), ("c", 1, 0), ("d", 1, 0)], "4,5,1,1", False, "success", []),
    ([("a", 1, 0), ("b", 1, 0), ("c", 1, 0), ("d", 1, 0)], "4,3,1,1", False, "failure", []),
    # Pairs within a participant's pool give nothing in a group check.
    ([("a", 2, 0), ("b", 2, 0)], "3,3,2,2", False, "failure", []),
    # A room trap: on a failure the lowest result springs it, all tied lowest named; each result is the
    # participant's own read die (after cuts, the lowest of two when desperate).
    ([("a", 1, 0), ("b", 1, 0), ("c", 2, 1)], "3,2,6,2", True, "failure", ["b", "c"]),
    ([("a", 0, 0), ("b", 1, 0)], "5,1,3", True, "failure", ["a"]),
    ([("a", 1, 0), ("b", 1, 0)], "4,1", True, "success", []),
]


@pytest.mark.parametrize("people, dice, trap, outcome, springs", GROUP)
def test_flairs_cli_group_and_room_trap(people, dice, trap, outcome, springs):
    args = ["--group", _group(*people), "--dice", dice] + (["--trap"] if trap else [])
    r = cli("flairs", *args)
    assert (r["outcome"], r["springs"], r["flairs"], r["trials"]) == (outcome, springs, 0, 0)


def test_flairs_cli_refusals():
    assert "group" in cli_refused("flairs", "--rank", "1", "--trap", "--dice", "3")
    assert "negative" in cli_refused("flairs", "--rank", "-1", "--dice", "3,3")


# =====================================================================================================
# feats
# =====================================================================================================

FEATS = [
    # The text's examples at level +1 (difficulty - ability): white 7 succeeds; white 8 would have
    # succeeded at +2; all three 8s at +8; white 1-2 fails at -1; three 1s fail at -8.
    (
        ["--ability", "5", "--difficulty", "6", "--dice", "7,1,1"],
        {"level": 1, "success": True, "best_level": 1, "worst_level": 2, "degree": 0},
    ),
    (
        ["--ability", "5", "--difficulty", "6", "--dice", "8,1,1"],
        {"level": 1, "success": True, "best_level": 2, "worst_level": 3, "degree": 1},
    ),
    (["--ability", "5", "--difficulty", "6", "--dice", "7,8,1"], {"success": True, "best_level": 3, "degree": 2}),
    (
        ["--ability", "5", "--difficulty", "6", "--dice", "8,8,8"],
        {"success": True, "best_level": 8, "worst_level": None, "degree": 7},
    ),
    (["--ability", "5", "--difficulty", "6", "--dice", "2,8,8"], {"success": False, "worst_level": -1, "degree": -2}),
    (
        ["--ability", "5", "--difficulty", "6", "--dice", "1,1,1"],
        {"success": False, "best_level": None, "worst_level": -8, "degree": -9},
    ),
    # "or the opponent's ability/skill - the actor's"
    (
        ["--ability", "6", "--opposing", "4", "--dice", "3,1,1"],
        {"level": -2, "success": True, "best_level": -1, "degree": 1},
    ),
    (
        ["--ability", "4", "--opposing", "6", "--dice", "7,1,1"],
        {"level": 2, "success": False, "worst_level": 2, "degree": 0},
    ),
    # -8 is still rolled: it fails only on three 1s.
    (["--level", "-8", "--dice", "1,1,1"], {"success": False, "degree": 0}),
    (["--level", "-8", "--dice", "1,1,2"], {"success": True, "best_level": -8, "degree": 0}),
    # "each 8 bought costs 5 WP and sets a chosen die to 8 without rolling it (default: first die
    # first)"; the degree reads the bought 8s like rolled ones.
    (
        ["--level", "2", "--wyrd", "1", "--dice", "1,1"],
        {"dice": [8, 1, 1], "success": True, "degree": 0, "bought": ["white"], "cost": 5},
    ),
    (
        ["--level", "5", "--wyrd", "2", "--dice", "7"],
        {"dice": [8, 8, 7], "success": True, "best_level": 7, "degree": 2, "bought": ["white", "red"], "cost": 10},
    ),
    (
        ["--level", "6", "--wyrd", "1", "--wyrd-dice", "blue", "--dice", "8,7"],
        {"dice": [8, 7, 8], "success": True, "best_level": 6, "degree": 0, "bought": ["blue"], "cost": 5},
    ),
    (
        ["--level", "3", "--wyrd", "1", "--wyrd-dice", "red", "--dice", "6,1"],
        {"dice": [6, 8, 1], "success": False, "worst_level": 1, "degree": -2, "cost": 5},
    ),
    (["--level", "8", "--wyrd", "3", "--dice", ""], {"dice": [8, 8, 8], "success": True, "degree": 0, "cost": 15}),
    # Below -8: no roll. Above +8: only by spending 20 WP.
    (["--level", "-9", "--dice", ""], {"success": True, "automatic": True, "cost": 0, "dice": []}),
    (
        ["--ability", "2", "--difficulty", "11", "--wyrd-feat", "--dice", ""],
        {"level": 9, "success": True, "automatic": True, "cost": 20},
    ),
]


@pytest.mark.parametrize("args, want", FEATS)
def test_feats_cli(args, want):
    r = cli("feats", *args)
    assert pick(r, want) == want
    assert r["outcome"] == ("success" if r["success"] else "failure")


def test_feats_cli_above_plus_eight_is_not_rolled():
    assert "20 WP" in cli_refused("feats", "--ability", "1", "--difficulty", "10", "--dice", "8,8,8")


# =====================================================================================================
# boons
# =====================================================================================================

BOONS = [
    # Face symbols: X is one success and a breakthrough, C one failure and a calamity; never cancel.
    (
        ["--ability", "1", "--dice", "8"],
        {"symbols": ["X"], "net_successes": 1, "breakthroughs": 1, "outcome": "success"},
    ),
    (["--crisis", "1", "--dice", "12"], {"symbols": ["C"], "net_successes": -1, "calamities": 1, "outcome": "failure"}),
    (
        ["--ability", "1", "--crisis", "1", "--dice", "8,12"],
        {"net_successes": 0, "breakthroughs": 1, "calamities": 1, "outcome": "failure"},
    ),
    # Two symbols on one face count twice.
    (["--ability", "1", "--dice", "4"], {"symbols": ["SS"], "net_successes": 2, "outcome": "improved"}),
    (["--boon", "1", "--dice", "5"], {"symbols": ["BB"], "net_boons": 2, "outcome": "failure"}),
    (["--trial", "1", "--dice", "3"], {"symbols": ["FF"], "net_successes": -2}),
    (["--trial", "1", "--dice", "7"], {"symbols": ["NN"], "net_boons": -2}),
    (["--crisis", "1", "--dice", "9"], {"symbols": ["FN"], "net_successes": -1, "net_boons": -1}),
    (["--ability", "1", "--dice", "7"], {"symbols": ["SB"], "net_successes": 1, "net_boons": 1}),
    # Bands: 1 success, 2-3 improved, 4+ exceptional, 0 or less failure.
    (["--ability", "2", "--dice", "4,2"], {"net_successes": 3, "outcome": "improved"}),
    (["--ability", "2", "--dice", "4,4"], {"net_successes": 4, "outcome": "exceptional"}),
    (["--ability", "1", "--trial", "1", "--dice", "2,2"], {"net_successes": 0, "outcome": "failure"}),
    # "crisis dice replace trial dice when the GM upgrades the difficulty"
    (
        ["--ability", "1", "--trial", "2", "--upgrade", "1", "--dice", "4,1,12"],
        {"types": ["ability", "trial", "crisis"], "net_successes": 1, "calamities": 1, "outcome": "success"},
    ),
    (
        ["--ability", "1", "--trial", "1", "--upgrade", "1", "--dice", "2,12"],
        {"types": ["ability", "crisis"], "net_successes": 0, "calamities": 1},
    ),
    # Assisted: a boon die, or an ability die from one with more ranks; at most two, one ability.
    (
        ["--ability", "1", "--rank", "2", "--assists", "3,4", "--dice", "2,1,1"],
        {"assist_dice": ["ability", "boon"], "types": ["ability", "ability", "boon"]},
    ),
    (["--ability", "1", "--rank", "2", "--assists", "2", "--dice", "2,1"], {"assist_dice": ["boon"]}),
    (["--ability", "1", "--rank", "2", "--assists", "1,3", "--dice", "2,1,1"], {"assist_dice": ["boon", "ability"]}),
    # Group: bane dice = performer's rank - the lowest necessary participant's, never negative.
    (
        ["--ability", "2", "--performer-rank", "3", "--participant-ranks", "1,2", "--dice", "4,2,3,3"],
        {"group_banes": 2, "net_successes": 1, "outcome": "success"},
    ),
    (
        ["--ability", "1", "--performer-rank", "1", "--participant-ranks", "3", "--dice", "2"],
        {"group_banes": 0, "types": ["ability"]},
    ),
    # Opposed: more net successes wins, a tie goes to the defender; both sides' boons and banes reported.
    (["--ability", "1", "--opponent", '{"ability": 1}', "--dice", "2,2"], {"winner": "defender", "outcome": "failure"}),
    (["--ability", "1", "--opponent", '{"ability": 1}', "--dice", "4,2"], {"winner": "actor"}),
    (["--ability", "1", "--opponent", '{"ability": 1}', "--dice", "1,1"], {"winner": "defender", "outcome": "failure"}),
    # Extended: positive net successes add up; a roll at 0 or below adds nothing; complete at the
    # threshold; failed when the attempts run out first.
    (
        ["--ability", "1", "--threshold", "3", "--progress", "2", "--attempts", "1", "--dice", "2"],
        {
            "extended": {
                "threshold": 3,
                "time_unit": None,
                "limit": None,
                "added": 1,
                "progress": 3,
                "attempts": 2,
                "status": "complete",
            }
        },
    ),
    (
        ["--ability", "1", "--trial", "1", "--threshold", "3", "--progress", "1", "--dice", "1,3"],
        {
            "extended": {
                "threshold": 3,
                "time_unit": None,
                "limit": None,
                "added": 0,
                "progress": 1,
                "attempts": 1,
                "status": "in_progress",
            }
        },
    ),
    (
        ["--ability", "1", "--threshold", "3", "--limit", "2", "--progress", "1", "--attempts", "1", "--dice", "2"],
        {
            "extended": {
                "threshold": 3,
                "time_unit": None,
                "limit": 2,
                "added": 1,
                "progress": 2,
                "attempts": 2,
                "status": "failed",
            }
        },
    ),
    (
        ["--ability", "1", "--threshold", "3", "--limit", "2", "--progress", "1", "--attempts", "1", "--dice", "4"],
        {
            "extended": {
                "threshold": 3,
                "time_unit": None,
                "limit": 2,
                "added": 2,
                "progress": 3,
                "attempts": 2,
                "status": "complete",
            }
        },
    ),
]


@pytest.mark.parametrize("args, want", BOONS)
def test_boons_cli(args, want):
    assert pick(cli("boons", *args), want) == want


def test_boons_cli_opposed_reports_both_sides():
    r = cli("boons", "--ability", "1", "--bane", "1", "--opponent", '{"ability": 1, "boon": 1}', "--dice", "4,5,1,5")
    assert r["winner"] == "actor"
    assert (r["actor"]["net_successes"], r["actor"]["remaining_banes"]) == (2, 1)
    assert (r["defender"]["net_successes"], r["defender"]["remaining_boons"]) == (0, 2)


@pytest.mark.parametrize(
    "args",
    [
        ["--ability", "11", "--dice", ",".join(["1"] * 11)],  # 10 of each type by default
        ["--trial", "1", "--upgrade", "2", "--dice", "1"],  # more upgrades than trial dice
        [
            "--ability",
            "1",
            "--trial",
            "1",
            "--opponent",
            '{"ability": 1}',
            "--dice",
            "1,1,1",
        ],  # no difficulty in opposed
        ["--ability", "1", "--threshold", "3", "--progress", "3", "--dice", "1"],  # already complete
        ["--ability", "1", "--threshold", "3", "--limit", "2", "--attempts", "2", "--dice", "1"],  # already failed
        ["--ability", "1", "--rank", "2", "--assists", "1,1,1", "--dice", "2,1,1"],  # up to two assistants
    ],
)
def test_boons_cli_refusals(args):
    cli_refused("boons", *args)


def test_boons_cli_ten_of_a_type_is_allowed():
    assert len(cli("boons", "--ability", "10", "--dice", ",".join(["2"] * 10))["dice"]) == 10


# =====================================================================================================
# challenge
# =====================================================================================================

# (d20, modifier, cl) -> fields
CHALLENGE = [
    # margin 0 -> success_at_cost (+1 strain)
    ("7", "0", "2", {"level": 2, "margin": 0, "outcome": "success_at_cost", "strain": 1, "choice": None}),
    # +1 success; +2/+3 a choice of +1 game changer or -1/-2 strain; +4 epic success
    ("11", "0", "2", {"margin": 1, "outcome": "success", "strain": 0, "choice": None}),
    (
        "16",
        "0",
        "2",
        {"margin": 2, "outcome": "success", "strain": 0, "choice": ["game_changer", "strain"], "strain_option": -1},
    ),
    ("20", "1", "2", {"margin": 3, "outcome": "success", "strain": 0, "strain_option": -2}),
    (
        "20",
        "6",
        "2",
        {
            "level": 6,
            "margin": 4,
            "outcome": "epic_success",
            "strain": -2,
            "complication": "remove",
            "condition": False,
        },
    ),
    # -1/-2/-3 failure with +2/+3/+4 strain; -4 epic failure (a condition, a complication)
    ("10", "0", "3", {"margin": -1, "outcome": "failure", "strain": 2}),
    ("5", "0", "3", {"margin": -2, "outcome": "failure", "strain": 3}),
    ("2", "-2", "3", {"total": 0, "level": 0, "margin": -3, "outcome": "failure", "strain": 4}),
    ("2", "-3", "1", {"total": -1, "level": 0, "margin": -1, "outcome": "failure", "strain": 2}),
    ("2", "-2", "4", {"margin": -4, "outcome": "epic_failure", "condition": True, "complication": "add"}),
    # A natural 1 is an epic failure whatever the total (here margins 0 and +6).
    ("1", "0", "1", {"margin": 0, "outcome": "epic_failure", "condition": True, "complication": "add", "strain": 0}),
    ("1", "30", "1", {"margin": 6, "outcome": "epic_failure", "condition": True, "natural": 1}),
    # A natural 20 has no special rule.
    ("20", "0", "5", {"level": 4, "margin": -1, "outcome": "failure", "strain": 2, "natural": 20}),
]


@pytest.mark.parametrize("d20, modifier, cl, want", CHALLENGE)
def test_challenge_cli(d20, modifier, cl, want):
    r = cli("challenge", "--cl", cl, f"--modifier={modifier}", "--dice", d20)
    assert pick(r, want) == want
    assert r["success"] == (r["outcome"] in ("success_at_cost", "success", "epic_success"))


# =====================================================================================================
# facets
# =====================================================================================================

FACETS = [
    # Highest die: 6 success, 4-5 costly, 1-3 failure; two 6s triumph; a failure with two 1s catastrophe.
    (["--pool", "3", "--dice", "6,1,1"], {"outcome": "success"}),
    (["--pool", "3", "--dice", "5,1,1"], {"outcome": "costly_success", "cost": True}),
    (["--pool", "3", "--dice", "3,1,1"], {"outcome": "catastrophe", "facet": "detrimental"}),
    (["--pool", "2", "--dice", "3,1"], {"outcome": "failure", "facet": None}),
    (["--pool", "2", "--dice", "6,6"], {"outcome": "triumph", "facet": "beneficial"}),
    # Pool = brought + helping - hindering.
    (["--pool", "1", "--helping", "1", "--dice", "6,6"], {"outcome": "triumph", "pool": 2}),
    # Zero or fewer: 2d6, lowest kept, never a triumph; two 1s still a catastrophe.
    (
        ["--pool", "1", "--hindering", "1", "--dice", "6,6"],
        {"outcome": "success", "desperate": True, "highest": 6, "facet": None},
    ),
    (
        ["--pool", "2", "--hindering", "5", "--dice", "5,6"],
        {"outcome": "costly_success", "desperate": True, "pool": -3},
    ),
    (["--dice", "6,1"], {"outcome": "failure", "desperate": True, "highest": 1}),
    (["--dice", "1,1"], {"outcome": "catastrophe", "desperate": True}),
]


@pytest.mark.parametrize("args, want", FACETS)
def test_facets_cli(args, want):
    assert pick(cli("facets", *args), want) == want


# outcome faces, then per kind: (opponent, character, discord)
_FACES = {"triumph": "6,6", "success": "6,2", "costly_success": "4,1", "failure": "3,2", "catastrophe": "1,1"}
_CONFLICT = {
    "triumph": (["wound", "condition"], []),
    "success": (["wound"], []),
    "costly_success": (["scratch"], ["scratch"]),
    "failure": ([], ["wound"]),
    "catastrophe": ([], ["wound", "condition"]),
}
_MYSTICAL = {
    "triumph": None,
    "success": None,
    "costly_success": "backlash",
    "failure": "discord",
    "catastrophe": "severe_discord",
}


@pytest.mark.parametrize("kind", ["obstacle", "opposition", "interpersonal", "mystical"])
@pytest.mark.parametrize("outcome", list(_FACES))
def test_facets_cli_harm_rows_per_kind(kind, outcome):
    r = cli("facets", "--pool", "2", "--kind", kind, "--dice", _FACES[outcome])
    assert r["outcome"] == outcome
    opponent, character = _CONFLICT[outcome] if kind in ("opposition", "interpersonal") else ([], [])
    assert r["harm"] == {"opponent": opponent, "character": character}
    assert r["discord"] == (_MYSTICAL[outcome] if kind == "mystical" else None)


# =====================================================================================================
# The fields each rule set's text names, in what `verdict read --json` prints
# =====================================================================================================

GC = ["game_changer", "strain"]

CLI = [
    (
        ["challenge", "--modifier", "3", "--cl", "2", "--dice", "13"],
        {
            "total": 16,
            "level": 4,
            "margin": 2,
            "outcome": "success",
            "strain": 0,
            "choice": GC,
            "condition": False,
            "complication": None,
            "natural": 13,
        },
    ),
    (
        ["challenge", "--modifier", "30", "--cl", "1", "--dice", "1"],
        {"outcome": "epic_failure", "condition": True, "complication": "add", "natural": 1},
    ),
    (
        ["flairs", "--rank", "3", "--cuts", "1", "--dice", "6,6,2"],
        {
            "outcome": "triumph",
            "kept": [6, 2],
            "removed": [6],
            "flairs": 0,
            "trials": 1,
            "tainted": 1,
            "desperate": False,
        },
    ),
    (["flairs", "--rank", "2", "--simple", "--dice", "4,4"], {"outcome": "success", "flairs": 0, "trials": 0}),
    (
        ["flairs", "--rank", "0", "--lurking", "1", "--darkness", "--dice", "2,2"],
        {"outcome": "failure", "desperate": True, "kept": [2], "removed": [2], "trials": 3, "tainted": 1},
    ),
    (
        ["feats", "--ability", "5", "--difficulty", "6", "--dice", "7,1,1"],
        {"level": 1, "success": True, "best_level": 1, "worst_level": 2, "degree": 0, "bought": [], "cost": 0},
    ),
    (
        ["feats", "--level", "2", "--wyrd", "1", "--dice", "1,1"],
        {"level": 2, "success": True, "degree": 0, "bought": ["white"], "cost": 5},
    ),
    (
        ["feats", "--level", "2", "--wyrd", "1", "--dice", "8,1,1"],
        {"level": 2, "success": True, "degree": 0, "bought": ["white"], "cost": 5, "dice": [8, 1, 1]},
    ),
    (
        ["boons", "--ability", "1", "--crisis", "1", "--dice", "8,12"],
        {
            "outcome": "failure",
            "symbols": ["X", "C"],
            "net_successes": 0,
            "net_boons": 0,
            "breakthroughs": 1,
            "calamities": 1,
        },
    ),
    (["facets", "--pool", "3", "--dice", "5,1,1"], {"outcome": "costly_success"}),
]


@pytest.mark.parametrize("args, fields", CLI)
def test_read_json_names_the_fields_of_each_text(args, fields):
    ran = verdict("read", *args, "--json")
    assert ran.returncode == 0, ran.stderr
    obj = json.loads(ran.stdout)
    assert obj["system"] == args[0] and "dice" in obj
    assert {k: obj[k] for k in fields} == fields
