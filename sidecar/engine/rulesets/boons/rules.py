"""`boons` (docs/rules/boons.md): a narrative pool of ability, boon, bane, trial and crisis dice.

Every die face carries symbols: ``S`` success, ``F`` failure, ``B`` boon, ``N`` bane, ``X`` breakthrough
(one success and a breakthrough), ``C`` calamity (one failure and a calamity), ``-`` blank. Net successes =
successes - failures: 1 ``success``, 2-3 ``improved``, 4+ ``exceptional``, 0 or less ``failure``. Net
boons = boons - banes. Breakthroughs and calamities never cancel.

How the text's kinds of check build the pool (decisions where the text leaves room are marked "ruling"):

- Difficulty is trial dice. ``upgrade`` turns that many of them into crisis dice (the GM "upgrades the
  difficulty"); ruling: asking for more upgrades than there are trial dice is refused.
- Assisted: each assistant adds a boon die, or an ability die when they have more ranks than the primary.
  "Up to two characters help" and "no check can gain more than two assisting dice": ``assists`` lists the
  assistants whose dice count, one die each, so a third is refused (``too_many_assists``: extra helpers
  may justify the assist but "do not add more dice", so they are not listed). At most one of the dice is
  an ability die: a second assistant who outranks the primary adds a boon die instead, giving the text's
  "+1 Boon Die and +1 Ability Die". ``assist_dice`` is one die per assistant, in the order of ``assists``.
- Group: bane dice = performer's rank - the lowest rank among the necessary participants, never negative.
- Every type is capped (10 dice by default) after assists, group banes and upgrades: more is refused.
- Opposed: the defender's pool follows the actor's; no trial or crisis dice for each other (ruling: a
  check with an opponent and trial, crisis or upgrade dice is refused). More net successes wins; a tie
  goes to the defender. Ruling: the outcome is ``failure`` when the actor loses, and read from the
  actor's net successes, at least ``success``, when the actor wins.
- Extended: see :func:`advance`. Ruling: an extended check cannot also be opposed.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import getitem
from typing import Literal

import msgspec

from protocol.v1.boons import (
    BoonsCheck,
    BoonsDice,
    BoonsDieType,
    BoonsExtended,
    BoonsExtendedStatus,
    BoonsOutcome,
    BoonsPool,
    BoonsResult,
    BoonsSide,
    BoonsWinner,
)

from ...compiled import PerRules
from ...dice import Dice, check_faces
from ...errors import CheckError, ErrorCode

DIE_TYPES: tuple[BoonsDieType, ...] = ("ability", "boon", "bane", "trial", "crisis")
"""The canonical order of a pool's dice."""
OPPOSED_TYPES: tuple[BoonsDieType, ...] = ("ability", "boon", "bane")
AssistDie = Literal["ability", "boon"]

DEFAULT_FACES: dict[str, tuple[str, ...]] = {
    # the rulings' table (docs/rules/boons.md), faces 1…n; the die's size is the number of faces.
    "ability": ("-", "S", "S", "SS", "B", "B", "SB", "X"),
    "boon": ("-", "-", "S", "SB", "BB", "B"),
    "bane": ("-", "-", "F", "F", "N", "N"),
    "trial": ("-", "F", "FF", "N", "N", "N", "NN", "FN"),
    "crisis": ("-", "F", "F", "FF", "FF", "N", "N", "FN", "FN", "NN", "NN", "C"),
}


class BoonsRules(msgspec.Struct, frozen=True):
    """The numbers of `boons`, as data. Defaults are the rulings' (docs/rules/boons.md)."""

    faces: dict[str, tuple[str, ...]] = msgspec.field(default_factory=lambda: dict(DEFAULT_FACES))
    """Per die type, its faces 1…n as symbol strings."""
    max_dice: int = 10
    """The most dice of each type in one pool."""
    success_at: int = 1
    improved_at: int = 2
    exceptional_at: int = 4
    max_assist_dice: int = 2
    max_assist_ability: int = 1


RULES = BoonsRules()


# --- faces -------------------------------------------------------------------------------------------


class Tally(msgspec.Struct, gc=False):
    """Symbol totals of some dice."""

    successes: int = 0
    failures: int = 0
    boons: int = 0
    banes: int = 0
    breakthroughs: int = 0
    calamities: int = 0

    def add(self, symbols: str) -> None:
        for s in symbols:
            if s == "S":
                self.successes += 1
            elif s == "F":
                self.failures += 1
            elif s == "B":
                self.boons += 1
            elif s == "N":
                self.banes += 1
            elif s == "X":  # one success and a breakthrough
                self.successes += 1
                self.breakthroughs += 1
            elif s == "C":  # one failure and a calamity
                self.failures += 1
                self.calamities += 1
            elif s != "-":
                raise CheckError(
                    ErrorCode.INVALID_RULES, f"boons: unknown die symbol {s!r} in the face table (use S F B N X C -)"
                )


_TALLY_OF: dict[str, tuple[int, int, int, int, int, int]] = {
    # symbol -> (successes, failures, boons, banes, breakthroughs, calamities)
    "S": (1, 0, 0, 0, 0, 0),
    "F": (0, 1, 0, 0, 0, 0),
    "B": (0, 0, 1, 0, 0, 0),
    "N": (0, 0, 0, 1, 0, 0),
    "X": (1, 0, 0, 0, 1, 0),  # one success and a breakthrough
    "C": (0, 1, 0, 0, 0, 1),  # one failure and a calamity
    "-": (0, 0, 0, 0, 0, 0),
}

Counts = tuple[int, int, int, int, int, int]


def _counts(tally: list[int]) -> Counts:
    """A six-number tally as :data:`Counts`."""
    a, b, c, d, e, f = tally
    return (a, b, c, d, e, f)


_BITS = 16
"""Width of each of the six totals packed into one int by :class:`_Compiled` (a pool sums its dice in one)."""
_MASK = (1 << _BITS) - 1


def _pack(counts: Counts) -> int:
    return sum(n << (_BITS * i) for i, n in enumerate(counts))


class _Shape:
    """A plain pool of one size (no assists, group, opponent, upgrade or extended check), worked out once:
    its dice in canonical order, their sizes, and per die a row face -> symbols and face -> packed totals
    (both indexed by the face, 1-based)."""

    __slots__ = ("types", "sizes", "symbols", "packed")

    def __init__(self, comp: _Compiled, counts: tuple[int, int, int, int, int]) -> None:
        self.types: list[BoonsDieType] = [t for t, n in zip(DIE_TYPES, counts) for _ in range(n)]
        self.sizes = [comp.sizes[t] for t in self.types]
        self.symbols = [comp.symbol_rows[t] for t in self.types]
        self.packed = [comp.packed_rows[t] for t in self.types]


class _Compiled:
    """One rules object's face tables worked out once: per die type, its size and per face its symbols
    with their totals (a face with an unknown symbol keeps ``None`` and is refused when it is read).

    For the plain pools most checks are, also per die type a row of symbols and of the six totals packed
    into one int (``_BITS`` bits each), so reading a pool is one sum; ``exact`` says every face is known
    and a pool's totals cannot overflow a field (else every read takes the general path)."""

    __slots__ = ("rules", "sizes", "faces", "symbol_rows", "packed_rows", "exact", "shapes")

    SHAPES_KEPT = 4096

    def __init__(self, rules: BoonsRules) -> None:
        self.rules = rules
        self.sizes = {t: len(f) for t, f in rules.faces.items()}
        self.faces: dict[str, list[tuple[str, Counts | None]]] = {}
        for t, faces in rules.faces.items():
            row: list[tuple[str, Counts | None]] = []
            for symbols in faces:
                total = [0] * 6
                counts: Counts | None = None
                for sym in symbols:
                    add = _TALLY_OF.get(sym)
                    if add is None:
                        break
                    total = [a + b for a, b in zip(total, add)]
                else:
                    counts = _counts(total)
                row.append((symbols, counts))
            self.faces[t] = row
        longest = max((len(sym) for row in self.faces.values() for sym, _ in row), default=0)
        self.exact = (
            all(c is not None for row in self.faces.values() for _, c in row)
            and all(t in self.faces for t in DIE_TYPES)
            and len(DIE_TYPES) * max(rules.max_dice, 0) * longest <= _MASK
        )
        self.symbol_rows = {t: ["", *(sym for sym, _ in row)] for t, row in self.faces.items()}
        self.packed_rows = {
            t: [0, *(_pack(c) if c is not None else 0 for _, c in row)] for t, row in self.faces.items()
        }
        self.shapes: dict[tuple[int, int, int, int, int], _Shape] = {}

    def shape(self, check: BoonsCheck) -> _Shape | None:
        """The plain pool's worked-out shape, or ``None`` when the check is not a plain pool."""
        if not self.exact or not _plain(check, self.rules):
            return None
        key = (check.ability, check.boon, check.bane, check.trial, check.crisis)
        shape = self.shapes.get(key)
        if shape is None:
            if len(self.shapes) >= self.SHAPES_KEPT:
                self.shapes.clear()
            shape = self.shapes[key] = _Shape(self, key)
        return shape


_compiled: PerRules[_Compiled] = PerRules(_Compiled)
_DEFAULT = _compiled(RULES)
"""The default rules' tables, found without a look-up on the hot path."""


def band(net_successes: int, rules: BoonsRules = RULES) -> BoonsOutcome:
    """The outcome band of a number of net successes."""
    if net_successes >= rules.exceptional_at:
        return "exceptional"
    if net_successes >= rules.improved_at:
        return "improved"
    if net_successes >= rules.success_at:
        return "success"
    return "failure"


# --- building the pool ---------------------------------------------------------------------------------


def _nonnegative(value: int, what: str, code: ErrorCode) -> None:
    if value < 0:
        raise CheckError(code, f"boons: {what} cannot be negative (got {value})")


def assist_dice(
    rank: int | None, assists: Sequence[int], rules: BoonsRules = RULES, who: str = "the check"
) -> list[AssistDie]:
    """The die each assistant adds, in the order of ``assists``: ``"ability"`` from one who outranks the
    primary (while no more than ``max_assist_ability`` ability dice are added), else ``"boon"``.

    "No check can gain more than two assisting dice total, and no more than one of those dice may be an
    Ability Die"; "extra helpers ... do not add more dice". ``assists`` lists the assistants whose dice
    count, so more than ``max_assist_dice`` of them is refused (``too_many_assists``) rather than cut down
    by a choice the engine would have to make for the table.
    """
    if not assists:
        return []
    if len(assists) > rules.max_assist_dice:
        raise CheckError(
            ErrorCode.TOO_MANY_ASSISTS,
            f"boons: {who} lists {len(assists)} assistants, but no check gains more than {rules.max_assist_dice} "
            "assisting dice (Assisted Checks: extra helpers may justify the assist but do not add dice); list "
            f"only the {rules.max_assist_dice} whose dice count",
        )
    if rank is None:
        raise CheckError(
            ErrorCode.MISSING_RANK,
            f"boons: {who} has assistants but no rank for the primary character; an assistant adds an "
            "ability die only with more ranks than the primary (Assisted Checks), so give the primary's rank",
        )
    _nonnegative(rank, "the primary character's rank", ErrorCode.NEGATIVE_RANK)
    for r in assists:
        _nonnegative(r, "an assistant's rank", ErrorCode.NEGATIVE_RANK)
    out: list[AssistDie] = []
    abilities = 0
    for r in assists:  # in the assistants' order, each adds a die while the caps allow
        if r > rank and abilities < rules.max_assist_ability:
            out.append("ability")
            abilities += 1
        else:
            out.append("boon")
    return out


def group_banes(performer_rank: int | None, participant_ranks: Sequence[int] | None) -> int:
    """Bane dice of a group check: performer's rank - lowest necessary participant's rank, never negative.

    No other necessary participant (an empty list) adds none.
    """
    if performer_rank is None and participant_ranks is None:
        return 0
    if performer_rank is None or participant_ranks is None:
        raise CheckError(
            ErrorCode.INCOMPLETE_GROUP,
            "boons: a group check needs both the performer's rank and the necessary participants' ranks "
            "(Group Checks: compare the performer's rank to the lowest among the necessary participants)",
        )
    _nonnegative(performer_rank, "the performer's rank", ErrorCode.NEGATIVE_RANK)
    for r in participant_ranks:
        _nonnegative(r, "a participant's rank", ErrorCode.NEGATIVE_RANK)
    if not participant_ranks:
        return 0
    return max(0, performer_rank - min(participant_ranks))


def _check_limit(pool: BoonsDice, rules: BoonsRules, who: str) -> None:
    for t in DIE_TYPES:
        n = getattr(pool, t)
        if n > rules.max_dice:
            raise CheckError(
                ErrorCode.TOO_MANY_DICE,
                f"boons: {who} has {n} {t} dice, more than the limit of {rules.max_dice} of each type "
                "(the normal dice pool limits apply to assisted and group checks too)",
            )


class Built(msgspec.Struct, gc=False):
    """The effective pools of a check, before rolling."""

    actor: BoonsDice
    assist: list[AssistDie]
    group_banes: int
    defender: BoonsDice | None = None
    defender_assist: list[AssistDie] = []


def _build_defender(opp: BoonsPool, rules: BoonsRules) -> tuple[BoonsDice, list[AssistDie]]:
    for t in OPPOSED_TYPES:
        _nonnegative(getattr(opp, t), f"the opponent's {t} dice", ErrorCode.NEGATIVE_DICE)
    added = assist_dice(opp.rank, opp.assists, rules, who="the opponent")
    pool = BoonsDice(
        ability=opp.ability + added.count("ability"),
        boon=opp.boon + added.count("boon"),
        bane=opp.bane,
    )
    _check_limit(pool, rules, "the opponent")
    return pool, added


def _validate_extended(check: BoonsCheck) -> None:
    if check.threshold is None:
        if check.limit is not None or check.time_unit is not None or check.progress or check.attempts:
            raise CheckError(
                ErrorCode.INCOMPLETE_EXTENDED,
                "boons: an extended check needs a success threshold (Extended Checks: the GM sets a "
                "difficulty, a success threshold, a time unit and an optional attempt limit)",
            )
        return
    if check.opponent is not None:
        raise CheckError(
            ErrorCode.OPPOSED_EXTENDED,
            "boons: an extended check cannot also be opposed here; roll each exchange as its own extended "
            "roll against a difficulty",
        )
    _validate_progress(check.progress, check.attempts, check.threshold, check.limit)


def _validate_progress(progress: int, attempts: int, threshold: int, limit: int | None) -> None:
    if threshold < 1:
        raise CheckError(
            ErrorCode.INVALID_THRESHOLD,
            f"boons: an extended check's success threshold must be at least 1 (got {threshold})",
        )
    if limit is not None and limit < 1:
        raise CheckError(
            ErrorCode.INVALID_LIMIT, f"boons: an extended check's attempt limit must be at least 1 (got {limit})"
        )
    _nonnegative(progress, "an extended check's progress", ErrorCode.INVALID_PROGRESS)
    _nonnegative(attempts, "an extended check's attempts", ErrorCode.INVALID_PROGRESS)
    if progress >= threshold:
        raise CheckError(
            ErrorCode.EXTENDED_COMPLETE,
            f"boons: this extended check is already complete ({progress} of {threshold} net successes); "
            "the threshold is met, so it takes no more rolls",
        )
    if limit is not None and attempts >= limit:
        raise CheckError(
            ErrorCode.EXTENDED_FAILED,
            f"boons: this extended check has failed: its {limit} attempts ran out at {progress} of "
            f"{threshold} net successes (Extended Checks: the attempt limit was reached)",
        )


def _plain(check: BoonsCheck, rules: BoonsRules) -> bool:
    """The plain pool (no assists, group, opponent, upgrade or extended check) within its limits:
    nothing :func:`build` checks could refuse it or change it."""
    ab, bo, ba, tr, cr = check.ability, check.boon, check.bane, check.trial, check.crisis
    return (
        not check.assists
        and check.upgrade == 0
        and check.opponent is None
        and check.threshold is None
        and check.performer_rank is None
        and check.participant_ranks is None
        and check.limit is None
        and check.time_unit is None
        and not check.progress
        and not check.attempts
        and 0 <= ab <= rules.max_dice
        and 0 <= bo <= rules.max_dice
        and 0 <= ba <= rules.max_dice
        and 0 <= tr <= rules.max_dice
        and 0 <= cr <= rules.max_dice
    )


def build(check: BoonsCheck, rules: BoonsRules = RULES) -> Built:
    """Validate ``check`` and assemble its effective pools (assists, group banes, upgrades applied)."""
    if _plain(check, rules):
        pool = BoonsDice(
            ability=check.ability, boon=check.boon, bane=check.bane, trial=check.trial, crisis=check.crisis
        )
        return Built(actor=pool, assist=[], group_banes=0)
    for t in (*DIE_TYPES, "upgrade"):
        _nonnegative(getattr(check, t), f"{t} dice" if t != "upgrade" else "upgrade", ErrorCode.NEGATIVE_DICE)
    if check.upgrade > check.trial:
        raise CheckError(
            ErrorCode.UPGRADE_EXCEEDS_TRIAL,
            f"boons: upgrading {check.upgrade} trial dice to crisis dice needs at least that many trial dice "
            f"(the pool has {check.trial}); crisis dice replace trial dice when the GM upgrades the difficulty",
        )
    if check.opponent is not None and (check.trial or check.crisis or check.upgrade):
        raise CheckError(
            ErrorCode.OPPOSED_DIFFICULTY,
            "boons: in an opposed check neither character adds trial or crisis dice for the other's "
            "opposition (Opposed Checks); remove trial, crisis and upgrade",
        )
    _validate_extended(check)
    rank = check.rank if check.rank is not None else check.performer_rank
    added = assist_dice(rank, check.assists, rules)
    banes = group_banes(check.performer_rank, check.participant_ranks)
    actor = BoonsDice(
        ability=check.ability + added.count("ability"),
        boon=check.boon + added.count("boon"),
        bane=check.bane + banes,
        trial=check.trial - check.upgrade,
        crisis=check.crisis + check.upgrade,
    )
    _check_limit(actor, rules, "the pool")
    built = Built(actor=actor, assist=added, group_banes=banes)
    if check.opponent is not None:
        built.defender, built.defender_assist = _build_defender(check.opponent, rules)
    return built


def _types(pool: BoonsDice, kinds: Sequence[BoonsDieType]) -> list[BoonsDieType]:
    return [t for t in kinds for _ in range(getattr(pool, t))]


def _all_types(built: Built) -> list[BoonsDieType]:
    types = _types(built.actor, DIE_TYPES)
    if built.defender is not None:
        types += _types(built.defender, OPPOSED_TYPES)
    return types


def validate(check: BoonsCheck, rules: BoonsRules = RULES) -> None:
    build(check, rules)


def sizes(check: BoonsCheck, rules: BoonsRules = RULES) -> list[int]:
    """The dice to roll: the actor's pool in canonical order, then the defender's ability, boon, bane."""
    comp = _compiled(rules)
    shape = comp.shape(check)
    if shape is not None:
        return list(shape.sizes)
    size = comp.sizes
    return [size[t] for t in _all_types(build(check, rules))]


def roll(check: BoonsCheck, rng: Dice, rules: BoonsRules = RULES) -> list[int]:
    comp = _compiled(rules)
    shape = comp.shape(check)
    if shape is not None:
        return rng.roll_sizes(shape.sizes)
    size = comp.sizes
    return rng.roll_sizes([size[t] for t in _all_types(build(check, rules))])


def resolve(check: BoonsCheck, rng: Dice, rules: BoonsRules = RULES) -> BoonsResult:
    """``read(roll)`` with the pool built once, and the faces, rolled for these very dice, not checked again."""
    comp = _DEFAULT if rules is RULES else _compiled(rules)
    shape = comp.shape(check)
    if shape is not None:
        return _read_plain(check, shape, rng.roll_sizes(shape.sizes), rules)
    built = build(check, rules)
    types = _all_types(built)
    size = comp.sizes
    return _read_built(check, built, types, rng.roll_sizes([size[t] for t in types]), rules, checked=True)


# --- reading -------------------------------------------------------------------------------------------


def _side(pool: BoonsDice, tally: Tally) -> BoonsSide:
    net_boons = tally.boons - tally.banes
    return BoonsSide(
        pool=pool,
        successes=tally.successes,
        failures=tally.failures,
        boons=tally.boons,
        banes=tally.banes,
        breakthroughs=tally.breakthroughs,
        calamities=tally.calamities,
        net_successes=tally.successes - tally.failures,
        net_boons=net_boons,
        remaining_boons=max(0, net_boons),
        remaining_banes=max(0, -net_boons),
    )


def advance(
    progress: int, attempts: int, threshold: int, limit: int | None, net_successes: int
) -> tuple[int, int, BoonsExtendedStatus]:
    """One roll of an extended check: ``(progress, attempts, status)`` after it.

    The roll adds its net successes when positive (0 or below adds nothing) and counts one attempt. The
    task is ``complete`` when the total reaches the threshold (even on the last allowed attempt),
    ``failed`` when the attempt limit is reached first, else ``in_progress``. Refuses a task that is
    already complete or failed.
    """
    _validate_progress(progress, attempts, threshold, limit)
    progress += max(0, net_successes)
    attempts += 1
    if progress >= threshold:
        return progress, attempts, "complete"
    if limit is not None and attempts >= limit:
        return progress, attempts, "failed"
    return progress, attempts, "in_progress"


def read(check: BoonsCheck, faces: Sequence[int], rules: BoonsRules = RULES) -> BoonsResult:
    shape = _compiled(rules).shape(check)
    if shape is not None:
        return _read_plain(check, shape, check_faces(faces, shape.sizes, "this boons pool"), rules)
    built = build(check, rules)
    return _read_built(check, built, _all_types(built), faces, rules)


def _read_plain(check: BoonsCheck, shape: _Shape, faces: list[int], rules: BoonsRules) -> BoonsResult:
    """:func:`_read_built` for a plain pool, from its worked-out shape: the faces are valid for its dice."""
    total = sum(map(getitem, shape.packed, faces))
    s, f = total & _MASK, (total >> _BITS) & _MASK
    b, n = (total >> 2 * _BITS) & _MASK, (total >> 3 * _BITS) & _MASK
    x, c = (total >> 4 * _BITS) & _MASK, total >> 5 * _BITS
    net, net_boons = s - f, b - n
    actor = BoonsSide(
        pool=BoonsDice(ability=check.ability, boon=check.boon, bane=check.bane, trial=check.trial, crisis=check.crisis),
        successes=s,
        failures=f,
        boons=b,
        banes=n,
        breakthroughs=x,
        calamities=c,
        net_successes=net,
        net_boons=net_boons,
        remaining_boons=net_boons if net_boons > 0 else 0,
        remaining_banes=-net_boons if net_boons < 0 else 0,
    )
    return BoonsResult(
        outcome=band(net, rules),
        dice=faces,
        symbols=list(map(getitem, shape.symbols, faces)),
        types=list(shape.types),
        net_successes=net,
        net_boons=net_boons,
        breakthroughs=x,
        calamities=c,
        actor=actor,
    )  # no assists, group banes, opponent or extended check: the defaults


def _tally(
    types: Sequence[str], faces: Sequence[int], table: dict[str, list[tuple[str, Counts | None]]], symbols: list[str]
) -> Tally:
    s = f = b = n = x = c = 0
    for t, face in zip(types, faces):
        sym, counts = table[t][face - 1]
        if counts is None:
            Tally().add(sym)  # raises invalid_rules, naming the unknown symbol
            raise AssertionError(sym)  # pragma: no cover
        symbols.append(sym)
        s += counts[0]
        f += counts[1]
        b += counts[2]
        n += counts[3]
        x += counts[4]
        c += counts[5]
    return Tally(successes=s, failures=f, boons=b, banes=n, breakthroughs=x, calamities=c)


def _read_built(
    check: BoonsCheck,
    built: Built,
    types: list[BoonsDieType],
    faces: Sequence[int],
    rules: BoonsRules,
    checked: bool = False,
) -> BoonsResult:
    comp = _compiled(rules)
    size = comp.sizes
    if checked:  # rolled here for these dice
        faces = list(faces)
    else:
        faces = check_faces(faces, [size[t] for t in types], "this boons pool")
    pool = built.actor
    n_actor = pool.ability + pool.boon + pool.bane + pool.trial + pool.crisis
    symbols: list[str] = []
    actor_tally = _tally(types[:n_actor], faces[:n_actor], comp.faces, symbols)
    defender_tally = _tally(types[n_actor:], faces[n_actor:], comp.faces, symbols)
    actor = _side(built.actor, actor_tally)

    winner: BoonsWinner | None = None
    defender = None
    if built.defender is not None:
        defender = _side(built.defender, defender_tally)
        # The actor initiates; "on a tie, the initiating character loses".
        winner = "actor" if actor.net_successes > defender.net_successes else "defender"
        outcome = band(max(actor.net_successes, rules.success_at), rules) if winner == "actor" else "failure"
    else:
        outcome = band(actor.net_successes, rules)

    extended = None
    if check.threshold is not None:
        progress, attempts, status = advance(
            check.progress, check.attempts, check.threshold, check.limit, actor.net_successes
        )
        extended = BoonsExtended(
            threshold=check.threshold,
            time_unit=check.time_unit,
            limit=check.limit,
            added=progress - check.progress,
            progress=progress,
            attempts=attempts,
            status=status,
        )

    return BoonsResult(
        outcome=outcome,
        dice=faces,
        symbols=symbols,
        types=types,
        net_successes=actor.net_successes,
        net_boons=actor.net_boons,
        breakthroughs=actor.breakthroughs,
        calamities=actor.calamities,
        actor=actor,
        assist_dice=built.assist,
        group_banes=built.group_banes,
        winner=winner,
        defender=defender,
        defender_assist_dice=built.defender_assist,
        extended=extended,
    )


# --- describing ----------------------------------------------------------------------------------------


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _side_words(side: BoonsSide) -> str:
    parts = [f"net {side.net_successes:+d} successes"]
    if side.remaining_boons:
        parts.append(_plural(side.remaining_boons, "boon"))
    if side.remaining_banes:
        parts.append(_plural(side.remaining_banes, "bane"))
    if side.breakthroughs:
        parts.append(_plural(side.breakthroughs, "breakthrough"))
    if side.calamities:
        parts.append(_plural(side.calamities, "calamity", "calamities"))
    return ", ".join(parts)


def describe(result: BoonsResult) -> str:
    """A short human answer for the terminal."""
    shown = " ".join(f"{t[:2]}:{s}" for t, s in zip(result.types, result.symbols))
    lines = [f"boons  {shown or '(no dice)'}  →  {result.outcome}"]
    lines.append(f"actor: {_side_words(result.actor)}")
    if result.assist_dice:
        lines.append(f"assists added: {', '.join(result.assist_dice)}")
    if result.group_banes:
        lines.append(f"group check: +{_plural(result.group_banes, 'bane die', 'bane dice')}")
    if result.defender is not None:
        lines.append(f"defender: {_side_words(result.defender)}")
        tie = " (a tie goes to the defender)" if result.actor.net_successes == result.defender.net_successes else ""
        lines.append(f"winner: {result.winner}{tie}")
    if result.extended is not None:
        e = result.extended
        unit = f" ({e.time_unit})" if e.time_unit else ""
        of = f" of {e.limit}" if e.limit is not None else ""
        lines.append(
            f"extended: +{e.added} → {e.progress}/{e.threshold}, attempt {e.attempts}{of}{unit}: {e.status.replace('_', ' ')}"
        )
    return "\n".join(lines)
