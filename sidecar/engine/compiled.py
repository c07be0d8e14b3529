"""What a rules object implies, worked out once per object.

Rules are frozen msgspec Structs holding tables; hashing one on every call (as an ``lru_cache`` key)
costs more than reading a roll. A rule module keeps its precomputed tables here, found by the rules
object's identity; each entry holds its rules object, so an id is never reused while it is cached.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar


class HoldsRules(Protocol):
    rules: Any


C = TypeVar("C", bound=HoldsRules)


class PerRules(Generic[C]):
    """``per_rules(rules)`` is ``build(rules)``, built once per rules object (at most ``size`` kept)."""

    def __init__(self, build: Callable[[Any], C], size: int = 64) -> None:
        self._build = build
        self._size = size
        self._cache: dict[int, C] = {}

    def __call__(self, rules: Any) -> C:
        comp = self._cache.get(id(rules))
        if comp is None or comp.rules is not rules:
            if len(self._cache) >= self._size:
                self._cache.clear()
            comp = self._cache[id(rules)] = self._build(rules)
        return comp
