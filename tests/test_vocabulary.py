"""The module's rule vocabulary (vtt-module/scripts/generated/vocabulary.mjs) is generated from the engine:
the checked-in file is what `make schema` writes, and it says what the engine and the protocol say."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import typing

import msgspec
import pytest

from protocol.v1.facets import FacetsCheck
from protocol.v1.messages import OpenFollowup
from sidecar import vocabulary
from sidecar.engine import gather
from sidecar.engine.registry import EXTENDED, RULESETS


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
    facets = data["systems"]["facets"]
    assert facets["rules"]["max_dice"] == RULESETS["facets"].rules.max_dice
    assert facets["dice"]["size"] == 6
    assert [f["name"] for f in facets["check"]] == [
        f.name for f in msgspec.structs.fields(FacetsCheck) if f.name != "dice"
    ]
    kind = facets["check"][3]
    assert {k: kind[k] for k in ("name", "kind", "default", "options")} == {
        "name": "kind",
        "kind": "select",
        "default": "obstacle",
        "options": ["obstacle", "opposition", "interpersonal", "mystical"],
    }
    assert data["systems"]["flairs"]["rules"]["max_lurking"] == RULESETS["flairs"].rules.max_lurking
    assert data["systems"]["boons"]["dice"]["sizes"] == {"ability": 8, "boon": 6, "bane": 6, "trial": 8, "crisis": 12}
    assert data["systems"]["challenge"]["gmFollowups"] == ["challenge_remove_complication"]
    for name, rs in RULESETS.items():
        outcome = typing.get_type_hints(rs.result_type)["outcome"]
        assert set(data["systems"][name]["outcomes"]) == set(typing.get_args(outcome)), name


def _paths(template: str) -> list[str]:
    return [m.split("|")[0] for m in re.findall(r"\{([^}]+)\}", template)]


def _resolves(struct: type, path: str) -> bool:
    """Does a fact's path name fields of the result Struct (``a.b`` into nested Structs, ``a[].b`` into lists)?"""
    tp: typing.Any = struct
    for part in path.split("."):
        name = part.removesuffix("[]")
        bare, _ = vocabulary._bare(tp)
        if typing.get_origin(bare) is list:
            bare, _ = vocabulary._bare(typing.get_args(bare)[0])
        if not (isinstance(bare, type) and issubclass(bare, msgspec.Struct)):
            return False
        hints = typing.get_type_hints(bare)
        if name not in hints:
            return False
        tp = hints[name]
    return True


def test_every_check_field_says_what_it_is_on_its_struct():
    """Described once, on the Struct: the title and description reach the schema, the CLI and the dialog."""
    for name in RULESETS:
        for f in _data()["systems"][name]["check"]:
            assert f.get("description"), f"{name}.{f['name']} has no description"
        for spec in _data()["systems"][name]["dialog"]:
            assert spec["label"] and spec["label"] != spec["name"], f"{name}.{spec['name']} has no title"


def test_each_card_draws_fields_and_results_the_structs_have():
    data = _data()
    for name, rs in RULESETS.items():
        system = data["systems"][name]
        assert set(system["tones"]) == set(system["outcomes"]), name
        assert all(t in {"great", "good", "mixed", "bad", "dire"} for t in system["tones"].values()), name
        fields = {f["name"] for f in system["check"]}
        for spec in system["dialog"]:
            assert spec.get("wire") is False or spec.get("group", spec["name"]) in fields, (name, spec["name"])
        for fact in system["facts"]:
            base: typing.Any = rs.result_type
            if "each" in fact:
                assert _resolves(base, fact["each"]), (name, fact)
                base = vocabulary._bare(typing.get_type_hints(base)[fact["each"]])[0]
                base = vocabulary._bare(typing.get_args(base)[0])[0]
            texts = fact.get("text", [])
            paths = [p for t in ([texts] if isinstance(texts, str) else texts) for p in _paths(t)]
            paths += _paths(fact.get("value_key", ""))
            paths += [fact[k] for k in ("when", "sign") if k in fact]
            tone = fact.get("tone")
            if isinstance(tone, dict):
                paths.append(tone.get("of") or tone["sign"])
            for path in paths:
                assert _resolves(base, path), f"{name}: {path} is not a field of {base.__name__}"
        for key in ("read", "read_max_of", "removed", "types", "symbols", "bought"):
            if key in system["dice"]:
                assert _resolves(rs.result_type, system["dice"][key]), (name, key)


def test_how_checks_gather_is_what_the_engine_gathers():
    data = _data()
    gathered = {n for n, s in data["systems"].items() if s["gather"]}
    assert gathered == {n for n, rs in RULESETS.items() if type(rs).parts is not type(RULESETS["facets"]).parts}
    for name in gathered:
        g = data["systems"][name]["gather"]
        rs = RULESETS[name]
        if g["kind"] == "group":
            part = {f: 1 for f in g["part"]}
            check = rs.check_type(**{g["field"]: [{"name": "Ash", **part}, {"name": "Bree", **part}]})
            check = msgspec.convert(msgspec.to_builtins(check), rs.check_type)
            assert [n for n, _ in gather.parts(check)] == ["Ash", "Bree"]
            assert _resolves(rs.result_type, g["results"] + "[].name")
        else:
            nested = {side["from"]: {} for side in g["sides"].values() if "from" in side}
            check = msgspec.convert({"system": name, **nested}, rs.check_type)
            assert [n for n, _ in gather.parts(check)] == list(g["sides"])
            assert _resolves(rs.result_type, g["net"])
    assert data["extended"] == list(EXTENDED)
    for name in EXTENDED:
        fields = {f["name"] for f in data["systems"][name]["check"]}
        joins = data["systems"][name]["extended"]
        assert set(joins["fill"]) <= fields and set(joins["start"]) <= fields


def test_the_followups_are_a_union_tagged_by_action():
    data = _data()["followups"]
    for rs in RULESETS.values():
        for action in rs.followups:
            tag = action.__struct_config__.tag
            assert data[tag]["system"] == rs.name
            assert data[tag]["gm"] == (action in rs.gm_followups)
            assert [p["name"] for p in data[tag]["params"]] == [f.encode_name for f in msgspec.structs.fields(action)]
    # every field of an open follow-up serves a parameter of a follow-up that exists (or the next roll)
    open_fields = {f.name for f in msgspec.structs.fields(OpenFollowup)} - {"action", "gm"}
    served = {p.get(k) for d in data.values() for p in d["params"] for k in ("offered", "most", "count")}
    served |= {d["roll"] for d in data.values() if "roll" in d}
    assert open_fields == served - {None}
    # the card offers each one some way (see card-model.mjs offerOf)
    for tag, d in data.items():
        params = d["params"]
        assert (
            d.get("roll")
            or any(p.get("from") for p in params)
            or any(p["many"] and p.get("most") for p in params)
            or any(p["required"] and p.get("offered") for p in params)
            or all(not p["required"] for p in params)
        ), tag


def test_what_a_check_spends_names_the_actors_field_and_the_odds_field():
    data = _data()
    spending = {name: s["spends"] for name, s in data["systems"].items() if s["spends"]}
    assert spending == {"feats": {"resource": "wyrd", "cost": "cost", "title": "Wyrd cost"}}
    rs = RULESETS["feats"]
    for wrong, said in (
        ({"resource": "mana", "cost": "cost"}, "ActorState"),
        ({"resource": "wyrd", "cost": "price"}, "FeatsOdds"),
    ):
        bad = copy.copy(rs)
        bad.card = dataclasses.replace(rs.card, spends=wrong)
        with pytest.raises(TypeError, match=said):
            vocabulary.spends(bad)


def test_each_dialog_bound_lies_within_the_wire_bound_of_its_field():
    """The module's dialog bounds a field by its card's ``min``/``max``, else by the Struct's (``limits.py``): a
    card never offers what the protocol refuses, and every bounded field of a check carries its bounds."""
    data = _data()
    for name, rs in RULESETS.items():
        wire = {f["name"]: f for f in data["systems"][name]["check"]}
        for field in msgspec.structs.fields(rs.check_type):
            bounds = vocabulary.bounds_of(field.type)
            if field.name != "dice" and vocabulary.kind_of(field.type) in ("int", "optint"):
                assert "min" in bounds and "max" in bounds, (name, field.name)
                assert {k: wire[field.name][k] for k in ("min", "max")} == bounds, (name, field.name)
        for spec in data["systems"][name]["dialog"]:
            field = wire.get(spec.get("group") or spec["name"])
            if field is None or spec.get("group") or "min" not in field:
                continue
            assert field["min"] <= spec.get("min", field["min"]) <= spec.get("max", field["max"]) <= field["max"], (
                name,
                spec["name"],
            )
