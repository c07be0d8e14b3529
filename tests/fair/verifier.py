"""A verifier of fair dice written from the derivation alone (docs/fair-dice.md), importing nothing of the
sidecar and not even the standard library's ``hmac``: HMAC-SHA256 is built here from SHA-256 (RFC 2104), so
that it and the sidecar are two readings of the contract, not one.

For the die at index ``i`` with ``F`` faces, for ``k = 0, 1, …``:
``h = HMAC-SHA256(key=seed, msg=UTF-8 "{client_seed}:{nonce}:{i}:{k}")``, ``u = int.from_bytes(h[:8], "big")``;
the first ``k`` with ``u < (2**64 // F) * F`` gives the face ``u % F + 1``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

_BLOCK = 64  # SHA-256's block, in bytes


def hmac_sha256(key: bytes, message: bytes) -> bytes:
    """HMAC-SHA256 (RFC 2104): H((K ^ opad) || H((K ^ ipad) || message))."""
    if len(key) > _BLOCK:
        key = hashlib.sha256(key).digest()
    key = key.ljust(_BLOCK, b"\0")
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in key) + message).digest()
    return hashlib.sha256(bytes(b ^ 0x5C for b in key) + inner).digest()


def commitment(seed: bytes) -> str:
    """The commitment a seed answers: the lowercase hex SHA-256 of its bytes."""
    return hashlib.sha256(seed).hexdigest()


def die(seed: bytes, client_seed: str, nonce: str, index: int, faces: int) -> tuple[int, int]:
    """``(face, k)`` of the die at ``index`` with ``faces`` faces."""
    if faces < 1:
        raise ValueError("a die has at least one face")
    accept_below = (2**64 // faces) * faces
    k = 0
    while True:
        message = ":".join((client_seed, nonce, str(index), str(k))).encode("utf-8")
        u = int.from_bytes(hmac_sha256(seed, message)[:8], "big")
        if u < accept_below:
            return u % faces + 1, k
        k += 1


def derive(seed: bytes, client_seed: str, nonce: str, sizes: Sequence[int], start: int = 0) -> list[int]:
    """The faces of the dice ``sizes`` (one F each) at indices ``start``, ``start + 1``, …"""
    return [die(seed, client_seed, nonce, start + n, f)[0] for n, f in enumerate(sizes)]


def verify(seed_hex: str, fair: dict[str, str], dice: Sequence[tuple[int, int, int]]) -> list[str]:
    """What does not verify in a card rolled under ``fair`` (``{commitment, client_seed, nonce}``) once its
    seed ``seed_hex`` is revealed: ``dice`` are ``(index, F, face)`` as the card lists them. Empty: it
    verifies."""
    seed = bytes.fromhex(seed_hex)
    wrong = []
    if len(seed) != 32:
        wrong.append(f"the seed has {len(seed)} bytes, not 32")
    if commitment(seed) != fair["commitment"]:
        wrong.append(f"the seed does not answer the commitment {fair['commitment']}")
    for index, faces, face in dice:
        expected = die(seed, fair["client_seed"], fair["nonce"], index, faces)[0]
        if expected != face:
            wrong.append(f"die {index} (d{faces}) shows {face}; the seed gives {expected}")
    return wrong
