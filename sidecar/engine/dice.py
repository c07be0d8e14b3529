"""Dice from a cryptographically secure source, and dice derived from a committed seed.

:class:`Dice`: randomness is bought from :func:`os.urandom` in batches (one syscall serves many
dice) and mapped to faces by rejection sampling, so every face is exactly equally
likely. ``random.Random`` is never used: rolls must be unforgeable and unpredictable.

:class:`FairDice`: the same interface, every face derived from the table's secret seed, the roller's
client seed and the request's id (the nonce), so that once the seed is revealed anyone can recompute
them (docs/fair-dice.md). The derivation is a contract other programs implement, exact to the byte:
for the die at index ``i`` with ``F`` faces, for ``k = 0, 1, …``:
``h = HMAC-SHA256(key=seed, msg=UTF-8 "{client_seed}:{nonce}:{i}:{k}")``, ``u = int.from_bytes(h[:8], "big")``;
the first ``k`` with ``u < (2**64 // F) * F`` gives the face ``u % F + 1``.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Callable, Sequence

from .errors import CheckError, DiceError, ErrorCode

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


SEED_BYTES = 32
"""A table's dice seed: 32 bytes from the OS's CSPRNG."""
CLIENT_SEED_MAX = 64
CLIENT_SEED_PATTERN = "^[A-Za-z0-9_-]{0,64}$"
"""A roller's client seed: up to 64 of ``A–Z a–z 0–9 _ -`` (empty: no client seed). It holds no ``:``, so
the message ``{client_seed}:{nonce}:{i}:{k}`` reads back one way whatever the nonce holds."""
_CLIENT_SEED = re.compile("[A-Za-z0-9_-]*")


def check_client_seed(client_seed: str) -> str:
    """``client_seed`` if it is one (1–64 of ``A–Z a–z 0–9 _ -``, or empty); refused with ``invalid_message``."""
    if type(client_seed) is str and len(client_seed) <= CLIENT_SEED_MAX and _CLIENT_SEED.fullmatch(client_seed):
        return client_seed
    if not isinstance(client_seed, str):
        raise CheckError(ErrorCode.INVALID_MESSAGE, f"`client_seed` is a string, not {type(client_seed).__name__}")
    if len(client_seed) > CLIENT_SEED_MAX:
        raise CheckError(
            ErrorCode.INVALID_MESSAGE,
            f"`client_seed` has {len(client_seed)} characters; a client seed has at most {CLIENT_SEED_MAX}",
        )
    bad = next(c for c in client_seed if not (c.isascii() and (c.isalnum() or c in "_-")))
    raise CheckError(
        ErrorCode.INVALID_MESSAGE,
        f"`client_seed` holds {bad!r}: a client seed is made of A–Z, a–z, 0–9, `_` and `-` only",
    )


def commitment_of(seed: bytes) -> str:
    """The commitment to a dice seed: the lowercase hex SHA-256 of its bytes."""
    return hashlib.sha256(seed).hexdigest()


def new_seed() -> bytes:
    """A fresh dice seed from the OS's CSPRNG."""
    return os.urandom(SEED_BYTES)


class DiceSeed:
    """A table's dice seed, with its commitment and HMAC's keyed state worked out once (each die copies the
    keyed state instead of hashing the key again)."""

    __slots__ = ("seed", "commitment", "keyed")

    def __init__(self, seed: bytes) -> None:
        if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
            raise ValueError(f"a dice seed is {SEED_BYTES} bytes")
        self.seed = seed
        self.commitment = commitment_of(seed)
        self.keyed = hmac.new(seed, digestmod=hashlib.sha256)
        """HMAC-SHA256 keyed with the seed and never updated: each message is hashed on a copy."""

    def dice(self, client_seed: str, nonce: str) -> FairDice:
        """The dice of one request: ``client_seed`` (checked) and the request's id."""
        return FairDice(self, client_seed, nonce)


class FairDice(Dice):
    """Dice derived from a table's seed for one request: the roller's ``client_seed`` and the request's
    ``id`` (``nonce``). Each die asked for takes the next index, from 0; :meth:`skip` passes over indices
    the result lists without rolling them (dice set rather than rolled). A subclass of :class:`Dice`, so a
    rule set's ``roll(check, rng)`` rolls from it unchanged."""

    __slots__ = ("seed", "client_seed", "nonce", "index", "_keyed", "_prefix")

    def __init__(self, seed: DiceSeed | bytes, client_seed: str, nonce: str) -> None:
        super().__init__(_no_source)
        self.seed = seed if isinstance(seed, DiceSeed) else DiceSeed(seed)
        self.client_seed = check_client_seed(client_seed)
        if not isinstance(nonce, str):
            raise TypeError(f"a nonce is the request's id, a string, not {type(nonce).__name__}")
        self.nonce = nonce
        self.index = 0
        """The index the next die derived takes."""
        self._keyed = self.seed.keyed
        self._prefix = f"{client_seed}:{nonce}:".encode()

    def face(self, index: int, sides: int) -> int:
        """The face of the die at ``index`` with ``sides`` faces (any ``sides`` of 1 or more)."""
        limit = (1 << 64) // sides * sides
        head = self._prefix + b"%d:" % index
        k = 0
        while True:
            h = self._keyed.copy()
            h.update(head + b"%d" % k)
            u = int.from_bytes(h.digest()[:8], "big")
            if u < limit:
                return u % sides + 1
            k += 1

    def skip(self, count: int = 1) -> None:
        """Pass over ``count`` indices: dice the result lists that are not rolled."""
        self.index += count

    def roll(self, sides: int, count: int = 1) -> list[int]:
        """``count`` faces of a die with ``sides`` sides, each 1..sides, at the next ``count`` indices."""
        if not 1 <= sides <= 256:
            raise DiceError(ErrorCode.INVALID_DICE, f"a die has 1 to 256 sides, not {sides}")
        start = self.index
        self.index = start + count
        return [self.face(i, sides) for i in range(start, start + count)]

    def roll_sizes(self, sizes: Sequence[int]) -> list[int]:
        """One face for each die size in ``sizes``, in order, at the next ``len(sizes)`` indices."""
        for sides in sizes:
            if not 1 <= sides <= 256:
                raise DiceError(ErrorCode.INVALID_DICE, f"a die has 1 to 256 sides, not {sides}")
        start = self.index
        self.index = start + len(sizes)
        return [self.face(start + n, sides) for n, sides in enumerate(sizes)]


def _no_source(_: int) -> bytes:
    raise AssertionError("fair dice are derived, never drawn from a source")


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
            raise DiceError(
                ErrorCode.INVALID_DICE, f"die {i + 1} of {what} is a d{s}: a face of {f!r} is impossible (1–{s})"
            )
    return list(faces)
