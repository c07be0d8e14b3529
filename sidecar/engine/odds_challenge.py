"""Exact odds of a `challenge` check: the faces of one d20, each read against the ladder."""

from __future__ import annotations

from protocol.v1.challenge import ChallengeCheck
from protocol.v1.odds import ChallengeOdds

from .challenge import ChallengeRules
from .odds_core import chances, expectation, prob

OUTCOMES = ("epic_success", "success", "success_at_cost", "failure", "epic_failure")


def _level(total: int, r: ChallengeRules) -> int:
    if total <= r.ladder_floor:
        return 0
    return (total - r.ladder_floor + r.ladder_step - 1) // r.ladder_step


def _strain(margin: int, r: ChallengeRules) -> int:
    rows = dict(r.strain)
    # Margins beyond the table (moved epic thresholds) take the nearest row, as the engine reads them.
    return rows[min(max(margin, min(rows)), max(rows))]


def challenge_odds(check: ChallengeCheck, rules: ChallengeRules) -> ChallengeOdds:
    den = rules.sides
    outcome = dict.fromkeys(OUTCOMES, 0)
    margins: dict[int, int] = {}
    strain: dict[int, int] = {}
    choices = 0
    choice_margins = dict(rules.choice_strain)
    natural_one = 0
    for face in range(1, rules.sides + 1):
        margin = _level(face + check.modifier, rules) - check.cl
        margins[margin] = margins.get(margin, 0) + 1
        if rules.epic_failure_natural is not None and face == rules.epic_failure_natural:
            o = "epic_failure"
            natural_one += 1
        elif margin >= rules.epic_success_margin:
            o = "epic_success"
        elif margin <= rules.epic_failure_margin:
            o = "epic_failure"
        else:
            o = "success_at_cost" if margin == 0 else "success" if margin > 0 else "failure"
        outcome[o] += 1
        if o == "epic_success":
            s = rules.epic_success_strain
        elif o == "epic_failure":
            s = rules.epic_failure_strain
        else:
            s = _strain(margin, rules)
            if margin in choice_margins:
                choices += 1
        strain[s] = strain.get(s, 0) + 1
    mean = sum(s * w for s, w in strain.items())
    return ChallengeOdds(
        outcome=chances(outcome, den, keep_zero=True),
        margin=chances(sorted(margins.items()), den),
        strain=chances(sorted(strain.items()), den),
        choice=prob(choices, den),
        condition=prob(outcome["epic_failure"], den),
        natural_one=prob(natural_one, den),
        succeeds=prob(outcome["epic_success"] + outcome["success"] + outcome["success_at_cost"], den),
        mean_strain=expectation(mean, den),
    )
