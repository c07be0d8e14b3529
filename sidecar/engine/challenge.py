"""`challenge` (rules/challenge.md, RULINGS.md). Not yet implemented."""

from __future__ import annotations

from .errors import CheckError


def roll(check, rng):  # type: ignore[no-untyped-def]
    raise CheckError("challenge: this rule set is not implemented yet", code="unsupported_system")


def read(check, faces):  # type: ignore[no-untyped-def]
    raise CheckError("challenge: this rule set is not implemented yet", code="unsupported_system")


def describe(result) -> str:  # type: ignore[no-untyped-def]
    return repr(result)
