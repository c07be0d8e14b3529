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


@pytest.mark.parametrize("system", SYSTEMS)
def test_no_option_says_none_or_says_its_title_twice(system: str) -> None:
    text = _help("roll", system)
    assert "None" not in text
    for doc in field_docs(RULESETS[system].check_type).values():
        if doc.title and doc.description:
            assert f"{doc.title}. {doc.title}" not in text, doc.title


def _json_examples(system: str) -> dict[str, str]:
    """Each JSON option's example, as its help gives it between the quotes after "e.g."."""
    text = _help("roll", system)
    return dict(re.findall(r"(--[a-z-]+) JSON .*?e\.g\. '([^']*)'", text))


def test_every_json_option_names_its_fields_and_its_example_rolls(capsys: pytest.CaptureFixture[str]) -> None:
    examples = {s: _json_examples(s) for s in SYSTEMS}
    assert set(examples["flairs"]) == {"--group"} and set(examples["boons"]) == {"--opponent"}
    assert '"name" (required)' in _help("roll", "flairs") and '"rank"' in _help("roll", "flairs")
    for system, options in examples.items():
        for option, example in options.items():
            assert "…" not in example, example
            assert main(["roll", system, option, example, "--json"]) == 0, (system, option, example)
            capsys.readouterr()
