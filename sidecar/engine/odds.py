"""Exact odds of any check the engine accepts: ``odds(check, rules=None)``.

Computed, never sampled: each rule set's odds come from its structure (closed forms over d6 pools,
convolution of symbol vectors, the 20 faces of a d20, the 512 ordered rolls of 3d8), as integer counts
over one common denominator, shown as exact fractions and floats.

The check is validated by its own rule set first, so an invalid check raises the same
:class:`CheckError` as rolling it would. Answers are cached by the check's parameters (its supplied
``dice`` are ignored: odds are about the roll before it happens) and the rules in force; the answers
are frozen Structs shared between callers.
"""

from __future__ import annotations

from typing import Any

import msgspec

from protocol.v1.odds import AnyOdds
from sidecar.config import ODDS_CACHE as CACHE_SIZE
from sidecar.config import ODDS_CACHE_BYTES as CACHE_BYTES

from .errors import CheckError, ErrorCode
from .odds_core import TABLES
from .odds_describe import describe
from .registry import RULESETS

_cache: dict[tuple[str, bytes, bytes | None], tuple[AnyOdds, int]] = {}
_cache_bytes = 0
_encode = msgspec.json.encode


def _key(check: Any) -> bytes:
    if getattr(check, "dice", None) is not None:
        check = msgspec.structs.replace(check, dice=None)
    return _encode(check)


def odds(check: Any, rules: Any = None) -> AnyOdds:
    """The exact odds of ``check`` under ``rules`` (the rule set's defaults when ``None``).

    Returns the rule set's ``<System>Odds`` Struct (see protocol/v1/odds.py). Raises the rule set's
    :class:`CheckError` for a check it would refuse to roll.
    """
    try:
        tag = type(check).__struct_config__.tag
        rs = RULESETS[tag]
    except (AttributeError, KeyError):
        raise CheckError(
            ErrorCode.UNSUPPORTED_SYSTEM, f"odds: {type(check).__name__} is not a check of a known rule set"
        ) from None
    key = (tag, _key(check), None if rules is None else _encode(rules))
    global _cache_bytes
    hit = _cache.get(key)
    if hit is not None:
        return hit[0]
    if rules is None:
        rules = rs.rules
    answer = rs.odds(check, rules)
    size = len(key[1]) + len(key[2] or b"") + len(_encode(answer))
    if size > CACHE_BYTES // 4:
        return answer  # too large to keep
    while _cache and (len(_cache) >= CACHE_SIZE or _cache_bytes + size > CACHE_BYTES):
        # Forget the oldest answer (dicts keep insertion order).
        _cache_bytes -= _cache.pop(next(iter(_cache)))[1]
    _cache[key] = (answer, size)
    _cache_bytes += size
    return answer


def cache_bytes() -> int:
    """Bytes the cached answers take (as encoded), at most :data:`CACHE_BYTES`."""
    return _cache_bytes


def clear_cache(tables: bool = False) -> None:
    """Forget every cached answer, so the next ``odds`` of any check computes it (cold).

    With ``tables``, also forget the tables shared by all checks (combinatorial numbers, per-die-type
    sums, the Feat table as bitmasks), as at start-up.
    """
    global _cache_bytes
    _cache.clear()
    _cache_bytes = 0
    if tables:
        for clear in TABLES:
            clear()


__all__ = ["odds", "describe", "clear_cache", "cache_bytes", "CACHE_SIZE", "CACHE_BYTES"]
