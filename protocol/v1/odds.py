"""Exact odds of a check: what the sidecar answers to an ``odds`` request.

Nothing is rolled, nothing changes. Every probability is exact (``num``/``den`` in lowest terms) with
its float for display; every expectation likewise. A distribution is a list of :class:`Chance`, one per
value: an ``outcome`` list always names every outcome this kind of check can have, best first,
impossible ones with probability 0 (so a bar keeps its colours); numeric distributions list only the
values that can occur, in ascending order; lists of named chances (harm, facets, participants) give
each name's own chance, and need not sum to 1.

The answers form a tagged union on ``system``, like checks and results.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

import msgspec

from .base import Probability
from .boons import BoonsDice


class Chance(msgspec.Struct, gc=False, frozen=True):
    """One value of a distribution and its exact probability."""

    value: str | int
    chance: Probability


class Expectation(msgspec.Struct, gc=False, frozen=True):
    """An exact expected value: ``num``/``den`` in lowest terms (``den`` > 0), and the float."""

    num: int
    den: int
    value: float


class CheckOdds(msgspec.Struct, gc=False, tag_field="system", frozen=True, omit_defaults=False):
    """Base of every odds answer: a tagged union on ``system``. Every answer has ``outcome``."""


class FacetsOdds(CheckOdds, tag="facets", frozen=True):
    outcome: list[Chance]
    """triumph, success, costly_success, failure, catastrophe."""
    pool: int
    """The effective pool (pool + helping - hindering), zero or less when desperate."""
    desperate: bool
    rolled: int
    """How many d6 are rolled (2 on a desperate roll)."""
    highest: list[Chance]
    """The die that is read: the highest, or the lowest of a desperate roll."""
    succeeds: Probability
    """A triumph, success or costly success."""
    harm_opponent: list[Chance]
    """Chance the opponent takes each harm (``wound``, ``condition``, ``scratch``); empty outside conflicts."""
    harm_character: list[Chance]
    """Chance the character takes each harm; empty outside `opposition` and `interpersonal`."""
    discord: list[Chance]
    """`mystical` only: chance of ``backlash``, ``discord``, ``severe_discord``; empty otherwise."""
    facet: list[Chance]
    """Chance of a ``beneficial`` (triumph) and a ``detrimental`` (catastrophe) facet."""
    cost: Probability
    """Chance of a cost (a costly success)."""


class ChallengeOdds(CheckOdds, tag="challenge", frozen=True):
    outcome: list[Chance]
    """epic_success, success, success_at_cost, failure, epic_failure."""
    margin: list[Chance]
    """Levels beaten (positive) or missed (negative), as read; a natural 1 is listed at its total's margin."""
    strain: list[Chance]
    """Strain change before any choice (+1 at cost, +2…+4 on a failure, −2 on an epic success, 0 else)."""
    choice: Probability
    """Chance of a choice between +1 game changer and less strain (a margin of +2 or +3)."""
    condition: Probability
    """Chance of a new condition (an epic failure)."""
    natural_one: Probability
    """Chance of a natural 1 (an epic failure whatever the total)."""
    succeeds: Probability
    mean_strain: Expectation
    """Expected strain change before any choice (an epic success counts −2)."""


class FlairsOdds(CheckOdds, tag="flairs", frozen=True):
    outcome: list[Chance]
    """triumph, conflict, failure; a simple or group check: success, failure."""
    rolled: int
    """How many d6 are rolled (2 on a desperate roll; every participant's for a group check)."""
    desperate: bool
    succeeds: Probability
    """A triumph, a conflict, or a simple (group) check's success."""
    highest: list[Chance]
    """The die that is read: the highest kept, or the lowest of a desperate roll (empty for a group)."""
    flairs: list[Chance]
    """Number of flairs earned from matching dice."""
    trials: list[Chance]
    """Number of trials on the result as read: from matching dice, plus darkness and lurking trials
    (``extra_trials``, certain), before any flair choice banishes one."""
    tainted: list[Chance]
    """Number of trials from tainted groups (groups that lost a die to a cut; every pair of a desperate roll)."""
    mean_flairs: Expectation
    mean_trials: Expectation
    extra_trials: int
    """Trials that stand whatever the dice: darkness and lurking trials."""
    group: Probability | None = None
    """A group check: the chance that at least half of its participants succeed."""
    participants: list[Chance] | None = None
    """A group check: each participant's chance of success on their simple check, by name."""
    springs: list[Chance] | None = None
    """A room trap: each participant's chance of springing it (the group fails and they are among the
    lowest results)."""


class FeatsOdds(CheckOdds, tag="feats", frozen=True):
    outcome: list[Chance]
    """success, failure."""
    level: int
    """The feat level."""
    automatic: bool
    """True when no dice are rolled: below the table it simply succeeds, above it the Wyrd feat buys it."""
    degree: list[Chance]
    """The degree of success (positive or zero) or failure (zero or negative); 0 without a roll."""
    mean_degree: Expectation
    bought: int
    """Dice set to 8 with Wyrd Points."""
    cost: int
    """Wyrd Points spent."""
    by_wyrd: list[Chance]
    """The chance of success when buying 0, 1, 2 or 3 8s (first die first); empty without a roll."""


class BoonsOdds(CheckOdds, tag="boons", frozen=True):
    outcome: list[Chance]
    """exceptional, improved, success, failure."""
    pool: BoonsDice
    """The actor's effective pool (assists, group banes and upgrades applied)."""
    succeeds: Probability
    net_successes: list[Chance]
    net_boons: list[Chance]
    breakthroughs: list[Chance]
    calamities: list[Chance]
    breakthrough: Probability
    """At least one breakthrough."""
    calamity: Probability
    """At least one calamity."""
    mean_net_successes: Expectation
    mean_net_boons: Expectation
    defender_pool: BoonsDice | None = None
    win: Probability | None = None
    """Opposed: the chance the actor wins (more net successes than the defender; a tie is lost)."""
    defender_net_successes: list[Chance] | None = None
    defender_net_boons: list[Chance] | None = None
    extended: list[Chance] | None = None
    """Extended: the status after this roll (complete, failed, in_progress)."""


if TYPE_CHECKING:
    # What a type checker sees of ``systems.AnyOdds`` (assembled at run time from the entry points): the
    # answers written here, whose fields callers read.
    AnyOdds = Union[FacetsOdds, ChallengeOdds, FlairsOdds, FeatsOdds, BoonsOdds]
else:
    AnyOdds = CheckOdds
ODDS_TYPES: tuple[type, ...] = tuple(kind for kind in CheckOdds.__subclasses__() if kind.__module__ == __name__)
"""The odds answers written in this module (the shipped rule sets'), in the order written."""
