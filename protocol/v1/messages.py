"""Protocol v1 messages: what clients send and what the sidecar answers.

Client messages form a tagged union on ``type``; so do server messages. Every client
request carries ``id``, a client-chosen idempotency key that the reply echoes: a
repeated ``id`` is answered with the first reply and never rolls twice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, Union, get_args

import msgspec
from msgspec import Meta

from .base import PROTOCOL, Probability
from .challenge import ChallengeOption
from .errors import ErrorCode
from .flairs import FlairsTrialName
from .limits import Label, Name
from .systems import ACTION_TYPES, CHECK_TYPES, RESULT_TYPES, SYSTEMS, AnyAction, AnyCheck, AnyOdds, AnyResult
from .table import AnyEvent, AnyOp, Sequenced, Snapshot

Role = Literal["gm", "player", "observer"]
RollMode = Literal["public", "gm", "blind", "self"]


class ClientMessage(msgspec.Struct, gc=False, tag_field="type", forbid_unknown_fields=True):
    """Base of what a client sends. Unknown fields are refused here and in every nested Struct
    (checks, actions, GM operations): a misspelled field is an ``invalid_message`` naming it."""


class ServerMessage(msgspec.Struct, gc=False, tag_field="type", omit_defaults=False):
    """Base of what the sidecar sends."""


# --- client -> server ---------------------------------------------------------------


class Hello(ClientMessage, tag="hello"):
    """First frame on every socket. ``since`` is the last event seq the client saw."""

    table: str
    key: str
    protocol: int = PROTOCOL
    client: str = ""
    since: int | None = None
    user: str | None = None
    """Who is at this client (a Foundry user id). With a GM key: the GM's own id. With a user key: the user
    it was issued for (a key that does not match is refused). With the table-wide player key: refused
    (``user_key_required``); that key binds to no user."""


class Roll(ClientMessage, tag="roll"):
    """Roll a check (or read given faces when ``check.dice`` is set)."""

    id: str
    check: AnyCheck
    actor: Name | None = None
    """Whose roll it is (a Foundry actor's id): what its consequences land on."""
    target: Name | None = None
    """The opponent who takes the opponent's harm (`facets` conflicts)."""
    scene: Name | None = None
    mode: RollMode = "public"
    label: Label | None = None
    extended: Name | None = None
    """The extended check this roll adds to (`boons`)."""
    gather: Name | None = None
    """The gathered check (group or opposed) this roll is a part of; ``part`` names which."""
    part: Name | None = None
    user: Name | None = None
    """On behalf of this user (a GM client relaying a player's request); defaults to the connection's user.
    Other roles get ``forbidden``."""


class Odds(ClientMessage, tag="odds"):
    """Exact odds of a check. Changes nothing and is not logged."""

    id: str
    check: AnyCheck


class Follow(ClientMessage, tag="follow"):
    """A follow-up on an earlier check, named by the ``check`` id its ``rolled`` carried."""

    id: str
    check: str
    action: AnyAction
    user: str | None = None
    """On behalf of this user: GM connections only, like ``roll.user``."""


class Gm(ClientMessage, tag="gm"):
    """A GM operation on the table state. Other roles get ``forbidden``."""

    id: str
    op: AnyOp


class State(ClientMessage, tag="state"):
    """Ask for the table's current snapshot, as this connection may see it."""

    id: str


class Verify(ClientMessage, tag="verify"):
    """Is this check in the ledger? A chat card whose check is not, or differs, is unverified."""

    id: str
    check: str


class Ping(ClientMessage, tag="ping"):
    id: str = ""


class UserKey(ClientMessage, tag="user_key"):
    """The key that binds a connection to ``user`` (GM only): ``hello {key, user}`` with it is that player."""

    id: str
    user: str


# --- server -> client ---------------------------------------------------------------


if TYPE_CHECKING:
    FollowupTag = Literal[
        "challenge_choice",
        "challenge_remove_complication",
        "flairs_bargain",
        "flairs_choose",
        "flairs_reveal",
        "flairs_set_lurking",
        "flairs_name_trials",
        "extended_next",
    ]
else:
    FollowupTag = Literal[(*(a.__struct_config__.tag for a in ACTION_TYPES), "extended_next")]
"""What a card may offer on a result: the tag of a follow-up action (``follow.action.action``), or
``extended_next``, the next roll of the extended check the result belongs to (a ``roll`` with ``extended``).
Every follow-up action's tag, the installed rule sets' too (type checkers see the shipped ones)."""


class OpenFollowup(msgspec.Struct, gc=False, omit_defaults=True):
    """A follow-up open to the viewer a ``rolled``, ``followed`` or ``verified`` is for, on the result as it now
    stands: the sidecar accepts it from that viewer (with the parameters it still needs chosen from what is
    given here). Whose it is was decided per viewer: the list holds nothing another player or an observer may
    send. The rule set says what is open (``RuleSet.open_on``)."""

    # On the wire one Struct with optional fields; each field's ``extra`` says which follow-up's parameter it
    # serves, and the generated vocabulary gives the module that as a union tagged by ``action``.
    action: FollowupTag
    gm: Annotated[bool, Meta(description="The GM's (the Judge's) to make, not the roller's.")] = False
    options: Annotated[
        list[ChallengeOption] | None,
        Meta(
            description="challenge_choice: the options to pick one of.",
            extra={"offers": {"challenge_choice": "option"}},
        ),
    ] = None
    flairs: Annotated[
        int | None,
        Meta(
            description="flairs_choose: at most this many flairs (0: the choice of none, which reveals the lurking "
            "trials).",
            extra={"most": {"flairs_choose": "flairs"}},
        ),
    ] = None
    trials: Annotated[
        list[FlairsTrialName] | None,
        Meta(
            description="flairs_bargain: the trials the bargain may name.",
            extra={"offers": {"flairs_bargain": "trial"}},
        ),
    ] = None
    count: Annotated[
        int | None,
        Meta(
            description="flairs_name_trials, flairs_set_lurking: how many trials are to be named.",
            extra={"count": {"flairs_name_trials": "trials", "flairs_set_lurking": "trials"}},
        ),
    ] = None
    extended: Annotated[
        str | None,
        Meta(
            description="extended_next: the extended check to roll into.", extra={"roll": {"extended_next": "extended"}}
        ),
    ] = None


class Error(ServerMessage, tag="error"):
    """A request that could not be done. ``code`` is stable; ``message`` says what to fix."""

    code: ErrorCode
    """One of :class:`~protocol.v1.errors.ErrorCode`: stable, for programs; ``message`` is for people."""
    message: str
    id: str | None = None


class Welcome(ServerMessage, tag="welcome"):
    protocol: int
    server: str
    role: Role
    table: str
    seq: int
    """The table's newest event seq."""
    events: list[Sequenced] = []
    """The events missed since ``hello.since``, as this role may see them."""
    snapshot: Snapshot | None = None
    """The whole state instead, when the client is new or too far behind."""


class Rolled(ServerMessage, tag="rolled"):
    """A resolved check, sent to the roller (echoing ``id``) and broadcast to the table."""

    id: str
    check: str
    """The check id that follow-ups name."""
    seq: int
    result: AnyResult | None
    """``null`` for a blind roll's roller: only the GM sees a blind result."""
    by: Role
    user: str | None = None
    actor: str | None = None
    target: str | None = None
    scene: str | None = None
    mode: RollMode = "public"
    label: str | None = None
    extended: str | None = None
    gather: str | None = None
    part: str | None = None
    events: list[Sequenced] = []
    """The consequences this roll applied (strain, harm, complications, …)."""
    open: list[OpenFollowup] | msgspec.UnsetType = msgspec.UNSET
    """The follow-ups open to this message's receiver on the result (``[]``: none). Left out by older sidecars
    (then a client offers none rather than guess)."""


class Followed(ServerMessage, tag="followed"):
    """A follow-up applied to a check: the check's result as it now stands."""

    id: str
    check: str
    seq: int
    action: AnyAction
    result: AnyResult | None
    by: Role
    user: str | None = None
    events: list[Sequenced] = []
    open: list[OpenFollowup] | msgspec.UnsetType = msgspec.UNSET
    """The follow-ups open to this message's receiver on the result as it now stands (see ``rolled.open``)."""


class Done(ServerMessage, tag="done"):
    """A GM operation applied: the events it recorded."""

    id: str
    seq: int
    events: list[Sequenced] = []


class EventBroadcast(ServerMessage, tag="event"):
    """An event others caused (GM operations and their consequences), as this connection may see it."""

    seq: int
    event: AnyEvent


class StateReply(ServerMessage, tag="state"):
    id: str
    snapshot: Snapshot


class Verified(ServerMessage, tag="verified"):
    """The ledger's word on a check: ``found``, and its current result as this connection may see it."""

    id: str
    check: str
    found: bool
    seq: int | None = None
    result: AnyResult | None = None
    open: list[OpenFollowup] | msgspec.UnsetType = msgspec.UNSET
    """With a result: the follow-ups open to this connection on it (see ``rolled.open``)."""
    label: str | None = None
    """The roll's label, to a connection that may see the roll (the one ``rolled`` carried); ``null`` to any
    other, and for a roll without one. A card drawn again after a reload takes its label from here."""


class OddsReply(ServerMessage, tag="odds_result"):
    id: str
    check: AnyCheck
    odds: AnyOdds


class Pong(ServerMessage, tag="pong"):
    id: str = ""


class UserKeyReply(ServerMessage, tag="user_key"):
    id: str
    user: str
    key: str


AnyClientMessage = Union[Hello, Roll, Odds, Follow, Gm, State, Verify, Ping, UserKey]
AnyServerMessage = Union[
    Error,
    Welcome,
    Rolled,
    Followed,
    Done,
    EventBroadcast,
    StateReply,
    OddsReply,
    Verified,
    Pong,
    UserKeyReply,
]
CLIENT_TYPES: tuple[type[msgspec.Struct], ...] = get_args(AnyClientMessage)
SERVER_TYPES: tuple[type[msgspec.Struct], ...] = get_args(AnyServerMessage)

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
