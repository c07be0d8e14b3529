"""Dice from a cryptographically secure source.

Randomness is bought from :func:`os.urandom` in batches (one syscall serves many
dice) and mapped to faces by rejection sampling, so every face is exactly equally
likely. ``random.Random`` is never used: rolls must be unforgeable and unpredictable.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from .errors import DiceError, ErrorCode

_BATCH = 4096


class Dice:
    """A source of fair dice, up to 256 sides, backed by ``os.urandom`` (or ``source``)."""

    __slots__ = ("_buf", "_pos", "_source")

    def __init__(self, source: Callable[[int], bytes] = os.urandom) -> None:
        self._source = source
        self._buf = b""
        self._pos = 0

    def _byte(self) -> int:
        if self._pos >= len(self._buf):
            self._buf = self._source(_BATCH)
            self._pos = 0
        b = self._buf[self._pos]
        self._pos += 1
        return b

    def roll(self, sides: int, count: int = 1) -> list[int]:
        """``count`` faces of a die with ``sides`` sides, each 1..sides."""
        if not 1 <= sides <= 256:
            raise DiceError(ErrorCode.INVALID_DICE, f"a die has 1 to 256 sides, not {sides}")
        if sides == 256:  # a face of 256 does not fit the byte table below
            return [self._byte() + 1 for _ in range(count)]
        # Map a run of bytes to faces with one C call; rejected bytes map to 0 and are dropped,
        # so the faces are exactly those of rejecting byte by byte, in the same order.
        table = _TABLES.get(sides) or _table(sides)
        out: list[int] = []
        need = count
        while need > 0:
            buf, pos = self._buf, self._pos
            if pos >= len(buf):
                buf = self._buf = self._source(_BATCH)
                pos = 0
            chunk = buf[pos : pos + need].translate(table)
            self._pos = pos + len(chunk)
            out += chunk.replace(b"\0", b"") if 0 in chunk else chunk
            need = count - len(out)
        return out

    def roll_sizes(self, sizes: Sequence[int]) -> list[int]:
        """One face for each die size in ``sizes``, in order, each by rejection sampling byte by byte
        (the same faces, from the same bytes, as :meth:`roll` one size at a time)."""
        out: list[int] = []
        buf, pos = self._buf, self._pos
        for sides in sizes:
            if not 1 <= sides < 256:
                self._buf, self._pos = buf, pos
                out += self.roll(sides, 1)  # 256 sides, or a size to refuse
                buf, pos = self._buf, self._pos
                continue
            table = _TABLES.get(sides) or _table(sides)
            while True:
                if pos >= len(buf):
                    buf = self._source(_BATCH)
                    pos = 0
                face = table[buf[pos]]
                pos += 1
                if face:
                    break
            out.append(face)
        self._buf, self._pos = buf, pos
        return out


_TABLES: dict[int, bytes] = {}


def _table(sides: int) -> bytes:
    """Byte -> face for a die of ``sides`` (< 256) sides; 0 for the bytes rejection sampling throws away."""
    limit = 256 - 256 % sides  # bytes at or above this would bias the low faces
    table = _TABLES[sides] = bytes(b % sides + 1 if b < limit else 0 for b in range(256))
    return table


def check_faces(faces: Sequence[int], sizes: Sequence[int], what: str) -> list[int]:
    """Validate supplied ``faces`` against the die ``sizes`` the check needs."""
    if len(faces) != len(sizes):
        raise DiceError(ErrorCode.INVALID_DICE, f"{what} needs {len(sizes)} dice, got {len(faces)}")
    for f, s in zip(faces, sizes):  # the common case, plain ints in range, without the checks below
        if type(f) is not int or not 0 < f <= s:
            break
    else:
        return list(faces)
    for i, (f, s) in enumerate(zip(faces, sizes)):
        if not isinstance(f, int) or isinstance(f, bool) or not 1 <= f <= s:
            raise DiceError(ErrorCode.INVALID_DICE, f"die {i + 1} of {what} is a d{s}: a face of {f!r} is impossible (1–{s})")
    return list(faces)
