"""Error codes are one list: every code the sidecar raises or answers is an ``ErrorCode``, the schema lists
them, and the error classes are one tree taking ``(code, message)``."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from protocol.v1.codec import ProtocolError
from protocol.v1.errors import ErrorCode, VerdictError
from sidecar.cli import CliError
from sidecar.client import RequestFailed
from sidecar.engine import CheckError, DiceError, FollowUpError
from sidecar.state.keys import Refused
from sidecar.state.table import ActionError

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([*(ROOT / "sidecar").rglob("*.py"), *(ROOT / "protocol").rglob("*.py")])
RAISERS = {"CheckError", "DiceError", "FollowUpError", "ActionError", "ProtocolError", "Refused", "CliError", "_error"}
"""Callables whose first (for ``_error``: fourth) argument is a code."""


def _literal(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _codes_in(tree: ast.AST) -> list[tuple[int, str]]:
    """Codes written as string literals: passed to an error, a ``code=`` keyword, a ``{"code": …}`` body."""
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            f = n.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            index = 3 if name == "_error" else 0
            if name in RAISERS and len(n.args) > index and (code := _literal(n.args[index])) is not None:
                out.append((n.lineno, code))
            out += [(n.lineno, c) for k in n.keywords if k.arg == "code" and (c := _literal(k.value)) is not None]
        if isinstance(n, ast.Dict):
            out += [
                (n.lineno, c)
                for k, v in zip(n.keys, n.values)
                if k is not None and _literal(k) == "code" and (c := _literal(v)) is not None
            ]
    return out


def test_every_code_written_in_the_sidecar_is_an_error_code() -> None:
    known = {c.value for c in ErrorCode}
    unknown = [
        f"{path.relative_to(ROOT)}:{line}: {code}"
        for path in SOURCES
        for line, code in _codes_in(ast.parse(path.read_text()))
        if code not in known
    ]
    assert not unknown, unknown


def test_codes_are_named_from_the_enum() -> None:
    """The engine, the state, the server, the protocol and the CLI name their codes as ``ErrorCode.X``, never
    inline."""
    inline = [
        f"{path.relative_to(ROOT)}:{line}: {code}"
        for path in SOURCES
        for line, code in _codes_in(ast.parse(path.read_text()))
    ]
    assert not inline, inline


def test_every_error_code_is_used() -> None:
    text = "\n".join(p.read_text() for p in SOURCES if p.name != "errors.py")
    unused = [c.value for c in ErrorCode if f"ErrorCode.{c.name}" not in text and f'"{c.value}"' not in text]
    assert not unused, unused


def test_the_schema_lists_the_codes() -> None:
    schema = json.loads((ROOT / "protocol/schema/v1.json").read_text())
    text = json.dumps(schema)
    for code in ErrorCode:
        assert f'"{code.value}"' in text, code


@pytest.mark.parametrize("cls", [CheckError, DiceError, FollowUpError, ActionError, ProtocolError, Refused, CliError])
def test_one_tree_one_argument_order(cls: type[VerdictError]) -> None:
    exc = cls(ErrorCode.INVALID_CHECK, "what to fix")
    assert isinstance(exc, VerdictError)
    assert (exc.code, exc.message, str(exc)) == (ErrorCode.INVALID_CHECK, "what to fix", "what to fix")
    with pytest.raises(ValueError):
        cls("no_such_code", "a code outside the list is a bug")


def test_a_failed_request_keeps_the_reply() -> None:
    from protocol.v1 import messages as m

    exc = RequestFailed(m.Error(code=ErrorCode.FORBIDDEN, message="only the GM", id="r1"))
    assert isinstance(exc, VerdictError) and exc.code == "forbidden" and str(exc) == "forbidden: only the GM"
