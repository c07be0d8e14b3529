"""Shared building blocks of protocol v1."""

from __future__ import annotations

import msgspec

PROTOCOL = 1
SUBPROTOCOL = "verdict.v1"
SUBPROTOCOL_MSGPACK = "verdict.v1+msgpack"


class Check(msgspec.Struct, gc=False, tag_field="system", forbid_unknown_fields=True, omit_defaults=False):
    """Base of every check: a tagged union on ``system``. Unknown fields are refused (a misspelled
    field would otherwise be dropped and the check made without it)."""


class Result(msgspec.Struct, gc=False, tag_field="system", omit_defaults=False):
    """Base of every result: a tagged union on ``system``.

    Every result has ``system`` (the tag), ``outcome`` and ``dice``.
    """


class Action(msgspec.Struct, gc=False, tag_field="action", forbid_unknown_fields=True):
    """Base of every follow-up action on an earlier check: a tagged union on ``action``. Unknown fields
    are refused."""


class Probability(msgspec.Struct, gc=False, array_like=False):
    """An exact probability: ``num``/``den`` in lowest terms, and the float for display."""

    num: int
    den: int
    p: float


class Op(msgspec.Struct, gc=False, tag_field="op", forbid_unknown_fields=True):
    """Base of every GM operation (the ``op`` of a ``gm`` message): a tagged union on ``op``. The table's own
    are in ``protocol/v1/table.py``; a rule set's, in its Structs' module."""


class Event(msgspec.Struct, gc=False, tag_field="kind", omit_defaults=False):
    """Base of every ledger event: a tagged union on ``kind``. ``cause`` is the seq of the action it belongs
    to. The table's own are in ``protocol/v1/table.py``; a rule set's, in its Structs' module."""


class ActorPart(msgspec.Struct, gc=False):
    """Base of the fields a rule set adds to each actor's state (at most one subclass per rule set, every field
    with a default: an actor the rule set has not touched holds them). The snapshot's actor is flat: the
    table's fields and every rule set's, side by side."""


class ScenePart(msgspec.Struct, gc=False):
    """Base of the fields a rule set adds to each scene's state, as :class:`ActorPart` for actors."""
