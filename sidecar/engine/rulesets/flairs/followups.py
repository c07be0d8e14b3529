"""The `flairs` follow-ups (docs/rules/flairs.md): which are open on a result (:func:`open_on`), and what each does
to it (:func:`follow`). How a result is read from its dice, a bargain's die included, is :mod:`.rules`'.

Which are open:

- The devil's bargain (the roller's): after a failure, once per check, with a skill of rank 1 or more, on a
  simple check too, never in a group check nor on one participant's part of one. It stays open after the
  Judge named the trials or revealed the lurking ones (the same trial may then stand twice).
- The flair choice (the roller's): once, on a full check, when there is something to choose: flairs earned,
  or lurking trials still secret (choosing none reveals them). Not before the Judge set the lurking trials,
  nor after the Judge revealed them, unless a devil's bargain then earned flairs.
- The Judge's reveal of the lurking trials, on a result that earned no flairs (else the player's choice
  reveals them), once they are set.
- The Judge's setting of lurking trials left unset (a check read from given faces).
- The Judge's naming of the trials of the Judge's choice (pairs, darkness) still unnamed, once.
"""

from __future__ import annotations

from collections.abc import Sequence

from protocol.v1 import table as t
from protocol.v1.base import Action
from protocol.v1.flairs import (
    FlairsBargain,
    FlairsCheck,
    FlairsChoose,
    FlairsNameTrials,
    FlairsResult,
    FlairsReveal,
    FlairsSetLurking,
    FlairsTrialName,
)
from protocol.v1.messages import OpenFollowup

from ...dice import Dice, check_faces
from ...errors import ErrorCode, FollowUpError
from ...ruleset import TableView
from .rules import FLAIRS, RULES, TRIALS, FlairsRules, ReadState, build, check_trials, trial_for_face


def open_on(roll: t.RollEvent, view: TableView) -> list[OpenFollowup]:
    """The follow-ups open on a `flairs` result as it stands (whose they are is the contract's to say)."""
    check, r = roll.check, roll.result
    assert isinstance(check, FlairsCheck) and isinstance(r, FlairsResult)
    out: list[OpenFollowup] = []
    if check.group is not None:
        return out  # a group check: no flairs, no trials of its own, no bargain
    if r.outcome == "failure" and r.bargain is None and check.rank >= 1 and roll.gather is None:
        out.append(OpenFollowup(action="flairs_bargain", trials=list(TRIALS)))
    if check.simple:
        return out  # a simple check: no flairs, no trials from dice, no lurking trials; a bargain, though
    unset = r.lurking > 0 and r.lurking_trials is None
    late = r.revealed and r.lurking > 0
    if not r.chosen and not unset and (not late or r.bargain is not None):
        if r.flairs > 0 or (r.lurking > 0 and not r.revealed):
            out.append(OpenFollowup(action="flairs_choose", flairs=r.flairs))
    if r.lurking > 0 and not r.revealed and r.flairs == 0 and not unset:
        out.append(OpenFollowup(action="flairs_reveal", gm=True))
    if unset:
        out.append(OpenFollowup(action="flairs_set_lurking", gm=True, count=r.lurking))
    unnamed = sum(1 for x in r.standing if x.source in ("pair", "darkness") and x.name is None)
    if not r.named and unnamed:
        out.append(OpenFollowup(action="flairs_name_trials", gm=True, count=unnamed))
    return out


# --- what each does ---------------------------------------------------------------------------


def _state_of(result: FlairsResult) -> ReadState:
    faces = list(result.dice[:-1]) if result.bargain_die is not None else list(result.dice)
    names = tuple(t.name for t in result.standing if t.source in ("pair", "darkness"))
    judged = names if result.named or any(n is not None for n in names) else None
    return ReadState(
        faces=faces,
        lurking_names=list(result.lurking_trials) if result.lurking_trials is not None else None,
        lurking_dice=list(result.lurking_dice) if result.lurking_dice is not None else None,
        bargain=result.bargain,
        bargain_die=result.bargain_die,
        chosen=result.chosen,
        chosen_flairs=tuple(result.chosen_flairs),
        gm_revealed=result.revealed and not result.chosen and result.lurking > 0,
        judged=judged,
        banished=tuple(result.banished) if result.chosen else None,
    )


def _given_or_rolled(given: list[int] | None, count: int, rng: Dice, what: str, rules: FlairsRules) -> list[int]:
    if given is not None:
        return check_faces(given, [rules.sides] * count, what)
    return rng.roll(rules.sides, count)


def _bargain(
    check: FlairsCheck, result: FlairsResult, action: FlairsBargain, rng: Dice, rules: FlairsRules
) -> FlairsResult:
    if check.group is not None:
        raise FollowUpError(
            ErrorCode.BARGAIN_IN_GROUP_CHECK,
            "flairs: you cannot enter a devil's bargain during a group check (it relies on collective skill)",
        )
    if check.rank < 1:
        raise FollowUpError(
            ErrorCode.BARGAIN_NEEDS_RANK,
            "flairs: a devil's bargain salvages a failed check with a skill you have (rank 1 or more); this check is at rank 0",
        )
    if result.bargain is not None:
        raise FollowUpError(
            ErrorCode.BARGAIN_TWICE,
            f"flairs: you can only benefit from one devil's bargain per check, and `{result.bargain}` was already accepted",
        )
    if result.outcome != "failure":
        raise FollowUpError(
            ErrorCode.BARGAIN_NOT_FAILURE,
            f"flairs: a devil's bargain is only offered after a failure; this check is a {result.outcome}",
        )
    check_trials([action.trial], "the devil's bargain", FollowUpError)
    die = _given_or_rolled(action.dice, rules.bargain_dice, rng, "the devil's bargain die", rules)
    st = _state_of(result)._replace(bargain=action.trial, bargain_die=die[0])
    if result.chosen:
        # A failure earns no flairs, so the choice made was of none: it only revealed the lurking trials.
        # They stay revealed; the choice is open again for what the new die earns.
        st = st._replace(chosen=False, chosen_flairs=(), banished=None, gm_revealed=result.lurking > 0)
    if st.judged is not None:
        st = st._replace(judged=_judged_after(result, build(check, st._replace(judged=None), rules)))
    return build(check, st, rules)


def _judged_after(before: FlairsResult, after: FlairsResult) -> tuple[FlairsTrialName | None, ...]:
    """The Judge's names carried to a re-read: each pair's names stay with its face, darkness's with darkness.

    A trial that no longer stands (its pair now gives flairs) drops its name; a new one is unnamed.
    """
    by_face: dict[int, list[FlairsTrialName | None]] = {}
    judged = [t for t in before.standing if t.source in ("pair", "darkness")]
    at = 0
    for m in before.matches:
        if m.gives == "trials":
            by_face[m.face] = [t.name for t in judged[at : at + m.amount]]
            at += m.amount
    dark = [t.name for t in judged[at:]]
    out: list[FlairsTrialName | None] = []
    for m in after.matches:
        if m.gives == "trials":
            names = by_face.get(m.face, [])
            out += [names[i] if i < len(names) else None for i in range(m.amount)]
    out += [dark[i] if i < len(dark) else None for i in range(sum(1 for t in after.standing if t.source == "darkness"))]
    return tuple(out)


def _choose(check: FlairsCheck, result: FlairsResult, action: FlairsChoose, rules: FlairsRules) -> FlairsResult:
    if check.simple or check.group is not None:
        raise FollowUpError(
            ErrorCode.CHOICE_IN_SIMPLE_CHECK,
            "flairs: a simple (or group) check cannot generate flairs, so there is no flair choice",
        )
    if result.chosen:
        raise FollowUpError(
            ErrorCode.FLAIRS_ALREADY_CHOSEN,
            f"flairs: the flair choice is made once, and was already made ({', '.join(result.chosen_flairs) or 'no flairs'})",
        )
    late = result.revealed and result.lurking > 0
    if late and result.bargain is None:
        raise FollowUpError(
            ErrorCode.ALREADY_REVEALED,
            "flairs: the Judge already revealed the lurking trials of this result; there is no flair choice left",
        )
    for f in action.flairs:
        if f not in FLAIRS:
            raise FollowUpError(
                ErrorCode.UNKNOWN_FLAIR, f"flairs: {f!r} is not a flair; the six flairs are {', '.join(FLAIRS)}"
            )
    for f in action.flairs:
        if action.flairs.count(f) > 1:
            raise FollowUpError(
                ErrorCode.FLAIR_CHOSEN_TWICE,
                f"flairs: you cannot apply the same flair twice to a result (`{f}` chosen {action.flairs.count(f)} times)",
            )
    if len(action.flairs) > result.flairs:
        raise FollowUpError(
            ErrorCode.TOO_MANY_FLAIRS,
            f"flairs: {len(action.flairs)} flairs chosen but this result earned {result.flairs}",
        )
    if result.lurking and result.lurking_trials is None:
        raise FollowUpError(
            ErrorCode.LURKING_NOT_SET,
            "flairs: the lurking trials are not set yet; the Judge sets them (`flairs_set_lurking`) before the choice",
        )
    st = _state_of(result)._replace(chosen=True, chosen_flairs=tuple(action.flairs))
    if late:  # flairs the devil's bargain earned after the reveal: the trials are known, none is banished
        st = st._replace(banished=(), gm_revealed=False)
    return build(check, st, rules)


def _reveal(check: FlairsCheck, result: FlairsResult, rules: FlairsRules) -> FlairsResult:
    if not result.lurking:
        raise FollowUpError(ErrorCode.NO_LURKING_TRIALS, "flairs: this check has no lurking trials to reveal")
    if result.revealed:
        raise FollowUpError(ErrorCode.ALREADY_REVEALED, "flairs: the lurking trials are already revealed")
    if result.flairs > 0:
        raise FollowUpError(
            ErrorCode.REVEAL_BEFORE_CHOICE,
            f"flairs: this result earned {result.flairs} flair(s): the player chooses them first "
            "(`flairs_choose`), which reveals the lurking trials",
        )
    if result.lurking_trials is None:
        raise FollowUpError(
            ErrorCode.LURKING_NOT_SET,
            "flairs: the lurking trials are not set yet; set them (`flairs_set_lurking`) before revealing",
        )
    return build(check, _state_of(result)._replace(gm_revealed=True), rules)


def _names_from(
    trials: Sequence[FlairsTrialName] | None,
    dice: list[int] | None,
    count: int,
    rng: Dice,
    what: str,
    rules: FlairsRules,
) -> tuple[list[FlairsTrialName], list[int] | None]:
    if trials is not None and dice is not None:
        raise FollowUpError(
            ErrorCode.TRIALS_AND_DICE, f"flairs: {what}: give the trials' names or the dice that draw them, not both"
        )
    if trials is not None:
        check_trials(trials, what, FollowUpError)
        if len(trials) != count:
            raise FollowUpError(
                ErrorCode.TRIAL_COUNT_MISMATCH, f"flairs: {what}: {count} trial(s) to name, got {len(trials)}"
            )
        return list(trials), None
    faces = (
        check_faces(dice, [len(rules.random_trials)] * count, what)
        if dice is not None
        else rng.roll(len(rules.random_trials), count)
    )
    return [trial_for_face(f, rules) for f in faces], faces


def _set_lurking(
    check: FlairsCheck, result: FlairsResult, action: FlairsSetLurking, rng: Dice, rules: FlairsRules
) -> FlairsResult:
    if not result.lurking:
        raise FollowUpError(ErrorCode.NO_LURKING_TRIALS, "flairs: this check has no lurking trials to set")
    if result.lurking_trials is not None:
        raise FollowUpError(ErrorCode.LURKING_ALREADY_SET, "flairs: the lurking trials of this check are already set")
    names, faces = _names_from(action.trials, action.dice, result.lurking, rng, "the lurking trials", rules)
    return build(check, _state_of(result)._replace(lurking_names=names, lurking_dice=faces), rules)


def _name_trials(
    check: FlairsCheck, result: FlairsResult, action: FlairsNameTrials, rng: Dice, rules: FlairsRules
) -> FlairsResult:
    if result.named:
        raise FollowUpError(
            ErrorCode.TRIALS_ALREADY_NAMED, "flairs: the Judge's trials of this check are already named"
        )
    current = [t.name for t in result.standing if t.source in ("pair", "darkness")]
    count = sum(1 for n in current if n is None)
    if count == 0:
        raise FollowUpError(
            ErrorCode.NO_TRIALS_TO_NAME,
            "flairs: this result has no trials of the Judge's choice (from pairs or darkness) to name",
        )
    names, _ = _names_from(action.trials, action.dice, count, rng, "the Judge's trials", rules)
    fill = iter(names)
    judged = tuple(n if n is not None else next(fill) for n in current)
    return build(check, _state_of(result)._replace(judged=judged), rules)


def follow(
    check: FlairsCheck, result: FlairsResult, action: Action, rng: Dice, rules: FlairsRules = RULES
) -> FlairsResult:
    """Apply a follow-up to the (unredacted) result; returns the new result, the old one untouched."""
    if isinstance(action, FlairsBargain):
        return _bargain(check, result, action, rng, rules)
    if isinstance(action, FlairsChoose):
        return _choose(check, result, action, rules)
    if isinstance(action, FlairsReveal):
        return _reveal(check, result, rules)
    if isinstance(action, FlairsSetLurking):
        return _set_lurking(check, result, action, rng, rules)
    if isinstance(action, FlairsNameTrials):
        return _name_trials(check, result, action, rng, rules)
    raise FollowUpError(
        ErrorCode.UNKNOWN_FOLLOWUP,
        "flairs: the follow-ups are `flairs_bargain`, `flairs_choose`, `flairs_reveal`, `flairs_set_lurking` and "
        f"`flairs_name_trials`, not {type(action).__name__}",
    )
