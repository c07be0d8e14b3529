"""Exact odds of a `challenge` check: the faces of one d20, each read against the ladder."""

from __future__ import annotations

from protocol.v1.challenge import ChallengeCheck
from protocol.v1.odds import ChallengeOdds

from .challenge import ChallengeRules
from .odds_core import chances, expectation, prob

OUTCOMES = ("epic_success", "success", "success_at_cost", "failure", "epic_failure")


def challenge_odds(check: ChallengeCheck, rules: ChallengeRules) -> ChallengeOdds:
    den = rules.sides
    floor, step = rules.ladder_floor, rules.ladder_step
    rows = dict(rules.strain)
    low_row, high_row = min(rows), max(rows)
    choice_margins = dict(rules.choice_strain)
    natural = rules.epic_failure_natural
    epic_up, epic_down = rules.epic_success_margin, rules.epic_failure_margin
    outcome = dict.fromkeys(OUTCOMES, 0)
    margins: dict[int, int] = {}
    strain: dict[int, int] = {}
    choices = natural_one = 0
    for face in range(1, den + 1):
        total = face + check.modifier
        # The ladder: level 0 at or below the floor, then one level per `step` totals (ceiling division).
        level = 0 if total <= floor else (total - floor + step - 1) // step
        margin = level - check.cl
        margins[margin] = margins.get(margin, 0) + 1
        if natural is not None and face == natural:
            o, s = "epic_failure", rules.epic_failure_strain
            natural_one += 1
        elif margin >= epic_up:
            o, s = "epic_success", rules.epic_success_strain
        elif margin <= epic_down:
            o, s = "epic_failure", rules.epic_failure_strain
        else:
            o = "success_at_cost" if margin == 0 else "success" if margin > 0 else "failure"
            # Margins beyond the strain rows (moved epic thresholds) take the nearest row, as the engine reads them.
            s = rows[min(max(margin, low_row), high_row)]
            if margin in choice_margins:
                choices += 1
        outcome[o] += 1
        strain[s] = strain.get(s, 0) + 1
    return ChallengeOdds(
        outcome=chances(outcome, den, keep_zero=True),
        margin=chances(sorted(margins.items()), den),
        strain=chances(sorted(strain.items()), den),
        choice=prob(choices, den),
        condition=prob(outcome["epic_failure"], den),
        natural_one=prob(natural_one, den),
        succeeds=prob(outcome["epic_success"] + outcome["success"] + outcome["success_at_cost"], den),
        mean_strain=expectation(sum(s * w for s, w in strain.items()), den),
    )
