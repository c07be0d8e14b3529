"""Write the fair dice's golden vectors, ``protocol/vectors/fair-dice.jsonl``, from the derivation alone.

Other clients check their derivation against that file (docs/fair-dice.md). It is written from the contract
with the standard library's ``hashlib`` and ``hmac`` only, nothing of the sidecar, so that the file and the
sidecar are two readings of the contract. One case a line, as JSON:

``name``, ``seed`` (64 hex digits), ``commitment`` (the lowercase hex SHA-256 of the seed's 32 bytes),
``client_seed``, ``nonce``, ``F`` (faces), ``count`` (dice, at indices 0 … count-1), ``faces`` and ``k``
(per die, the counter that gave its face: 0 unless a draw was rejected).

Every ``F`` fits a signed 64-bit integer, and every one but the last case's fits a double exactly. The last
case's ``F`` (2**63 + 1) rejects about half the draws; its numbers need a parser that keeps 64-bit integers.

    python tools/fair_vectors.py           # write the file
    python tools/fair_vectors.py --check   # exit 1 if the file is not what this writes
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "protocol" / "vectors" / "fair-dice.jsonl"


def face(seed: bytes, client_seed: str, nonce: str, index: int, sides: int) -> tuple[int, int]:
    """``(face, k)`` of the die at ``index`` with ``sides`` faces, by the contract."""
    limit = (2**64 // sides) * sides
    k = 0
    while True:
        h = hmac.new(seed, f"{client_seed}:{nonce}:{index}:{k}".encode(), hashlib.sha256).digest()
        u = int.from_bytes(h[:8], "big")
        if u < limit:
            return u % sides + 1, k
        k += 1


def _seed(n: int) -> bytes:
    return hashlib.sha256(f"verdict fair dice: vector seed {n}".encode()).digest()


ZERO = bytes(32)
COUNTING = bytes(range(32))
LONG_SEED = "Zz9_-" * 12 + "abcd"  # 64 characters, every kind the alphabet has
JS_SAFE_REJECTING = 2**53 + 1
"""The largest die whose numbers a double holds that still rejects often: about one draw in 2,048."""
HALF_REJECTING = 2**63 + 1
"""A die that rejects about half the draws: 2**64 // F is 1, so every u at or above F is thrown away."""


def _first_rejecting(seed: bytes, client_seed: str, sides: int) -> str:
    """The first nonce ``reject-N`` whose die 0 rejects its first draw (k = 1 or more)."""
    n = 0
    while face(seed, client_seed, f"reject-{n}", 0, sides)[1] == 0:
        n += 1
    return f"reject-{n}"


def cases() -> list[tuple[str, bytes, str, str, int, int]]:
    """``(name, seed, client_seed, nonce, F, count)`` of every case."""
    s1, s2 = _seed(1), _seed(2)
    rejecting = _first_rejecting(s2, "k", JS_SAFE_REJECTING)
    return [
        ("a d20 without a client seed", COUNTING, "", "r-1", 20, 1),
        ("a pool of d6", COUNTING, "Xk3_-q", "roll-7", 6, 10),
        ("three d8", s1, "a1b2c3", "feats-1", 8, 3),
        ("d12", s1, "a1b2c3", "boons-1", 12, 5),
        ("d10", s1, "a1b2c3", "d10s", 10, 6),
        ("d4", s2, "q", "d4s", 4, 6),
        ("d100", s2, "q", "d100s", 100, 4),
        ("d256", s2, "q", "d256s", 256, 4),
        ("d2", ZERO, "coin", "flip", 2, 8),
        ("d3 (2**64 % 3 is 1: only u = 2**64 - 1 would be rejected)", ZERO, "three", "t", 3, 8),
        ("d1: always 1", ZERO, "one", "n", 1, 3),
        ("the all-zero seed", ZERO, "", "0", 6, 4),
        ("a client seed of 64 characters", s1, LONG_SEED, "long-seed", 20, 2),
        ("a nonce with colons (the message is never split)", s1, "c", "a:b:c", 6, 3),
        ("a nonce beyond ASCII (its UTF-8 bytes)", s1, "c", "rôle-🎲", 6, 3),
        ("an empty nonce", s1, "c", "", 6, 3),
        ("a hundred d6", s2, "many", "r-100", 6, 100),
        ("die 0 rejected once (k = 1): F = 2**53 + 1", s2, "k", rejecting, JS_SAFE_REJECTING, 3),
        ("many rejections: F = 2**63 + 1", s1, "half", "h", HALF_REJECTING, 16),
    ]


def lines() -> str:
    """The file's text."""
    out = []
    for name, seed, client_seed, nonce, sides, count in cases():
        drawn = [face(seed, client_seed, nonce, i, sides) for i in range(count)]
        case = {
            "name": name,
            "seed": seed.hex(),
            "commitment": hashlib.sha256(seed).hexdigest(),
            "client_seed": client_seed,
            "nonce": nonce,
            "F": sides,
            "count": count,
            "faces": [f for f, _ in drawn],
            "k": [k for _, k in drawn],
        }
        out.append(json.dumps(case, ensure_ascii=False, separators=(",", ":")) + "\n")
    return "".join(out)


def main(argv: list[str]) -> int:
    text = lines()
    if argv[1:] == ["--check"]:
        if OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.name} is not what the derivation gives: run python tools/fair_vectors.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
