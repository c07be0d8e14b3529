"""The fair dice's golden vectors (protocol/vectors/fair-dice.jsonl) are what their generator writes from the
derivation, and hold the cases other clients need: every common die, rejected draws, UTF-8 nonces."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from tests.serving import ROOT

GENERATOR = ROOT / "tools" / "fair_vectors.py"
VECTORS = ROOT / "protocol" / "vectors" / "fair-dice.jsonl"


def _cases() -> list[dict[str, Any]]:
    return [json.loads(line) for line in VECTORS.read_text(encoding="utf-8").splitlines()]


def test_the_file_is_what_the_generator_writes() -> None:
    r = subprocess.run([sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_the_check_fails_on_a_changed_file(tmp_path) -> None:
    # The generator run on a copy of the tree whose file has one face changed says so.
    tools, vectors = tmp_path / "tools", tmp_path / "protocol" / "vectors"
    tools.mkdir()
    vectors.mkdir(parents=True)
    (tools / GENERATOR.name).write_text(GENERATOR.read_text())
    changed = _cases()
    changed[0]["faces"] = [21]
    (vectors / VECTORS.name).write_text(
        "".join(json.dumps(c, ensure_ascii=False, separators=(",", ":")) + "\n" for c in changed), encoding="utf-8"
    )
    r = subprocess.run([sys.executable, str(tools / GENERATOR.name), "--check"], capture_output=True, text=True)
    assert r.returncode == 1 and "fair-dice.jsonl" in r.stderr


def test_the_vectors_hold_rejections_and_the_dice_people_roll() -> None:
    cases = _cases()
    faces = {c["F"] for c in cases}
    assert {1, 2, 3, 4, 6, 8, 10, 12, 20, 100, 256} <= faces
    rejected = [c for c in cases if any(c["k"])]
    assert {c["F"] for c in rejected} == {2**53 + 1, 2**63 + 1}
    assert sum(1 for c in rejected for k in c["k"] if k) >= 5
    assert any(not c["nonce"].isascii() for c in cases)
    assert any(":" in c["nonce"] for c in cases)
    assert any(len(c["client_seed"]) == 64 for c in cases)
    assert all(len(c["faces"]) == len(c["k"]) == c["count"] for c in cases)
