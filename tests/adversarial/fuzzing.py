"""The seeded frame fuzzer: mutated golden vectors and hostile shapes, encoded mostly well.

No pytest here: the adversarial tests and ``bench.hostile`` both send its frames.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import msgspec

from protocol.v1 import messages as m

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
CLIENT_VECTORS = [
    json.loads(p.read_text())
    for p in sorted(VECTORS.glob("*.json"))
    if json.loads(p.read_text()).get("type") in {t.__struct_config__.tag for t in m.CLIENT_TYPES}
]
FIELD_NAMES = [
    "type",
    "id",
    "check",
    "system",
    "pool",
    "dice",
    "user",
    "key",
    "table",
    "op",
    "action",
    "mode",
    "label",
    "since",
    "protocol",
    "rank",
    "cl",
    "group",
    "seqs",
    "count",
]

SHAPES: list[object] = [
    {"type": [1]},
    {"type": {}},
    {"type": 1},
    {"type": None},
    {"type": True},
    {"type": "roll", "id": ["x"]},
    {"type": "ping", "id": "deep", "x": json.loads("[" * 900 + "]" * 900)},
    {"type": "roll", "id": "big", "check": {"system": "facets", "pool": 2**70}},
    {"type": "roll", "id": "u64", "check": {"system": "facets", "pool": 2**63 + 5}},
    {"type": "roll", "id": "neg", "check": {"system": "challenge", "cl": -(2**64)}},
    {"type": "gm", "id": "g", "op": {"op": "strain_set", "actor": "A", "strain": 2**64}},
    {"type": "roll", "id": "long", "label": "x" * 5000, "check": {"system": "facets", "pool": 1}},
    {"type": "gm", "id": "t", "op": {"op": "complication_add", "scene": "S", "text": "y" * 5000}},
    [],
    1,
    "str",
    None,
    {"type": "hello", "table": 1, "key": None},
]


def rand_value(rng: random.Random, depth: int = 0) -> object:
    kind = rng.randrange(10 if depth < 4 else 6)
    if kind == 0:
        return rng.choice([0, -1, 1, 2**31, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**30, rng.randint(-9, 99)])
    if kind == 1:
        return rng.choice(
            [
                "",
                "roll",
                "hello",
                "facets",
                "\u0000",
                "\ud7ff" * 3,
                "é" * rng.randint(0, 40),
                "x" * rng.choice([1, 1100]),
            ]
        )
    if kind == 2:
        return rng.choice([True, False, None])
    if kind == 3:
        return rng.choice([0.5, -1e308, 1e308, 3.0])
    if kind in (4, 5):
        return rng.choice(FIELD_NAMES)
    if kind in (6, 7):
        return [rand_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(FIELD_NAMES): rand_value(rng, depth + 1) for _ in range(rng.randint(0, 5))}


def mutate(rng: random.Random, obj: object) -> object:
    if isinstance(obj, dict) and obj:
        obj = dict(obj)
        key = rng.choice(list(obj))
        action = rng.randrange(4)
        if action == 0:
            del obj[key]
        elif action == 1:
            obj[key] = rand_value(rng)
        elif action == 2:
            obj[key] = mutate(rng, obj[key])
        else:
            obj[rng.choice(FIELD_NAMES)] = rand_value(rng)
        return obj
    if isinstance(obj, list) and obj:
        obj = list(obj)
        obj[rng.randrange(len(obj))] = rand_value(rng)
        return obj
    return rand_value(rng)


def frames(seed: int, n: int) -> list[object]:
    rng = random.Random(seed)
    out: list[object] = list(SHAPES)
    while len(out) < n:
        base = rng.choice(CLIENT_VECTORS)
        obj: object = base
        for _ in range(rng.randint(1, 3)):
            obj = mutate(rng, obj)
        if rng.random() < 0.1:
            obj = rand_value(rng)
        out.append(obj)
    return out


def encode(obj: object, msgpack: bool, rng: random.Random) -> str | bytes:
    """Mostly well-formed frames of the socket's encoding; some of the other one, some broken bytes."""
    r = rng.random()
    try:
        good = msgspec.msgpack.encode(obj) if msgpack else json.dumps(obj)
    except (OverflowError, ValueError, TypeError):
        good = json.dumps(obj) if msgpack else msgspec.msgpack.encode({"type": "ping"})
    if r < 0.05:  # the wrong frame type for this subprotocol
        return good.decode("latin-1") if isinstance(good, bytes) else good.encode()
    if r < 0.1:
        raw = good if isinstance(good, bytes) else good.encode()
        raw = raw[: rng.randrange(len(raw) + 1)]
        return raw if msgpack else raw.decode("utf-8", "replace")
    return good
