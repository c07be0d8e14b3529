"""Which `challenge` follow-ups are open on a result (docs/rules/challenge.md).

- After beating the CL by 2 or 3, the roller's pick of one option (``challenge_choice``), made once.
- After an epic success, the GM's removal of a complication (``challenge_remove_complication``), made once;
  which one is the GM's to pick among the open complications of the roll's scene, as the GM's table shows
  them (the table refuses one it does not hold).
"""

from __future__ import annotations

from protocol.v1 import table as t
from protocol.v1.challenge import ChallengeResult
from protocol.v1.messages import OpenFollowup

from ...ruleset import TableView


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
