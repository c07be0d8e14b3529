"""Exact odds of a `challenge` check: each of the d20's faces read by the rule module itself.

Twenty reads are cheap, and reading with :func:`challenge.read` keeps one statement of the rules.
"""

from __future__ import annotations

from protocol.v1.challenge import ChallengeCheck
from protocol.v1.odds import ChallengeOdds

from . import rules as challenge
from .rules import ChallengeRules
from ...odds_core import chances, expectation, prob

OUTCOMES = ("epic_success", "success", "success_at_cost", "failure", "epic_failure")


def challenge_odds(check: ChallengeCheck, rules: ChallengeRules) -> ChallengeOdds:
    den = rules.sides
    outcome = dict.fromkeys(OUTCOMES, 0)
    margins: dict[int, int] = {}
    strain: dict[int, int] = {}
    choices = natural_one = conditions = successes = 0
    for face in range(1, den + 1):
        r = challenge.read(check, [face], rules)
        outcome[r.outcome] += 1
        margins[r.margin] = margins.get(r.margin, 0) + 1
        strain[r.strain] = strain.get(r.strain, 0) + 1
        choices += r.choice is not None
        conditions += r.condition
        successes += r.success
        natural_one += r.outcome == "epic_failure" and face == rules.epic_failure_natural
    return ChallengeOdds(
        outcome=chances(outcome, den, keep_zero=True),
        margin=chances(sorted(margins.items()), den),
        strain=chances(sorted(strain.items()), den),
        choice=prob(choices, den),
        condition=prob(conditions, den),
        natural_one=prob(natural_one, den),
        succeeds=prob(successes, den),
        mean_strain=expectation(sum(s * w for s, w in strain.items()), den),
    )
