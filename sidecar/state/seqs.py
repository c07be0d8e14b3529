"""A growing, sorted set of ledger seqs kept compact: what a viewer's numbering holds (:mod:`.hearing`).

The seqs come in increasing order and are mostly near one another (the secret events of a campaign), so all
but the newest :data:`BLOCK` are kept in sealed blocks, each its first seq and the deltas after it in the
narrowest integer type that holds them, zlib-compressed: about half a byte an entry, against 8 in a plain
array. The newest stay a plain array, so appending and the lookups of the events being told (near the head)
cost what a bisection of an array does; an older block is decompressed when a lookup lands in it, and the last
:data:`DECODED` of them are kept decoded.
"""

from __future__ import annotations

import bisect
import itertools
import zlib
from array import array
from collections import OrderedDict
from collections.abc import Iterator

BLOCK = 256
"""Seqs a sealed block holds (smaller decodes sooner; larger saves little: about half a byte an entry either way)."""
DECODED = 2
"""Sealed blocks kept decoded (a catch-up's search reads a few at a time)."""

_WIDTHS = ("B", "H", "I", "Q")
_WIDTH = array("q").itemsize


class Seqs:
    """Increasing ints, appended in order, with ``bisect_right`` and membership as a sorted array has them."""

    __slots__ = ("_firsts", "_blocks", "_tail", "_decoded")

    def __init__(self) -> None:
        self._firsts = array("q")
        """The first seq of each sealed block."""
        self._blocks: list[bytes] = []
        """Each sealed block's deltas from its first seq (a type code, then the zlib-compressed array)."""
        self._tail = array("q")
        """The newest seqs, at most ``BLOCK`` of them, as they are."""
        self._decoded: OrderedDict[int, list[int]] = OrderedDict()
        """The last sealed blocks read, decoded (a list: quicker to build and to bisect than an array)."""

    def append(self, seq: int) -> None:
        tail = self._tail
        if tail and seq <= tail[-1]:
            raise ValueError(f"seqs are appended in increasing order: {seq} after {tail[-1]}")
        if len(tail) == BLOCK:  # sealed only when a newer one comes: the tail is never empty once begun
            self._seal()
            tail = self._tail
        tail.append(seq)

    def _seal(self) -> None:
        tail = self._tail
        deltas = [b - a for a, b in zip(tail, tail[1:])]
        top = max(deltas, default=0)
        code = next(c for c in _WIDTHS if top < 1 << (8 * array(c).itemsize))
        self._firsts.append(tail[0])
        self._blocks.append(code.encode() + zlib.compress(array(code, deltas).tobytes()))
        self._tail = array("q")

    def _block(self, i: int) -> list[int]:
        got = self._decoded.get(i)
        if got is not None:
            self._decoded.move_to_end(i)
            return got
        raw = self._blocks[i]
        deltas = array(chr(raw[0]))
        deltas.frombytes(zlib.decompress(raw[1:]))
        got = list(itertools.accumulate(deltas, initial=self._firsts[i]))
        self._decoded[i] = got
        if len(self._decoded) > DECODED:
            self._decoded.popitem(last=False)
        return got

    def bisect_right(self, x: int) -> int:
        """How many of the seqs are at or below ``x``."""
        tail = self._tail
        if tail and x >= tail[0]:
            return len(self._blocks) * BLOCK + bisect.bisect_right(tail, x)
        i = bisect.bisect_right(self._firsts, x) - 1
        if i < 0:
            return 0
        return i * BLOCK + bisect.bisect_right(self._block(i), x)

    def __contains__(self, x: object) -> bool:
        if not isinstance(x, int):
            return False
        n = self.bisect_right(x)
        return n > 0 and self[n - 1] == x

    def __getitem__(self, n: int) -> int:
        sealed = len(self._blocks) * BLOCK
        if not 0 <= n < sealed + len(self._tail):
            raise IndexError(n)
        if n >= sealed:
            return self._tail[n - sealed]
        return self._block(n // BLOCK)[n % BLOCK]

    def __len__(self) -> int:
        return len(self._blocks) * BLOCK + len(self._tail)

    def __bool__(self) -> bool:
        return bool(self._tail)

    def __iter__(self) -> Iterator[int]:
        for i in range(len(self._blocks)):
            yield from self._block(i)
        yield from self._tail

    def to_bytes(self) -> bytes:
        """The seqs as a snapshot keeps them: the sealed blocks as they are (int64s in native order)."""
        lengths = array("q", (len(raw) for raw in self._blocks))
        header = array("q", (len(self._blocks), sum(lengths), len(self._tail)))
        return b"".join(
            (header.tobytes(), self._firsts.tobytes(), lengths.tobytes(), *self._blocks, self._tail.tobytes())
        )

    @classmethod
    def from_bytes(cls, raw: bytes) -> Seqs:
        """The seqs ``to_bytes`` wrote; a ``ValueError`` when ``raw`` is not such bytes."""
        width = _WIDTH  # a header of three int64s: sealed blocks, their total compressed length, the tail's
        header = array("q")
        header.frombytes(raw[: 3 * width])
        if len(header) != 3:
            raise ValueError("truncated seqs")
        blocks, packed, tail = header
        at = 3 * width
        firsts, lengths = array("q"), array("q")
        firsts.frombytes(raw[at : at + blocks * width])
        at += blocks * width
        lengths.frombytes(raw[at : at + blocks * width])
        at += blocks * width
        if len(firsts) != blocks or len(lengths) != blocks or sum(lengths) != packed:
            raise ValueError("truncated seqs")
        seqs = cls()
        seqs._firsts = firsts
        for length in lengths:
            seqs._blocks.append(raw[at : at + length])
            at += length
        seqs._tail.frombytes(raw[at : at + tail * width])
        if at + tail * width != len(raw) or len(seqs._tail) != tail or (blocks and not tail):
            raise ValueError("malformed seqs")
        return seqs
