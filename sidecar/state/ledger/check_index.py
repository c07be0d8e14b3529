"""Which checks an event names: what every ledger indexes, so that an old check is one look-up."""

from __future__ import annotations

import re

import msgspec

_HEX = re.compile(rb"[0-9a-f]+")
_CHECK_KEY = msgspec.msgpack.encode("check_id")
"""The key of an event's ``check_id`` field as MessagePack encodes it (a short string: its header, its bytes)."""


def check_ids(table_id: str, data: bytes) -> set[str]:
    """The check ids of the table an event's bytes hold in their ``check_id`` fields: what the ledger indexes
    so that :meth:`~.protocols.ServingLedger.read_check_events` is one lookup, not a search through the
    table's history.

    An event is MessagePack (:class:`sidecar.state.table.Stored`), its fields a map: a roll's, a follow-up's,
    a gathered part's (any event about a check) names it under the key ``check_id``, and the id
    (``<table>-<16 hex>``, or ``<table>-<seq>`` in tables from before random ids) is the short string right
    after it. Only those are indexed. A text (a label, an actor, a target) that holds strings shaped like ids
    is no ``check_id`` field: the bytes of a key and a string header after it cannot occur inside valid UTF-8
    text (a header is a continuation byte, which never follows the key's last letter), so no request can make
    an event index ids it does not name, nor make one event index many."""
    found: set[str] = set()
    prefix = table_id.encode() + b"-"
    at = data.find(_CHECK_KEY)
    while at >= 0:
        head = at + len(_CHECK_KEY)
        if head < len(data):
            length = data[head] - 0xA0  # a fixstr's header: the string's length
            start, end = head + 1, head + 1 + length
            if (
                len(prefix) < length < 32
                and end <= len(data)
                and data.startswith(prefix, start)
                and _HEX.fullmatch(data, start + len(prefix), end)
            ):
                found.add(data[start:end].decode())
        at = data.find(_CHECK_KEY, head)
    return found
