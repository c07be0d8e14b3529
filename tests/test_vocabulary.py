"""The module's rule vocabulary (vtt-module/scripts/generated/vocabulary.mjs) is generated from the engine:
the checked-in file is what `make schema` writes, and it says what the engine and the protocol say."""

from __future__ import annotations

import json
import typing

import msgspec

from protocol.v1.facets import FacetsCheck
from protocol.v1.flairs import FlairsFlair, FlairsTrialName
from sidecar import vocabulary
from sidecar.engine.registry import RULESETS


def _data() -> dict:
    text = vocabulary.VOCABULARY_PATH.read_text()
    body = text[text.index("({") + 1 : text.rindex(");")]
    return json.loads(body)


def test_vocabulary_is_current():
    assert vocabulary.VOCABULARY_PATH.read_text() == vocabulary.source(), (
        "run `make schema` and commit vtt-module/scripts/generated/vocabulary.mjs"
    )


def test_vocabulary_says_what_the_engine_says():
    data = _data()
    assert list(data["systems"]) == list(RULESETS)
    assert data["trials"] == list(typing.get_args(FlairsTrialName))
    assert data["flairs"] == list(typing.get_args(FlairsFlair))
    facets = data["systems"]["facets"]
    assert facets["rules"]["max_dice"] == RULESETS["facets"].rules.max_dice
    assert facets["dice"] == {"size": 6}
    assert [f["name"] for f in facets["check"]] == [
        f.name for f in msgspec.structs.fields(FacetsCheck) if f.name != "dice"
    ]
    assert facets["check"][3] == {
        "name": "kind",
        "default": "obstacle",
        "options": ["obstacle", "opposition", "interpersonal", "mystical"],
    }
    assert data["systems"]["flairs"]["rules"]["max_lurking"] == RULESETS["flairs"].rules.max_lurking
    assert data["systems"]["boons"]["dice"]["sizes"] == {"ability": 8, "boon": 6, "bane": 6, "trial": 8, "crisis": 12}
    assert data["systems"]["challenge"]["gmFollowups"] == ["challenge_remove_complication"]
    for name, rs in RULESETS.items():
        outcome = typing.get_type_hints(rs.result_type)["outcome"]
        assert set(data["systems"][name]["outcomes"]) == set(typing.get_args(outcome)), name
