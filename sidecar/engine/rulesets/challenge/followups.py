"""The `challenge` follow-ups (docs/rules/challenge.md): which are open on a result (:func:`open_on`), and what
each does to it (:func:`follow`).

Which are open:

- After beating the CL by 2 or 3, the roller's pick of one option (``challenge_choice``), made once.
- After an epic success, the GM's removal of a complication (``challenge_remove_complication``), made once;
  which one is the GM's to pick among the open complications of the roll's scene, as the GM's table shows
  them (the table refuses one it does not hold).
"""

from __future__ import annotations

import msgspec

from protocol.v1 import table as t
from protocol.v1.base import Action
from protocol.v1.challenge import ChallengeCheck, ChallengeChoice, ChallengeRemoveComplication, ChallengeResult
from protocol.v1.messages import OpenFollowup

from ...dice import Dice
from ...errors import ErrorCode, FollowUpError
from ...ruleset import TableView
from .rules import RULES, ChallengeRules


def open_on(roll: t.RollEvent, view: TableView) -> list[OpenFollowup]:
    """The follow-ups open on a `challenge` result as it stands (whose they are is the contract's to say)."""
    result = roll.result
    assert isinstance(result, ChallengeResult)
    out: list[OpenFollowup] = []
    if result.choice and result.chosen is None:
        out.append(OpenFollowup(action="challenge_choice", options=list(result.choice)))
    if result.complication == "remove":
        out.append(OpenFollowup(action="challenge_remove_complication", gm=True))
    return out


def follow(
    check: ChallengeCheck, result: ChallengeResult, action: Action, rng: Dice, rules: ChallengeRules = RULES
) -> ChallengeResult:
    """Apply the +2/+3 choice: ``game_changer`` (+1 game changer) or ``strain`` (−1 or −2 strain); or, after an
    epic success, the GM's removal of a complication (which one is the table's to check)."""
    if isinstance(action, ChallengeRemoveComplication):
        if result.complication == "removed":
            raise FollowUpError(
                ErrorCode.COMPLICATION_ALREADY_REMOVED,
                "challenge: the GM already removed a complication for this epic success (one per epic success)",
            )
        if result.complication != "remove":
            raise FollowUpError(
                ErrorCode.NO_COMPLICATION_TO_REMOVE,
                f"challenge: only an epic success lets the GM remove a complication; this result is "
                f"{result.outcome.replace('_', ' ')}",
            )
        return msgspec.structs.replace(result, complication="removed")
    if not isinstance(action, ChallengeChoice):
        raise FollowUpError(
            ErrorCode.UNKNOWN_FOLLOWUP,
            "challenge: the follow-ups are `challenge_choice` and `challenge_remove_complication`, "
            f"not {type(action).__name__}",
        )
    if result.chosen is not None:
        raise FollowUpError(
            ErrorCode.CHOICE_ALREADY_MADE,
            f"challenge: the choice after beating the CL is made once, and `{result.chosen}` was already chosen",
        )
    if not result.choice:
        raise FollowUpError(
            ErrorCode.NO_CHOICE_OFFERED,
            f"challenge: only beating the CL by 2 or 3 offers a choice of game changer or strain; "
            f"this result is {result.outcome.replace('_', ' ')} with margin {result.margin:+d}",
        )
    if action.option == "game_changer":
        return msgspec.structs.replace(result, chosen="game_changer", game_changers=rules.game_changers)
    reduction = result.strain_option if result.strain_option is not None else dict(rules.choice_strain)[result.margin]
    return msgspec.structs.replace(result, chosen="strain", strain=result.strain + reduction)
