"""Errors the engine raises: :class:`CheckError` and its kinds, each ``(code, message)`` (see
:mod:`protocol.v1.errors` for the whole tree and the codes)."""

from __future__ import annotations

from protocol.v1.errors import ErrorCode, VerdictError


class CheckError(VerdictError, ValueError):
    """A check that cannot be made as asked (``invalid_check`` when nothing more precise applies)."""


class DiceError(CheckError):
    """Supplied faces that do not fit the check: wrong count or an impossible face (``invalid_dice``)."""


class FollowUpError(CheckError):
    """A follow-up that the rules forbid (a second bargain, a bargain on a success, …)."""


__all__ = ["CheckError", "DiceError", "FollowUpError", "ErrorCode"]
