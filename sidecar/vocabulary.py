"""The Foundry module's rule vocabulary, generated from the engine: ``python -m sidecar.vocabulary``.

The module draws checks, cards and odds but decides no rule and names no rule set: everything it must know of
one is written here from the engine's rule sets (:data:`~sidecar.engine.registry.RULESETS`, each with its
:class:`~sidecar.engine.ruleset.Card`) and the protocol's Structs into
``vtt-module/scripts/generated/vocabulary.mjs``, which the module imports:

- per rule set: its outcomes and their tones; the check's fields as the Struct declares them (wire default,
  options, kind, bounds, and the title and description written once on the Struct); the dialog's fields
  (presets, bounds: the card's, else the Struct's; which show for which kind of check); its dice (sizes, faces, how they are marked); the facts a card
  shows; its numbers (the dice limits and the rest of its rules); whether and how its checks gather several
  people's rolls; whether they can be extended, and how a roll joins one; what a check spends of the actor's
  resources (the dialog shows the cost beside the odds);
- the follow-ups, as a union tagged by the action: whose each is, its parameters (their values and labels) and
  which field of the open follow-up offers them;
- per rule set, its ``drawing`` (:mod:`sidecar.engine.drawing`): how the tracker, the tokens and the sheet
  section draw its part of the table's state, checked here against the table's Structs (each field drawn is a
  field of the actor's or the scene's state, of the kind drawn; each control's op is a GM op of the protocol,
  each argument one of its fields), so that a drawing that names what the table lacks fails when the
  vocabulary is written, not in a browser.

``make schema`` runs it beside the schema; a test fails when the checked-in file differs from what this
produces.
"""

from __future__ import annotations

import argparse
import json
import re
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from protocol.v1.messages import OpenFollowup
from protocol.v1.table import OPS, ActorState, SceneState
from sidecar.engine.drawing import Control, Drawing, Flag, Items, Number
from sidecar.engine.registry import EXTENDED, RULESETS
from sidecar.engine.ruleset import EXTENDED_NEXT, RuleSet

VOCABULARY_PATH = Path(__file__).resolve().parents[1] / "vtt-module" / "scripts" / "generated" / "vocabulary.mjs"


class FieldDoc(typing.NamedTuple):
    """What a Struct's field says of itself (its ``msgspec.Meta``): a short title, a description, extras."""

    title: str | None
    description: str | None
    extra: Mapping[str, Any]


def field_docs(struct: type) -> dict[str, FieldDoc]:
    """Each field's :class:`FieldDoc`, by field name (``None``s for a field that says nothing)."""
    hints = typing.get_type_hints(struct, include_extras=True)
    out: dict[str, FieldDoc] = {}
    for name, tp in hints.items():
        title = description = None
        extra: dict[str, Any] = {}
        for meta in getattr(tp, "__metadata__", ()):
            if isinstance(meta, msgspec.Meta):
                title = meta.title or title
                description = meta.description or description
                extra.update(meta.extra or {})
        out[name] = FieldDoc(title, description, extra)
    return out


def _bare(tp: Any) -> tuple[Any, bool]:
    """(the type without ``Annotated`` and ``None``, whether ``None`` was allowed)."""
    while typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            inner, _ = _bare(args[0])
            return inner, True
    return tp, False


def _literal(tp: Any) -> list[str] | None:
    """The values of a ``Literal`` (or an optional one, or a list of one), else ``None``."""
    tp, _ = _bare(tp)
    if typing.get_origin(tp) is typing.Literal:
        return [str(v) for v in typing.get_args(tp)]
    if typing.get_origin(tp) is list:
        return _literal(typing.get_args(tp)[0])
    return None


def _is_struct(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, msgspec.Struct)


def kind_of(tp: Any) -> str:
    """How a field is entered: ``int``, ``optint`` (may be unset), ``bool``, ``text``, ``select`` (one of the
    options), ``multi`` (some of them), ``intlist``, ``group`` (a nested Struct), ``list`` (of Structs)."""
    bare, optional = _bare(tp)
    if bare is bool:
        return "bool"
    if bare is int:
        return "optint" if optional else "int"
    if bare is str:
        return "text"
    if typing.get_origin(bare) is typing.Literal:
        return "select"
    if typing.get_origin(bare) is list:
        (item,) = typing.get_args(bare)
        item, _ = _bare(item)
        if typing.get_origin(item) is typing.Literal:
            return "multi"
        if item is int:
            return "intlist"
        if _is_struct(item):
            return "list"
    if _is_struct(bare):
        return "group"
    raise TypeError(f"no way to enter a field of type {tp!r}")


def bounds_of(tp: Any) -> dict[str, int]:
    """The bounds the Struct declares on a field (``protocol/v1/limits.py``): ``min`` and ``max`` of a number,
    ``maxLength`` of a text, ``maxItems`` of a list (and ``itemMin``/``itemMax`` of its numbers), through the
    field's ``Annotated`` layers and an optional ``None``."""
    out: dict[str, int] = {}

    def metas(t: Any) -> tuple[Any, list[msgspec.Meta]]:
        found: list[msgspec.Meta] = []
        while True:
            if typing.get_origin(t) is typing.Annotated:
                found += [m for m in getattr(t, "__metadata__", ()) if isinstance(m, msgspec.Meta)]
                t = typing.get_args(t)[0]
            elif typing.get_origin(t) in (typing.Union, types.UnionType):
                args = [a for a in typing.get_args(t) if a is not type(None)]
                if len(args) != 1:
                    return t, found
                t = args[0]
            else:
                return t, found

    bare, found = metas(tp)
    for meta in found:
        if meta.ge is not None:
            out["min"] = int(meta.ge)
        if meta.le is not None:
            out["max"] = int(meta.le)
        if meta.max_length is not None:
            out["maxItems" if typing.get_origin(bare) is list else "maxLength"] = meta.max_length
    if typing.get_origin(bare) is list:
        _, inner = metas(typing.get_args(bare)[0])
        for meta in inner:
            if meta.ge is not None:
                out["itemMin"] = int(meta.ge)
            if meta.le is not None:
                out["itemMax"] = int(meta.le)
    return out


def _default(f: msgspec.structs.FieldInfo) -> tuple[bool, Any]:
    if f.default is not msgspec.NODEFAULT:
        return True, msgspec.to_builtins(f.default)
    if f.default_factory is not msgspec.NODEFAULT:
        return True, msgspec.to_builtins(f.default_factory())
    return False, None


def _field(f: msgspec.structs.FieldInfo, doc: FieldDoc) -> dict[str, Any]:
    out: dict[str, Any] = {"name": f.encode_name, "kind": kind_of(f.type)}
    has, default = _default(f)
    if has:
        out["default"] = default
    options = _literal(f.type)
    if options is not None:
        out["options"] = options
    out.update(bounds_of(f.type))
    if doc.title:
        out["title"] = doc.title
    if doc.description:
        out["description"] = doc.description
    return out


def check_fields(struct: type) -> list[dict[str, Any]]:
    """A Struct's fields as the vocabulary writes them, in the Struct's order (its wire order)."""
    docs = field_docs(struct)
    return [_field(f, docs[f.name]) for f in msgspec.structs.fields(struct)]


def _outcomes(result_type: type) -> list[str]:
    found = _literal(typing.get_type_hints(result_type)["outcome"])
    if found is None:
        raise TypeError(f"{result_type.__name__}.outcome is not a Literal")
    return found


def _dice(rules: Any) -> dict[str, Any]:
    """The dice a rule set rolls: one size, or a size per die type (with the faces where they carry symbols)."""
    raw = msgspec.to_builtins(rules)
    if "faces" in raw and isinstance(raw["faces"], dict):
        return {"sizes": {t: len(f) for t, f in raw["faces"].items()}, "faces": raw["faces"]}
    return {"size": raw.get("sides", 6)}


def _spec(field: Mapping[str, Any], opts: Mapping[str, Any], when: dict[str, list[str]] | None) -> dict[str, Any]:
    """One field of the dialog: the Struct's field, as the rule set's card presents it."""
    spec: dict[str, Any] = {"name": field["name"], "type": field["kind"]}
    spec["default"] = opts["preset"] if "preset" in opts else field.get("default")
    for bound in ("min", "max"):
        if bound in opts:
            spec[bound] = opts[bound]
        elif bound in field:  # the wire's own bound, where the card sets none
            spec[bound] = field[bound]
    if "options" in field:
        spec["options"] = field["options"]
    if when:
        spec["when"] = when
    spec["label"] = opts.get("title") or field.get("title") or field["name"]
    if field.get("description"):
        spec["hint"] = field["description"]
    for mark in ("gm", "choices"):  # the GM's secret to set; a choice among the scene's open entries of a list
        if mark in opts:
            spec[mark] = opts[mark]
    return spec


def dialog(rs: RuleSet[Any, Any]) -> list[dict[str, Any]]:
    """The roll dialog's fields of a rule set, in the Struct's order: what its card lists, or else every field
    that has a title."""
    fields = {f["name"]: f for f in check_fields(rs.check_type)}
    card = rs.card
    kinds = card.kinds
    out: list[dict[str, Any]] = []

    def when(name: str) -> dict[str, list[str]] | None:
        if kinds is None:
            return None
        shown = [k for k, names in kinds["options"].items() if name in names]
        return {kinds["name"]: shown} if shown else None

    if kinds is not None:
        options = list(kinds["options"])
        out.append(
            {
                "name": kinds["name"],
                "type": "select",
                "default": options[0],
                "wire": False,
                "options": options,
                "label": kinds["title"],
            }
        )
    listed = card.dialog or tuple((n, {}) for n, f in fields.items() if n != "dice" and f.get("title"))
    for name, opts in listed:
        field = fields[name]
        if "group" in opts:
            hints = typing.get_type_hints(rs.check_type)
            nested, _ = _bare(hints[name])
            inner = {f["name"]: f for f in check_fields(nested)}
            for sub, sub_opts in opts["group"].items():
                spec = _spec(inner[sub], sub_opts, when(name))
                spec["name"] = f"{name}_{sub}"
                spec["group"] = name
                out.append(spec)
            continue
        out.append(_spec(field, opts, when(name)))
    return out


def followups() -> dict[str, Any]:
    """Every follow-up by its tag (a union tagged by ``action``): the rule set whose it is, whether it is the
    GM's, its parameters (with their values and the i18n key of each value's label, ``{value}`` standing for it) and which field of an open
    follow-up (``OpenFollowup``) offers each parameter's values (``offered``), bounds how many (``most``) or says
    how many are still to be named (``count``)."""
    carried: dict[str, dict[str, dict[str, str]]] = {}
    for name, doc in field_docs(OpenFollowup).items():
        for role in ("offers", "most", "count", "roll"):
            for tag, served in doc.extra.get(role, {}).items():
                carried.setdefault(tag, {}).setdefault(served, {})[role] = name
    out: dict[str, Any] = {}
    for rs in RULESETS.values():
        for action in rs.followups:
            tag = str(action.__struct_config__.tag)
            docs = field_docs(action)
            params = []
            for f in msgspec.structs.fields(action):
                doc = docs[f.name]
                has, _ = _default(f)
                param: dict[str, Any] = {"name": f.encode_name, "required": not has, "many": kind_of(f.type) == "multi"}
                values = _literal(f.type)
                if values is not None:
                    param["values"] = values
                if "label" in doc.extra:
                    param["label"] = doc.extra["label"]
                if "from" in doc.extra:
                    param["from"] = doc.extra["from"]
                if doc.description:
                    param["description"] = doc.description
                for role, serving in carried.get(tag, {}).get(f.encode_name, {}).items():
                    param["offered" if role == "offers" else role] = serving
                params.append(param)
            out[tag] = {"system": rs.name, "gm": action in rs.gm_followups, "params": params}
    (next_roll,) = carried[EXTENDED_NEXT].values()
    out[EXTENDED_NEXT] = {"system": None, "gm": False, "params": [], "roll": next_roll["roll"]}
    return out


def spends(rs: RuleSet[Any, Any]) -> dict[str, str] | None:
    """What a check of this rule set spends of the actor's resources (:attr:`Card.spends`), or ``None``: the
    actor's field and the odds' field it names are checked here, so a card that names a field the table or the
    odds do not have fails when the vocabulary is written, not in a browser."""
    spent = rs.card.spends
    if spent is None:
        return None
    resource, cost = str(spent["resource"]), str(spent["cost"])
    actor = {f.name: f.type for f in msgspec.structs.fields(ActorState)}
    if actor.get(resource) is not int:
        raise TypeError(f"{rs.name}: the card spends {resource!r}, which is no whole-number field of ActorState")
    odds: Any = typing.get_type_hints(type(rs).odds).get("return")
    if _is_struct(odds) and typing.get_type_hints(odds).get(cost) is not int:
        raise TypeError(f"{rs.name}: the card's cost {cost!r} is no whole-number field of {odds.__name__}")
    return {"resource": resource, "cost": cost, "title": str(spent.get("title") or resource)}


def vocabulary() -> dict[str, Any]:
    systems: dict[str, Any] = {}
    for name, rs in RULESETS.items():
        card = rs.card
        outcomes = _outcomes(rs.result_type)
        systems[name] = {
            "outcomes": outcomes,
            "tones": {o: card.tones.get(o, "neutral") for o in outcomes},
            "check": [f for f in check_fields(rs.check_type) if f["name"] != "dice"],
            "dialog": dialog(rs),
            "dice": {**_dice(rs.rules), **card.dice},
            "facts": list(card.facts),
            "rules": msgspec.to_builtins(rs.rules),
            "followups": [a.__struct_config__.tag for a in rs.followups],
            "gmFollowups": [a.__struct_config__.tag for a in rs.gm_followups],
            "gather": card.gather,
            "extended": card.extended if rs.extended else None,
            "spends": spends(rs),
            "drawing": drawing(rs),
        }
    return {
        "systems": systems,
        "extended": list(EXTENDED),
        "followups": followups(),
    }


def drawing_of(rs: RuleSet[Any, Any]) -> Drawing | None:
    """The rule set's :class:`Drawing` (:attr:`RuleSet.drawing`), or ``None`` for one that draws no state."""
    return rs.drawing


def _state_fields(struct: type) -> dict[str, Any]:
    return {f.encode_name: _bare(f.type)[0] for f in msgspec.structs.fields(struct)}


def _check_control(name: str, control: Control, ops: Mapping[str, type]) -> None:
    op = ops.get(control.op)
    if op is None:
        raise TypeError(f"{name}: the control {control.action!r} sends {control.op!r}, which is no GM op")
    fields = {f.encode_name for f in msgspec.structs.fields(op)}
    for arg in control.args:
        if arg.name not in fields:
            raise TypeError(f"{name}: the control {control.action!r} binds {arg.name!r}, no field of {control.op!r}")


def drawing(rs: RuleSet[Any, Any]) -> dict[str, Any] | None:
    """The rule set's drawing as the vocabulary writes it (``None`` for a rule set that draws no state)."""
    drawn = drawing_of(rs)
    if drawn is None:
        return None
    result = {f.encode_name for f in msgspec.structs.fields(rs.result_type)}
    for mark in drawn.marks:
        if mark not in result:
            raise TypeError(f"{rs.name}: the drawing marks {mark!r}, no field of {rs.result_type.__name__}")
    dice = {**_dice(rs.rules), **rs.card.dice}
    painted = {*dice.get("sizes", {}), *dice.get("colours", ())}
    for die, paint in drawn.dice.items():
        if die not in painted:
            raise TypeError(f"{rs.name}: the drawing paints {die!r}, no die type or colour of its checks")
        if not all(re.fullmatch(r"#[0-9a-fA-F]{3,8}", c) for c in (paint.background, paint.colour)):
            raise TypeError(f"{rs.name}: the drawing paints {die!r} in {paint!r}: colours are #rrggbb")
    actor, scene = _state_fields(ActorState), _state_fields(SceneState)
    ops = {str(typing.cast("type[msgspec.Struct]", op).__struct_config__.tag): op for op in OPS}
    for part in drawn.parts:
        where = [actor] if not isinstance(part, Items) else [actor if on == "actor" else scene for on in part.on]
        want: Any = int if isinstance(part, Number) else bool if isinstance(part, Flag) else list
        for state in where:
            tp = state.get(part.field)
            if tp is None or (tp is not want and typing.get_origin(tp) is not want):
                raise TypeError(
                    f"{rs.name}: the drawing's {part.field!r} is no {want.__name__} field of the table's state"
                )
        controls = [*part.controls, *([part.add.control] if isinstance(part, Items) and part.add else [])]
        for control in controls:
            _check_control(rs.name, control, ops)
    return typing.cast(dict[str, Any], msgspec.to_builtins(drawn))


def source() -> str:
    body = json.dumps(vocabulary(), indent=2)
    return (
        "// The rule vocabulary of the engine, for the module: generated by `make schema` (python -m sidecar.vocabulary)\n"
        "// from the engine's rule sets and the protocol's Structs. Do not edit: a test fails when it drifts.\n"
        f"export const VOCABULARY = /** @type {{const}} */ ({body});\n"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m sidecar.vocabulary", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=VOCABULARY_PATH, help="where to write it (default: the module's)")
    out: Path = parser.parse_args(argv).out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(source())
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
