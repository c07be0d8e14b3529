"""Protocol v1 messages: what clients send and what the sidecar answers.

Client messages form a tagged union on ``type``; so do server messages. Every client
request carries ``id``, a client-chosen idempotency key that the reply echoes: a
repeated ``id`` is answered with the first reply and never rolls twice.
"""

from __future__ import annotations

from typing import Any, Literal, Union

import msgspec

from . import boons, challenge, facets, feats, flairs
from .base import PROTOCOL, Action, Check, Probability, Result

SYSTEM_MODULES = (facets, challenge, flairs, feats, boons)
SYSTEMS: tuple[str, ...] = tuple(m.__name__.rsplit(".", 1)[1] for m in SYSTEM_MODULES)


def _subclasses(base: type, module: Any) -> list[type]:
    return [
        v
        for v in vars(module).values()
        if isinstance(v, type) and issubclass(v, base) and v is not base and v.__module__ == module.__name__
    ]


CHECK_TYPES: tuple[type, ...] = tuple(t for m in SYSTEM_MODULES for t in _subclasses(Check, m))
RESULT_TYPES: tuple[type, ...] = tuple(t for m in SYSTEM_MODULES for t in _subclasses(Result, m))
ACTION_TYPES: tuple[type, ...] = tuple(t for m in SYSTEM_MODULES for t in m.FOLLOWUPS)

AnyCheck = Union[CHECK_TYPES]  # type: ignore[valid-type]
AnyResult = Union[RESULT_TYPES]  # type: ignore[valid-type]
AnyAction = Union[ACTION_TYPES] if len(ACTION_TYPES) > 1 else (ACTION_TYPES[0] if ACTION_TYPES else Action)  # type: ignore[valid-type]

Role = Literal["gm", "player", "observer"]
RollMode = Literal["public", "gm", "blind", "self"]


class ClientMessage(msgspec.Struct, tag_field="type", forbid_unknown_fields=False):
    """Base of what a client sends."""


class ServerMessage(msgspec.Struct, tag_field="type", omit_defaults=False):
    """Base of what the sidecar sends."""


# --- client -> server ---------------------------------------------------------------


class Hello(ClientMessage, tag="hello"):
    """First frame on every socket. ``since`` is the last event seq the client saw."""

    table: str
    key: str
    protocol: int = PROTOCOL
    client: str = ""
    since: int | None = None


class Roll(ClientMessage, tag="roll"):
    """Roll a check (or read given faces when ``check.dice`` is set)."""

    id: str
    check: AnyCheck  # type: ignore[valid-type]
    actor: str | None = None
    scene: str | None = None
    mode: RollMode = "public"
    label: str | None = None


class Odds(ClientMessage, tag="odds"):
    """Exact odds of a check. Changes nothing and is not logged."""

    id: str
    check: AnyCheck  # type: ignore[valid-type]


class Follow(ClientMessage, tag="follow"):
    """A follow-up on an earlier check, named by the ``check`` id its ``rolled`` carried."""

    id: str
    check: str
    action: AnyAction  # type: ignore[valid-type]


class Ping(ClientMessage, tag="ping"):
    id: str = ""


# --- server -> client ---------------------------------------------------------------


class Error(ServerMessage, tag="error"):
    """A request that could not be done. ``code`` is stable; ``message`` says what to fix."""

    code: str
    message: str
    id: str | None = None


class Welcome(ServerMessage, tag="welcome"):
    protocol: int
    server: str
    role: Role
    table: str
    seq: int
    """The table's newest event seq as this client may see it."""
    events: list[Any] = []
    snapshot: Any = None


class Rolled(ServerMessage, tag="rolled"):
    """A resolved check, sent to the roller (echoing ``id``) and broadcast to the table."""

    id: str
    check: str
    """The check id that follow-ups name."""
    seq: int
    result: AnyResult  # type: ignore[valid-type]
    by: Role
    actor: str | None = None
    scene: str | None = None
    mode: RollMode = "public"
    label: str | None = None


class Followed(ServerMessage, tag="followed"):
    """A follow-up applied to a check: the check's result as it now stands."""

    id: str
    check: str
    seq: int
    action: AnyAction  # type: ignore[valid-type]
    result: AnyResult  # type: ignore[valid-type]
    by: Role


class OddsReply(ServerMessage, tag="odds_result"):
    id: str
    check: AnyCheck  # type: ignore[valid-type]
    odds: Any


class Pong(ServerMessage, tag="pong"):
    id: str = ""


CLIENT_TYPES: list[type] = [Hello, Roll, Odds, Follow, Ping]
SERVER_TYPES: list[type] = [Error, Welcome, Rolled, Followed, OddsReply, Pong]

__all__ = [
    "Probability",
    "SYSTEMS",
    "CHECK_TYPES",
    "RESULT_TYPES",
    "ACTION_TYPES",
    "AnyCheck",
    "AnyResult",
    "AnyAction",
]
