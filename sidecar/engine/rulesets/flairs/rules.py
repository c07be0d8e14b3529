"""`flairs` (docs/rules/flairs.md): a d6 pool read by its highest kept die.

Pool = rank + edges. Roll it, then each cut removes the highest remaining die. The highest kept die
reads 1–3 `failure`, 4–5 `conflict`, 6 `triumph` (a simple check: 4+ `success`, else `failure`).
No dice in the pool, or cuts >= pool, is desperate: 2d6, the lowest kept, every pair tainted.

Matching dice are counted over every rolled die, removed ones included: a group of k equal dice gives
k − 1. A group that lost a die to a cut is tainted: all of its k − 1 are trials, whatever the outcome.
Untainted groups give flairs on a conflict or triumph and trials on a failure.

Trials on a result (``trials``) are all that stand: those from matching dice, one for darkness, the
lurking trials not banished, and the devil's bargain's. Pair and darkness trials are the Judge's choice
(unnamed until `flairs_name_trials`).

Decisions where the texts leave room (each documented where it is applied):

- ``kept`` and ``removed`` partition the dice: on a desperate roll the higher die is ``removed``.
- After a devil's bargain the highest kept die is read, also on a desperate roll (kept = the lowest of
  the two, plus the new die), so that the new die can change the outcome as the text promises; the
  pairs stay all tainted on a desperate roll.
- A chosen flair banishes one lurking trial it opposes (a flair applies once per result); a second
  lurking trial of the same name stands.
- A simple check has no flairs or trials (docs/rules/flairs.md): darkness adds none to it, and lurking trials (set
  by the Judge for a full check) are refused on it and on group checks rather than silently dropped. A
  devil's bargain is open to it (docs/rules/flairs.md excludes only group checks): the named trial stands.
- "If you accept a devil's bargain and a trial is already chosen by the Judge, you can incur the same
  trial twice": a bargain may follow the Judge naming the trials, and also the reveal of the lurking
  trials (they too are trials the Judge chose). Only one bargain per check. The re-read keeps the
  Judge's names for the trials that still stand, matched by the face of their pair (a pair that only
  the new die makes is unnamed until the Judge names it); revealed lurking trials stay revealed and
  stand. A flair choice made before the bargain (on a failure: of no flairs) is set aside, so flairs
  the new die earns can be chosen; once the lurking trials are revealed they banish none of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

import msgspec

from protocol.v1.flairs import (
    FlairsCheck,
    FlairsFlair,
    FlairsMatch,
    FlairsOutcome,
    FlairsParticipantResult,
    FlairsResult,
    FlairsTrial,
    FlairsTrialName,
)

from ...dice import Dice, check_faces
from ...errors import CheckError, DiceError, ErrorCode

FLAIRS: tuple[FlairsFlair, ...] = ("careful", "swift", "quiet", "unscathed", "impressive", "composed")
TRIALS: tuple[FlairsTrialName, ...] = ("costly", "slow", "loud", "harmful", "foolish", "chaotic")
BANISHES: dict[FlairsFlair, FlairsTrialName] = dict(zip(FLAIRS, TRIALS))
"""Each flair and the trial it banishes (docs/rules/flairs.md: careful→costly, swift→slow, …)."""


class FlairsRules(msgspec.Struct, frozen=True):
    """The numbers of `flairs`, as data. Defaults are the rulings' (docs/rules/flairs.md)."""

    sides: int = 6
    triumph_face: int = 6
    conflict_face: int = 4
    """The highest kept die at or above this (and below ``triumph_face``) is a conflict."""
    simple_success_face: int = 4
    """A simple check succeeds with its highest kept die at or above this."""
    desperate_dice: int = 2
    bargain_dice: int = 1
    darkness_trials: int = 1
    group_success_num: int = 1
    group_success_den: int = 2
    """A group check succeeds when successes / participants >= num / den (at least half)."""
    random_trials: tuple[FlairsTrialName, ...] = TRIALS
    """A random trial: a d``len`` over these, face 1 first."""
    max_dice: int = 30
    max_lurking: int = 12
    max_participants: int = 12


RULES = FlairsRules()
JUDGES_CHOICE = "Judge's choice"


# --- checking the check -----------------------------------------------------------------


def lurking_count(check: FlairsCheck) -> int:
    """The number of lurking trials: ``lurking``, or the number of names when ``lurking`` is 0."""
    if check.lurking == 0 and check.lurking_trials:
        return len(check.lurking_trials)
    return check.lurking


def pool_of(rank: int, edges: int) -> int:
    return rank + edges


def is_desperate(rank: int, edges: int, cuts: int) -> bool:
    """No dice in the pool, or as many cuts as dice (or more): 2d6, the lowest kept."""
    n = pool_of(rank, edges)
    return n == 0 or cuts >= n


def _pool_sizes(rank: int, edges: int, cuts: int, rules: FlairsRules) -> list[int]:
    n = rules.desperate_dice if is_desperate(rank, edges, cuts) else pool_of(rank, edges)
    return [rules.sides] * n


def check_trials(names: Sequence[object], what: str, code_cls: type[CheckError] = CheckError) -> None:
    for t in names:
        if t not in TRIALS:
            raise code_cls(
                ErrorCode.UNKNOWN_TRIAL,
                f"flairs: {what}: {t!r} is not a trial; the six trials are {', '.join(TRIALS)}",
            )


def _validate_pool(who: str, rank: int, edges: int, cuts: int, rules: FlairsRules) -> None:
    for name, value in (("rank", rank), ("edges", edges), ("cuts", cuts)):
        if value < 0:
            raise CheckError(
                ErrorCode.INVALID_CHECK,
                f"flairs: {who}{name} cannot be negative (got {value}); a pool of no dice is rolled desperate",
            )
    if pool_of(rank, edges) > rules.max_dice:
        raise CheckError(
            ErrorCode.TOO_MANY_DICE,
            f"flairs: {who}a pool of rank + edges = {pool_of(rank, edges)} dice is more than the limit of {rules.max_dice}",
        )


def validate(check: FlairsCheck, rules: FlairsRules = RULES) -> None:
    if check.group is not None:
        _validate_group(check, rules)
        return
    if check.trap:
        raise CheckError(
            ErrorCode.TRAP_NEEDS_GROUP, "flairs: a room trap is a group check (`trap` needs `group`, the participants)"
        )
    _validate_pool("", check.rank, check.edges, check.cuts, rules)
    if check.lurking < 0:
        raise CheckError(ErrorCode.INVALID_CHECK, f"flairs: lurking cannot be negative (got {check.lurking})")
    if check.lurking_trials is not None:
        check_trials(check.lurking_trials, "lurking_trials")
        if check.lurking and len(check.lurking_trials) != check.lurking:
            raise CheckError(
                ErrorCode.LURKING_COUNT_MISMATCH,
                f"flairs: the Judge warned of {check.lurking} lurking trial(s) but named {len(check.lurking_trials)}; "
                "give as many names as `lurking` (or leave `lurking` at 0 to count the names)",
            )
    if lurking_count(check) > rules.max_lurking:
        raise CheckError(
            ErrorCode.TOO_MANY_LURKING,
            f"flairs: {lurking_count(check)} lurking trials is more than the limit of {rules.max_lurking}",
        )
    if check.simple and lurking_count(check):
        raise CheckError(
            ErrorCode.SIMPLE_CHECK_TRIALS,
            "flairs: a simple check cannot generate flairs or trials, so it takes no lurking trials; "
            "make a full check, or drop `lurking`",
        )


def _validate_group(check: FlairsCheck, rules: FlairsRules) -> None:
    group = check.group or []
    if not group:
        raise CheckError(ErrorCode.EMPTY_GROUP, "flairs: a group check needs at least one participant")
    if len(group) > rules.max_participants:
        raise CheckError(
            ErrorCode.TOO_MANY_PARTICIPANTS,
            f"flairs: {len(group)} participants is more than the limit of {rules.max_participants}",
        )
    if check.rank or check.edges or check.cuts or check.lurking or check.lurking_trials or check.darkness:
        raise CheckError(
            ErrorCode.GROUP_CHECK_FIELDS,
            "flairs: in a group check each participant makes a simple check with their own rank, edges and cuts; "
            "leave the check's rank, edges, cuts, lurking and darkness unset",
        )
    names = [p.name for p in group]
    for name in names:
        if names.count(name) > 1:
            raise CheckError(
                ErrorCode.DUPLICATE_PARTICIPANT,
                f"flairs: participant {name!r} appears twice in the group check; give each a distinct name",
            )
    for p in group:
        _validate_pool(f"participant {p.name!r}: ", p.rank, p.edges, p.cuts, rules)


def sizes(check: FlairsCheck, rules: FlairsRules = RULES) -> list[int]:
    """The dice to roll for the pool(s): rank + edges d6, or 2d6 when desperate; a group's concatenated.

    Lurking trials' draws are not included (:func:`roll` appends them).
    """
    if check.group is not None:
        return [s for p in check.group for s in _pool_sizes(p.rank, p.edges, p.cuts, rules)]
    return _pool_sizes(check.rank, check.edges, check.cuts, rules)


def _named_lurking(check: FlairsCheck) -> list[FlairsTrialName] | None:
    """The lurking trials the check names (a copy), or None when they are only counted."""
    return list(check.lurking_trials) if check.lurking_trials is not None else None


def _draws_needed(check: FlairsCheck) -> int:
    """Lurking trials the sidecar must draw at roll time: counted but not named."""
    if check.group is not None or check.lurking_trials is not None:
        return 0
    return check.lurking


def roll(check: FlairsCheck, rng: Dice, rules: FlairsRules = RULES) -> list[int]:
    """The pool's faces; then, for lurking trials counted but not named, one d6 each (random trials).

    :func:`read` takes the same list, so a roll is reproduced exactly from its faces.
    """
    validate(check, rules)
    faces = rng.roll_sizes(sizes(check, rules))
    draws = _draws_needed(check)
    if draws:
        faces += rng.roll(len(rules.random_trials), draws)
    return faces


# --- reading ------------------------------------------------------------------------------


def trial_for_face(face: int, rules: FlairsRules = RULES) -> FlairsTrialName:
    """A random trial from its die face: 1 is the first trial in the rulings' order (docs/rules/flairs.md)."""
    return rules.random_trials[face - 1]


def random_trial(rng: Dice, rules: FlairsRules = RULES) -> FlairsTrialName:
    """A random trial: a d6 over the six trials in the rulings' order (docs/rules/flairs.md)."""
    return trial_for_face(rng.roll(len(rules.random_trials))[0], rules)


class _Pool(NamedTuple):
    kept: list[int]
    removed: list[int]
    highest: int


def split(faces: Sequence[int], cuts: int, desperate: bool) -> _Pool:
    """Apply cuts (or keep the lowest of a desperate roll): kept in rolled order, removed highest first."""
    kept = list(faces)
    removed: list[int] = []
    if desperate:
        low = kept.index(min(kept))
        keep = kept.pop(low)
        removed = sorted(kept, reverse=True)
        return _Pool([keep], removed, keep)
    for _ in range(min(cuts, len(kept))):
        # Each cut removes the highest remaining die.
        top = kept.index(max(kept))
        removed.append(kept.pop(top))
    return _Pool(kept, removed, max(kept))


SimpleOutcome = Literal["success", "failure"]
"""What a simple check (and each part of a group check) reads: no conflict, no triumph."""


def simple_outcome_of(highest: int, rules: FlairsRules = RULES) -> SimpleOutcome:
    return "success" if highest >= rules.simple_success_face else "failure"


def outcome_of(highest: int, simple: bool, rules: FlairsRules = RULES) -> FlairsOutcome:
    if simple:
        return simple_outcome_of(highest, rules)
    if highest >= rules.triumph_face:
        return "triumph"
    if highest >= rules.conflict_face:
        return "conflict"
    return "failure"


def matches_of(
    rolled: Sequence[int], removed: Sequence[int], desperate: bool, outcome: FlairsOutcome
) -> list[FlairsMatch]:
    """Groups of equal dice over every rolled die (removed ones included), highest face first."""
    counts: dict[int, int] = {}
    for face in rolled:
        counts[face] = counts.get(face, 0) + 1
    if len(counts) == len(rolled):
        return []  # no two dice alike: the common case, answered without sorting
    lost = set(removed)
    out = []
    for face, count in sorted(counts.items(), reverse=True):
        if count < 2:
            continue
        # A group that lost a die to a cut is tainted; on a desperate roll every pair is.
        tainted = desperate or face in lost
        gives: Literal["flairs", "trials"] = "trials" if tainted or outcome == "failure" else "flairs"
        out.append(FlairsMatch(face=face, count=count, tainted=tainted, gives=gives, amount=count - 1))
    return out


class ReadState(NamedTuple):
    """Everything a result depends on beyond the check: what :func:`build` reads a result from, and what every
    follow-up (:mod:`.followups`) changes and reads again."""

    faces: list[int]
    """The pool's faces as rolled (no bargain die)."""
    lurking_names: list[FlairsTrialName] | None
    lurking_dice: list[int] | None
    bargain: FlairsTrialName | None = None
    bargain_die: int | None = None
    chosen: bool = False
    chosen_flairs: tuple[FlairsFlair, ...] = ()
    gm_revealed: bool = False
    judged: tuple[FlairsTrialName | None, ...] | None = None
    """The Judge's names for the pair and darkness trials, in the order of ``standing`` (None: unnamed)."""
    banished: tuple[FlairsTrialName, ...] | None = None
    """Lurking trials banished, once settled by the choice (None: from ``chosen_flairs``)."""


def build(check: FlairsCheck, st: ReadState, rules: FlairsRules) -> FlairsResult:
    """The result ``st`` reads as: a roll's, or one after its follow-ups."""
    desperate = is_desperate(check.rank, check.edges, check.cuts)
    pool = split(st.faces, check.cuts, desperate)
    kept, removed = pool.kept, pool.removed
    rolled = list(st.faces)
    if st.bargain_die is not None:
        # The new die joins the kept dice; earlier cuts are not re-applied to it.
        kept = kept + [st.bargain_die]
        rolled.append(st.bargain_die)
    highest = max(kept)
    outcome = outcome_of(highest, check.simple, rules)

    matches = [] if check.simple else matches_of(rolled, removed, desperate, outcome)
    flairs = sum(m.amount for m in matches if m.gives == "flairs")
    standing: list[FlairsTrial] = []
    for m in matches:
        if m.gives == "trials":
            standing += [FlairsTrial(source="pair", tainted=m.tainted) for _ in range(m.amount)]
    if check.darkness and not check.simple:  # a simple check cannot generate trials, darkness's included
        standing += [FlairsTrial(source="darkness") for _ in range(rules.darkness_trials)]
    if st.judged is not None:
        names = list(st.judged) + [None] * (len(standing) - len(st.judged))
        standing = [msgspec.structs.replace(t, name=n) for t, n in zip(standing, names)]
    judges = len(standing)

    n_lurking = lurking_count(check)
    remaining: list[FlairsTrialName | None] = (
        list(st.lurking_names) if st.lurking_names is not None else [None] * n_lurking
    )
    banished: list[FlairsTrialName] = []
    if st.banished is not None:
        for name in st.banished:
            if name in remaining:
                remaining.remove(name)
                banished.append(name)
    else:
        for flair in st.chosen_flairs:
            # Each chosen flair banishes one lurking trial it opposes.
            opposite = BANISHES[flair]
            if opposite in remaining:
                remaining.remove(opposite)
                banished.append(opposite)
    standing += [FlairsTrial(source="lurking", name=n) for n in remaining]
    if st.bargain is not None:
        standing.append(FlairsTrial(source="bargain", name=st.bargain))

    return FlairsResult(
        outcome=outcome,
        dice=rolled,
        kept=kept,
        removed=removed,
        flairs=flairs,
        trials=len(standing),
        tainted=sum(1 for t in standing if t.tainted),
        desperate=desperate,
        highest=highest,
        simple=check.simple,
        pool=pool_of(check.rank, check.edges),
        matches=matches,
        standing=standing,
        darkness=check.darkness,
        lurking=n_lurking,
        lurking_trials=list(st.lurking_names) if st.lurking_names is not None else None,
        lurking_dice=list(st.lurking_dice) if st.lurking_dice is not None else None,
        revealed=n_lurking == 0 or st.chosen or st.gm_revealed,
        chosen=st.chosen,
        chosen_flairs=list(st.chosen_flairs),
        banished=banished,
        bargain=st.bargain,
        bargain_die=st.bargain_die,
        named=st.judged is not None and all(t.name is not None for t in standing[:judges]),
    )


def _read_group(check: FlairsCheck, faces: Sequence[int], rules: FlairsRules) -> FlairsResult:
    faces = check_faces(faces, sizes(check, rules), "this flairs group check")
    parts: list[FlairsParticipantResult] = []
    at = 0
    for p in check.group or []:
        n = len(_pool_sizes(p.rank, p.edges, p.cuts, rules))
        own = faces[at : at + n]
        at += n
        desperate = is_desperate(p.rank, p.edges, p.cuts)
        pool = split(own, p.cuts, desperate)
        parts.append(
            FlairsParticipantResult(
                name=p.name,
                outcome=simple_outcome_of(pool.highest, rules),
                dice=own,
                kept=pool.kept,
                removed=pool.removed,
                highest=pool.highest,
                desperate=desperate,
            )
        )
    successes = sum(1 for r in parts if r.outcome == "success")
    ok = successes * rules.group_success_den >= rules.group_success_num * len(parts)
    springs: list[str] = []
    if check.trap and not ok:
        # The participant with the lowest result springs the trap; all tied lowest are named.
        low = min(r.highest for r in parts)
        springs = [r.name for r in parts if r.highest == low]
    return FlairsResult(
        outcome="success" if ok else "failure",
        dice=faces,
        kept=[f for r in parts for f in r.kept],
        removed=[f for r in parts for f in r.removed],
        flairs=0,
        trials=0,
        tainted=0,
        desperate=False,
        highest=None,
        simple=True,
        group=parts,
        trap=check.trap,
        springs=springs,
    )


def read(check: FlairsCheck, faces: Sequence[int], rules: FlairsRules = RULES) -> FlairsResult:
    """Read faces in the order rolled, before cuts.

    For lurking trials counted but not named, the faces may go on with one d6 per lurking trial (as
    :func:`roll` gives them): those draw the trials. Without them the names stay unset until the
    Judge sets them (`flairs_set_lurking`).
    """
    validate(check, rules)
    if check.group is not None:
        return _read_group(check, faces, rules)
    need = sizes(check, rules)
    draws = _draws_needed(check)
    lurking_names = _named_lurking(check)
    lurking_dice: list[int] | None = None
    if draws and len(faces) == len(need) + draws:
        lurking_dice = check_faces(faces[len(need) :], [len(rules.random_trials)] * draws, "the lurking trials' draws")
        lurking_names = [trial_for_face(f, rules) for f in lurking_dice]
        faces = faces[: len(need)]
    elif draws and len(faces) != len(need):
        raise DiceError(
            ErrorCode.INVALID_DICE,
            f"this flairs pool needs {len(need)} dice (or {len(need) + draws} with one d6 per lurking trial "
            f"to draw them), got {len(faces)}",
        )
    faces = check_faces(faces, need, "this flairs pool")
    return build(check, ReadState(faces=faces, lurking_names=lurking_names, lurking_dice=lurking_dice), rules)


def resolve(check: FlairsCheck, rng: Dice, rules: FlairsRules = RULES) -> FlairsResult:
    """``read(roll)`` validated once, with the faces (rolled here for these very dice) not checked again."""
    if check.group is not None:
        return read(check, roll(check, rng, rules), rules)
    validate(check, rules)
    faces = rng.roll_sizes(_pool_sizes(check.rank, check.edges, check.cuts, rules))
    draws = _draws_needed(check)
    lurking_names = _named_lurking(check)
    lurking_dice: list[int] | None = None
    if draws:
        lurking_dice = rng.roll(len(rules.random_trials), draws)
        lurking_names = [trial_for_face(f, rules) for f in lurking_dice]
    return build(check, ReadState(faces=faces, lurking_names=lurking_names, lurking_dice=lurking_dice), rules)


# --- showing ------------------------------------------------------------------------------


def redact(result: FlairsResult) -> FlairsResult:
    """The player-safe copy: lurking trials' names (and the dice that drew them) hidden until revealed."""
    if result.revealed:
        return result
    return msgspec.structs.replace(
        result,
        lurking_trials=None,
        lurking_dice=None,
        standing=[FlairsTrial(source=t.source) if t.source == "lurking" else t for t in result.standing],
    )


def describe(result: FlairsResult) -> str:
    """A short human answer for the terminal."""
    if result.group is not None:
        lines = [f"flairs group check  →  {result.outcome}"]
        for p in result.group:
            lines.append(
                f"  {p.name}: dice {p.dice} kept {p.kept}  →  {p.outcome}{' (desperate)' if p.desperate else ''}"
            )
        if result.springs:
            lines.append(f"the trap is sprung by {', '.join(result.springs)}")
        return "\n".join(lines)
    head = f"flairs  dice {result.dice}"
    if result.removed:
        head += f"  kept {result.kept}"
    if result.desperate:
        head += " (desperate: lowest kept)"
    lines = [f"{head}  →  {result.outcome}"]
    if not result.simple:
        parts = [
            f"{result.flairs} flair{'s' if result.flairs != 1 else ''}",
            f"{result.trials} trial{'s' if result.trials != 1 else ''}",
        ]
        if result.tainted:
            parts[-1] += f" ({result.tainted} tainted)"
        lines.append(", ".join(parts))
        named = [
            f"{t.name or ('hidden' if t.source == 'lurking' else JUDGES_CHOICE)} ({t.source})" for t in result.standing
        ]
        if named:
            lines.append("trials: " + ", ".join(named))
        if result.lurking and not result.revealed:
            lines.append(f"{result.lurking} lurking trial{'s' if result.lurking != 1 else ''}, not yet revealed")
        if result.chosen_flairs:
            lines.append("flairs chosen: " + ", ".join(result.chosen_flairs))
        if result.banished:
            lines.append("banished: " + ", ".join(result.banished))
        if result.bargain:
            lines.append(f"devil's bargain: {result.bargain} (die {result.bargain_die})")
    return "\n".join(lines)
