"""Checks whose dice come from several people: each rolls their part, the check reads them all.

A `flairs` group check is each participant's simple check; a `boons` opposed check is the
actor's pool and the defender's. :func:`parts` names the parts of such a check, each with
the check that person rolls; the faces of the parts, concatenated in that order, are exactly
the faces the whole check reads, so ``read(whole, faces_1 + faces_2 + …)`` gives the outcome.
"""

from __future__ import annotations

from typing import Any

import msgspec

from protocol.v1.boons import BoonsCheck
from protocol.v1.flairs import FlairsCheck

from . import boons, flairs
from .errors import CheckError


def parts(check: Any) -> list[tuple[str, Any]]:
    """``[(part name, the check that part rolls), …]`` in dice order; refuses a check that is not gathered."""
    if isinstance(check, FlairsCheck) and check.group:
        flairs.validate(check)
        return [
            (p.name, FlairsCheck(rank=p.rank, edges=p.edges, cuts=p.cuts, simple=True))
            for p in check.group
        ]
    if isinstance(check, BoonsCheck) and check.opponent is not None:
        boons.validate(check)
        actor = msgspec.structs.replace(check, opponent=None, dice=None)
        o = check.opponent
        defender = BoonsCheck(ability=o.ability, boon=o.boon, bane=o.bane, rank=o.rank, assists=list(o.assists))
        return [("actor", actor), ("defender", defender)]
    raise CheckError(
        "only a `flairs` group check or a `boons` opposed check gathers several rolls", code="not_a_gathered_check"
    )


def whole_faces(check: Any, faces_by_part: dict[str, list[int]]) -> list[int]:
    """The whole check's faces from every part's, in dice order."""
    out: list[int] = []
    for name, _ in parts(check):
        out.extend(faces_by_part[name])
    return out
