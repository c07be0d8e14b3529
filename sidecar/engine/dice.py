"""Dice from a cryptographically secure source.

Randomness is bought from :func:`os.urandom` in batches (one syscall serves many
dice) and mapped to faces by rejection sampling, so every face is exactly equally
likely. ``random.Random`` is never used: rolls must be unforgeable and unpredictable.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from .errors import DiceError

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
            raise DiceError(f"a die has 1 to 256 sides, not {sides}")
        limit = 256 - 256 % sides  # bytes at or above this would bias the low faces
        out = []
        for _ in range(count):
            b = self._byte()
            while b >= limit:
                b = self._byte()
            out.append(b % sides + 1)
        return out

    def roll_sizes(self, sizes: Sequence[int]) -> list[int]:
        """One face for each die size in ``sizes``, in order."""
        return [self.roll(s)[0] for s in sizes]


def check_faces(faces: Sequence[int], sizes: Sequence[int], what: str) -> list[int]:
    """Validate supplied ``faces`` against the die ``sizes`` the check needs."""
    if len(faces) != len(sizes):
        raise DiceError(f"{what} needs {len(sizes)} dice, got {len(faces)}")
    for i, (f, s) in enumerate(zip(faces, sizes)):
        if not isinstance(f, int) or isinstance(f, bool) or not 1 <= f <= s:
            raise DiceError(f"die {i + 1} of {what} is a d{s}: a face of {f!r} is impossible (1–{s})")
    return list(faces)
