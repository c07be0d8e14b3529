"""The request window: which request ids a table answers from their first reply, and the ids memory holds."""

from __future__ import annotations

import contextlib
import json
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

from sidecar import config


@dataclass(frozen=True)
class RequestWindow:
    """Which request ids a table answers from their first reply: per requester (role and user) the last
    ``count``, none older than ``age`` seconds. An id outside it is a new request; the ledger prunes the rows
    outside it (:meth:`~.protocols.ServingLedger.prune_requests`) and a table holds only the ids inside it
    (:class:`Answered`)."""

    count: int = config.REQUEST_WINDOW
    age: float = config.REQUEST_WINDOW_AGE


def requester_of(key: str) -> str:
    """Who a stored request key (``[role, user, id]`` in JSON) belongs to: ``[role, user]`` in JSON ('' for a
    key that is the id alone, as the first releases stored it)."""
    if key.startswith("["):
        with contextlib.suppress(ValueError):
            parts = json.loads(key)
            if isinstance(parts, list) and len(parts) == 3:
                return requester(parts[0], parts[1])
    return ""


def requester(role: str, user: str | None) -> str:
    return json.dumps([role, user], separators=(",", ":"))


class Answered:
    """The request ids a table answered that are inside its :class:`RequestWindow`: at most ``count`` per
    requester, each dropped once older than ``age``. What memory holds of the idempotency store.

    Each id is held under its requester, as the caller says it (a connection knows who it is) or as its key
    says it (:func:`requester_of`, for ids read back); a look-up finds an id's requester by the id itself, so
    no key is parsed on a request's path."""

    def __init__(self, window: RequestWindow, ids: Iterable[tuple[str, float]] = ()) -> None:
        self.window = window
        self.by: dict[str, OrderedDict[str, float]] = {}
        self.whose: dict[str, str] = {}
        """The requester each id held is under."""
        for key, created in ids:
            self.add(key, created)

    def add(self, key: str, created: float | None = None, who: str | None = None) -> None:
        """Hold ``key`` (answered now, or at ``created``) under its requester ``who``, or the one its key names."""
        if who is None:
            who = self.whose.get(key)
            if who is None:
                who = requester_of(key)
        ids = self.by.get(who)
        if ids is None:
            ids = self.by[who] = OrderedDict()
        ids[key] = time.time() if created is None else created
        ids.move_to_end(key)
        self.whose[key] = who
        while len(ids) > self.window.count:
            del self.whose[ids.popitem(last=False)[0]]

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        who = self.whose.get(key)
        if who is None:
            return False
        ids = self.by[who]
        if ids[key] < time.time() - self.window.age:
            del ids[key], self.whose[key]
            return False
        return True

    def prune(self, now: float | None = None) -> None:
        """Drop the ids older than the window (each requester's oldest come first)."""
        oldest = (time.time() if now is None else now) - self.window.age
        for who in list(self.by):
            ids = self.by[who]
            while ids and next(iter(ids.values())) < oldest:
                del self.whose[ids.popitem(last=False)[0]]
            if not ids:
                del self.by[who]

    def __len__(self) -> int:
        return len(self.whose)
