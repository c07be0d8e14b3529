"""`challenge` (docs/rules/challenge.md): d20 + modifiers against a Challenge Level.

The total is placed on a ladder of levels (default: level k covers totals 5k−4 … 5k; totals of 0 or
less are level 0) and compared with the CL: margin = level − CL.

- margin 0: ``success_at_cost``, +1 strain;
- +1: ``success``; +2 / +3: ``success`` and a choice of +1 game changer or −1 / −2 strain
  (the ``challenge_choice`` follow-up, made once);
- +4 or more: ``epic_success``, −2 strain, and the GM removes an open complication;
- −1 / −2 / −3: ``failure``, +2 / +3 / +4 strain;
- −4 or less, or a natural 1 whatever the total: ``epic_failure``, a new condition and a new
  complication (no strain: the text gives none).

A natural 20 has no special rule. Strain is reported as the change; the table clamps it at 0 and
counts conditions (a fourth one takes the hero down), since only it knows the hero's running state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec

from protocol.v1.challenge import (
    ChallengeCheck,
    ChallengeOption,
    ChallengeOutcome,
    ChallengeResult,
)

from ...dice import Dice, check_faces
from ...errors import CheckError, ErrorCode

SUCCESSES = frozenset({"success_at_cost", "success", "epic_success"})


class ChallengeRules(msgspec.Struct, frozen=True):
    """The numbers of `challenge`, as data. Defaults are the rulings' (docs/rules/challenge.md)."""

    sides: int = 20
    ladder_floor: int = 0
    """Totals at or below this are level 0."""
    ladder_step: int = 5
    """Each level above 0 covers this many totals: level k is floor+step·(k−1)+1 … floor+step·k."""
    epic_success_margin: int = 4
    """A margin at or above this is an epic success."""
    epic_failure_margin: int = -4
    """A margin at or below this is an epic failure."""
    epic_failure_natural: int | None = 1
    """A d20 showing this face is an epic failure whatever the total (null: no such rule)."""
    strain: tuple[tuple[int, int], ...] = ((0, 1), (1, 0), (2, 0), (3, 0), (-1, 2), (-2, 3), (-3, 4))
    """(margin, strain change) for the non-epic margins."""
    choice_strain: tuple[tuple[int, int], ...] = ((2, -1), (3, -2))
    """(margin, strain change of the ``strain`` option) for the margins that offer a choice."""
    game_changers: int = 1
    """Game changers gained by the ``game_changer`` option."""
    epic_success_strain: int = -2
    epic_failure_strain: int = 0
    taken_down_at: int = 4
    """A hero with this many conditions is taken down (a fourth condition takes the hero down)."""


RULES = ChallengeRules()

CHOICE: list[ChallengeOption] = ["game_changer", "strain"]


def level_of(total: int, rules: ChallengeRules = RULES) -> int:
    """The ladder level of a total: 0 at or below the floor, then one level per ``ladder_step`` totals."""
    if total <= rules.ladder_floor:
        return 0
    return -(-(total - rules.ladder_floor) // rules.ladder_step)  # ceiling division


def validate(check: ChallengeCheck, rules: ChallengeRules = RULES) -> None:
    if check.cl < 1:
        raise CheckError(
            ErrorCode.INVALID_CL,
            f"challenge: the Challenge Level is 1 or more (CL1 covers totals 1–5); got CL {check.cl}",
        )
    if check.complication is not None and not check.complication.strip():
        raise CheckError(
            ErrorCode.INVALID_COMPLICATION,
            "challenge: `complication` names the complication being addressed; give its id or leave it out",
        )


def sizes(check: ChallengeCheck, rules: ChallengeRules = RULES) -> list[int]:
    """One d20."""
    return [rules.sides]


def roll(check: ChallengeCheck, rng: Dice, rules: ChallengeRules = RULES) -> list[int]:
    validate(check, rules)
    return rng.roll_sizes(sizes(check, rules))


def outcome_of(margin: int, natural: int, rules: ChallengeRules = RULES) -> ChallengeOutcome:
    """The outcome band for a margin and the d20's face."""
    if rules.epic_failure_natural is not None and natural == rules.epic_failure_natural:
        return "epic_failure"
    if margin >= rules.epic_success_margin:
        return "epic_success"
    if margin <= rules.epic_failure_margin:
        return "epic_failure"
    if margin == 0:
        return "success_at_cost"
    return "success" if margin > 0 else "failure"


def _strain_for(margin: int, rules: ChallengeRules) -> int:
    # A margin beyond the table's rows (possible when a table moves the epic thresholds) takes the
    # nearest row: the strain of a miss never shrinks as the miss grows.
    table = dict(rules.strain)
    nearest = min(max(margin, min(table)), max(table))
    return table[nearest]


def read(check: ChallengeCheck, faces: Sequence[int], rules: ChallengeRules = RULES) -> ChallengeResult:
    validate(check, rules)
    faces = check_faces(faces, sizes(check, rules), "a challenge roll (one d20)")
    natural = faces[0]
    total = natural + check.modifier
    level = level_of(total, rules)
    margin = level - check.cl
    outcome = outcome_of(margin, natural, rules)
    choice: list[ChallengeOption] | None = None
    strain_option: int | None = None
    complication: Literal["add", "remove"] | None = None
    condition = False
    if outcome == "epic_success":
        strain = rules.epic_success_strain
        complication = "remove"
    elif outcome == "epic_failure":
        strain = rules.epic_failure_strain
        complication = "add"
        condition = True
    else:
        strain = _strain_for(margin, rules)
        strain_option = dict(rules.choice_strain).get(margin)
        if strain_option is not None:
            choice = list(CHOICE)
    return ChallengeResult(
        outcome=outcome,
        dice=faces,
        total=total,
        level=level,
        cl=check.cl,
        margin=margin,
        success=outcome in SUCCESSES,
        strain=strain,
        choice=choice,
        strain_option=strain_option,
        condition=condition,
        complication=complication,
        addresses=check.complication,
        natural=natural,
    )


def describe(result: ChallengeResult) -> str:
    """A short human answer for the terminal."""
    words = result.outcome.replace("_", " ")
    head = (
        f"challenge  d20 {result.natural}  total {result.total}  level {result.level} vs CL {result.cl}"
        f"  (margin {result.margin:+d})  →  {words}"
    )
    effects = []
    if result.strain:
        effects.append(f"strain {result.strain:+d}")
    if result.game_changers:
        effects.append(f"+{result.game_changers} game changer")
    if result.condition:
        effects.append("new condition")
    if result.complication == "add":
        effects.append("GM adds a complication")
    elif result.complication == "remove":
        effects.append("GM removes a complication")
    elif result.complication == "removed":
        effects.append("GM removed a complication")
    if result.choice and result.chosen is None:
        effects.append(f"choose: +{RULES.game_changers} game changer or strain {result.strain_option:+d}")
    if result.addresses:
        effects.append(f"complication {result.addresses} {'removed' if result.success else 'remains'}")
    lines = [head]
    if effects:
        lines.append("; ".join(effects))
    return "\n".join(lines)
