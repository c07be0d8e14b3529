"""`verdict roll|read|odds <rule set> --help` says what each option is, in the words its Struct says once."""

from __future__ import annotations

import contextlib
import io
import re

import msgspec
import pytest

from protocol.v1.systems import SYSTEMS
from sidecar.cli import main
from sidecar.engine.registry import RULESETS
from sidecar.vocabulary import field_docs


def _help(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main([*argv, "--help"])
    return " ".join(out.getvalue().split())  # argparse wraps lines as the terminal is wide


def test_a_rank_is_explained_and_the_lurking_trials_are_named() -> None:
    text = _help("roll", "flairs")
    assert re.search(r"--rank N Skill rank\. The character's rank in the skill", text)
    assert "each one of: costly, slow, loud, harmful, foolish, chaotic" in text
    assert "Literal" not in text


@pytest.mark.parametrize("command", ["roll", "read", "odds"])
@pytest.mark.parametrize("system", SYSTEMS)
def test_every_option_carries_its_fields_description(command: str, system: str) -> None:
    text = _help(command, system)
    check = RULESETS[system].check_type
    docs = field_docs(check)
    for f in msgspec.structs.fields(check):
        if f.name == "dice" and command != "read":
            continue
        description = docs[f.name].description
        assert description and " ".join(description.split()) in text, f"{system}.{f.name}"
