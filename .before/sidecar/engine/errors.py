"""Errors the engine raises. Each has a stable ``code`` that travels on the wire."""

from __future__ import annotations


class CheckError(ValueError):
    """A check that cannot be made as asked. ``code`` is stable; the message names the rule."""

    code = "invalid_check"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0])


class DiceError(CheckError):
    """Supplied faces that do not fit the check: wrong count or an impossible face."""

    code = "invalid_dice"


class FollowUpError(CheckError):
    """A follow-up that the rules forbid (a second bargain, a bargain on a success, …)."""

    code = "forbidden_followup"
