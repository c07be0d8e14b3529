"""Checks whose dice come from several people: each rolls their part, the check reads them all.

A `flairs` group check is each participant's simple check; a `boons` opposed check is the
actor's pool and the defender's (each rule set says so in :meth:`RuleSet.parts`). :func:`parts` names
the parts of such a check, each with the check that person rolls; the faces of the parts, concatenated
in that order, are exactly the faces the whole check reads, so ``read(whole, faces_1 + faces_2 + …)``
gives the outcome.
"""

from __future__ import annotations

from typing import Any

from .errors import CheckError, ErrorCode
from .registry import ruleset_for


def parts(check: Any) -> list[tuple[str, Any]]:
    """``[(part name, the check that part rolls), …]`` in dice order; refuses a check that is not gathered."""
    rules = ruleset_for(check)
    found = rules.parts(check) if rules is not None else None
    if found is None:
        raise CheckError(
            ErrorCode.NOT_A_GATHERED_CHECK,
            "only a `flairs` group check or a `boons` opposed check gathers several rolls"
        )
    return found


def whole_faces(check: Any, faces_by_part: dict[str, list[int]]) -> list[int]:
    """The whole check's faces from every part's, in dice order."""
    out: list[int] = []
    for name, _ in parts(check):
        out.extend(faces_by_part[name])
    return out
