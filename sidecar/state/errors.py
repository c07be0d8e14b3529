"""The refusal the state layer raises: an action the table refuses, nothing of it applied."""

from __future__ import annotations

from protocol.v1.errors import VerdictError


class ActionError(VerdictError):
    """An action the table refuses: nothing of it is applied."""
