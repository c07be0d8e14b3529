"""What a table stores and hands around: an event as the ledger keeps it (:class:`Stored`), the events an action
will append (:class:`Pending`), a check as the table answers for it (:class:`Check`), what a snapshot holds
(:class:`Saved`, its format :data:`SNAPSHOT_FORMAT`) and the random digits of check ids."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import msgspec

from protocol.v1 import table as t
from sidecar import __version__

from .projection import Folded


class Stored(msgspec.Struct, array_like=True, gc=False):
    """An event as the ledger keeps it: who may see it, whose it is, and the event."""

    vis: str
    owner: str | None
    event: t.AnyEvent


_enc = msgspec.msgpack.Encoder()
_dec = msgspec.msgpack.Decoder(Stored)

SNAPSHOT_FORMAT = 5
"""Raised whenever what a snapshot holds, or how events fold into it, changes (5: each rule set's part under its
tag, and who heard what a rule set asked the table to remember)."""
SNAPSHOT_VERSION = f"{SNAPSHOT_FORMAT}/{__version__}"
"""A snapshot written by another version (an older format among them) is not read: the table folds its events
and writes a new one."""


class Saved(msgspec.Struct, array_like=True, gc=False):
    """A table's state at ``head`` as a snapshot holds it: derived data, the events are the truth."""

    head: int
    heard: dict[str, list[tuple[str, str | None]]]
    condition_seen: dict[str, tuple[str, str | None]]
    secret_owners: list[str]
    gather_secret: list[str]
    gaps: list[bytes]
    """The numbering's gaps, of the players' base and of the GMs' (:meth:`.seqs.Seqs.to_bytes`)."""
    own: list[tuple[bool, str, bytes]]
    state: Folded
    views: list[tuple[str | None, Folded]]
    """The players' projections held when it was written (one asked for later is built from the events)."""


saved_enc = msgspec.msgpack.Encoder()
saved_dec = msgspec.msgpack.Decoder(Saved)


def decode_stored(data: bytes) -> Stored:
    """An event as the ledger holds it (``Stored``), from its bytes."""
    return _dec.decode(data)


@dataclass(frozen=True)
class Runs:
    """What a catch-up reads when most of the events after its start are hidden from its viewer: the ranges
    ``(after, upto]`` of ledger seqs that hold the viewer's events (:meth:`.hearing.Numbering.runs`). With them
    in hand (``Table.reading``), the stored events of ``(since, upto]`` are those of the ranges alone: only a
    welcome's, which tells the viewer nothing else, reads them so."""

    since: int
    upto: int
    ranges: list[tuple[int, int]]


@dataclass(frozen=True)
class Check:
    """A check as the table answers for it: its roll's seq, who may see it (its roll event's visibility and
    owner), and its record as it stands (the roll event with its result after every follow-up, no label)."""

    seq: int
    vis: str
    owner: str | None
    rec: t.RollEvent
    label: str | None = None
    read_back: bool = False
    """Read back from its events (the ledger's or the recent window's): ``label`` is then its roll's, so that
    ``verify`` reads no more for it than for an id that never was."""


@dataclass
class Pending:
    """Events an action will append, in order, with their seqs."""

    events: list[tuple[int, Stored]] = field(default_factory=list)
    check_id: str | None = None
    result: object | None = None

    @property
    def first(self) -> int:
        return self.events[0][0]

    def encoded(self) -> list[tuple[int, bytes]]:
        return [(seq, _enc.encode(st)) for seq, st in self.events]


class _Entropy:
    """Random hex digits from the kernel (``os.urandom``, as ``secrets`` reads it), 512 ids' worth at a time:
    one system call a roll cost more than the rest of its check id."""

    block = ""
    used = 0

    @classmethod
    def hex16(cls) -> str:
        """16 random hex digits (8 bytes), never handed out twice."""
        used = cls.used
        if used + 16 > len(cls.block):
            cls.block, used = os.urandom(4096).hex(), 0
        cls.used = used + 16
        return cls.block[used : used + 16]

    @classmethod
    def forget(cls) -> None:
        """A forked child draws its own: what the parent held may be the parent's next ids."""
        cls.block, cls.used = "", 0


os.register_at_fork(after_in_child=_Entropy.forget)


def undoes_behind(rows: list[tuple[int, bytes]], data: bytes) -> bool:
    """Whether an undo among the events after a snapshot undoes what the snapshot holds (so that the
    projections rebuild from the history, not from the snapshot)."""
    undone = [s for _, raw in rows if isinstance(ev := _dec.decode(raw).event, t.Undone) for s in ev.seqs]
    if not undone:
        return False
    try:
        saved = saved_dec.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return True
    return not fits(saved.state, set(undone), saved.head)


def fits(base: Folded, undone: set[int], head: int) -> bool:
    """Whether a projection that has ``undone`` these seqs may be rebuilt from ``base``, a snapshot's at ``head``:
    every seq undone since it was written is after it."""
    return all(s > head for s in undone.difference(base.undone))
