"""What a `boons` roll does to the table (docs/rules/boons.md).

- An extended check: a roll on one (``roll.extended``) takes the difficulty, threshold, attempt limit and
  time unit the GM set at ``extended_start`` and the table's progress (:func:`fill_extended`); its result
  moves the extended check's progress and attempts on, and may complete or fail it.
- Nothing else: net successes, boons, banes, breakthroughs and calamities are the GM's to narrate.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from protocol.v1 import limits
from protocol.v1 import table as t
from protocol.v1.boons import BoonsCheck, BoonsResult

from ... import bounds
from ...errors import CheckError, ErrorCode
from ...ruleset import Consequence, TableView


def fill_extended(check: BoonsCheck, x: t.ExtendedState) -> BoonsCheck:
    """The roll as the extended check has it: the GM's difficulty, threshold, limit and time unit, and the
    table's progress. The request may leave them out or repeat them; a different value is refused. An extended
    check without an attempt limit takes at most :data:`~protocol.v1.limits.RUNNING` rolls (``over_limit``), so
    the attempts a roll carries stay within what a check may hold."""
    bounds.within(f"the attempts of {x.name or x.id!r}", x.attempts + 1, limits.RUNNING)
    fields = {
        "threshold": x.threshold,
        "progress": x.progress,
        "attempts": x.attempts,
        "limit": x.limit,
        "time_unit": x.time_unit,
        "trial": x.trial,
        "crisis": x.crisis,
        "upgrade": 0,
    }
    unset = {
        "threshold": None,
        "progress": 0,
        "attempts": 0,
        "limit": None,
        "time_unit": None,
        "trial": 0,
        "crisis": 0,
        "upgrade": 0,
    }
    for name, want in fields.items():
        got = getattr(check, name)
        if got != unset[name] and got != want:
            what = "difficulty" if name in ("trial", "crisis", "upgrade") else "extended check"
            raise CheckError(
                ErrorCode.DIFFICULTY_MISMATCH,
                f"the GM set this {what} at `extended_start` ({x.name or x.id}: {name} {want}); the roll asks for "
                f"{name} {got}: leave it out, or send {want}",
            )
    return msgspec.structs.replace(check, **fields)


def of_roll(roll: t.RollEvent, view: TableView) -> Iterable[Consequence]:
    """The events a `boons` result produces."""
    result = roll.result
    assert isinstance(result, BoonsResult)
    ext = result.extended
    if roll.extended is None or ext is None:
        return []
    return [
        t.ExtendedProgressed(
            extended=roll.extended,
            added=ext.added,
            progress=ext.progress,
            attempts=ext.attempts,
            status=ext.status,
            check_id=roll.check_id,
        )
    ]
