"""Which `flairs` follow-ups are open on a result (docs/rules/flairs.md).

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

from protocol.v1 import table as t
from protocol.v1.flairs import FlairsCheck, FlairsResult
from protocol.v1.messages import OpenFollowup

from ...ruleset import TableView
from .rules import TRIALS


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
