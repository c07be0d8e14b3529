"""The module's JSDoc types of protocol v1, written from ``protocol/schema/v1.json``: ``python -m protocol.typedefs``.

Each ``$defs`` entry becomes a ``@typedef`` whose ``@property`` lines are its fields (a field the schema does not
require is optional); each tagged union the schema spells inline (a check, a result, an event, a GM op, a
follow-up action, odds) becomes a typedef of its own, named as the Python side names such unions (``AnyEvent``,
``AnyOp``, ...) after the field that holds it; the two message unions are ``AnyClientMessage`` and
``AnyServerMessage``. The module type-checks what it sends and receives against them (``tsc --checkJs``);
nothing of it runs: the file exports no value.

``make schema`` runs it after the schema is written; a test fails when the checked-in file differs from what this
produces.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "v1.json"
TYPEDEFS_PATH = Path(__file__).resolve().parents[1] / "vtt-module" / "scripts" / "generated" / "protocol.mjs"

Schema = Mapping[str, Any]


def _pascal(words: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", words) if part)


def _ref_name(ref: str) -> str:
    prefix = "#/$defs/"
    if not ref.startswith(prefix):
        raise ValueError(f"a reference outside $defs: {ref}")
    return ref[len(prefix) :]


def _members(node: Schema) -> tuple[str, ...] | None:
    """The definitions a tagged union joins (a ``discriminator`` over ``$ref``s), else ``None``."""
    if "discriminator" not in node:
        return None
    refs = [m.get("$ref") for m in node.get("anyOf", ())]
    if not refs or not all(isinstance(r, str) for r in refs):
        return None
    return tuple(_ref_name(str(r)) for r in refs)


def _fields(definition: Schema) -> Iterator[tuple[str, Schema]]:
    yield from sorted(definition.get("properties", {}).items())


def _walk(node: Any) -> Iterator[Schema]:
    """Every schema object under ``node`` (``node`` first)."""
    if isinstance(node, Mapping):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def union_names(schema: Schema) -> dict[tuple[str, ...], str]:
    """A name for each tagged union the schema spells inline: ``Any`` and the field that holds it where it first
    appears (definitions and fields in name order), that and the definition's name when the short name is taken
    by another union or a definition."""
    defs: Mapping[str, Schema] = schema["$defs"]
    names: dict[tuple[str, ...], str] = {}
    taken = set(defs)
    for def_name, definition in sorted(defs.items()):
        for field, spec in _fields(definition):
            for node in _walk(spec):
                members = _members(node)
                if members is None or members in names:
                    continue
                name = f"Any{_pascal(field)}"
                if name in taken:
                    name = f"Any{def_name}{_pascal(field)}"
                if name in taken:
                    raise ValueError(f"two unions named {name}")
                names[members] = name
                taken.add(name)
    return names


def type_of(node: Schema, unions: Mapping[tuple[str, ...], str]) -> str:
    """The TypeScript type (as JSDoc writes it) of one schema node."""
    if "$ref" in node:
        return _ref_name(str(node["$ref"]))
    members = _members(node)
    if members is not None and members in unions:
        return unions[members]
    if "anyOf" in node:
        return _join(type_of(m, unions) for m in node["anyOf"])
    if "enum" in node:
        return _join(json.dumps(v) for v in node["enum"])
    if "const" in node:
        return json.dumps(node["const"])
    kind = node.get("type")
    if isinstance(kind, list):
        return _join(type_of({**node, "type": k}, unions) for k in kind)
    if kind == "string":
        return "string"
    if kind in ("integer", "number"):
        return "number"
    if kind == "boolean":
        return "boolean"
    if kind == "null":
        return "null"
    if kind == "array":
        if "prefixItems" in node:
            return "[" + ", ".join(type_of(m, unions) for m in node["prefixItems"]) + "]"
        item = type_of(node.get("items", {}), unions)
        return f"Array<{item}>"
    if kind == "object":
        values = node.get("additionalProperties")
        if isinstance(values, Mapping):
            return f"Record<string, {type_of(values, unions)}>"
        return "Record<string, unknown>"
    return "unknown"


def _join(types: Iterable[str]) -> str:
    seen: list[str] = []
    for t in types:
        if t not in seen:
            seen.append(t)
    return "|".join(seen) if seen else "never"


def _prose(text: str) -> str:
    """A schema description as one JSDoc line: reStructuredText's literals as Markdown's, no comment end."""
    text = re.sub(r"``([^`]+)``", r"`\1`", " ".join(text.split()))
    return text.replace("*/", "*\\/")


def _typedef(name: str, definition: Schema, unions: Mapping[tuple[str, ...], str]) -> list[str]:
    lines = ["/**"]
    if definition.get("description"):
        lines.append(f" * {_prose(str(definition['description']))}")
    if "properties" not in definition:
        lines += [f" * @typedef {{{type_of(definition, unions)}}} {name}", " */"]
        return lines
    lines.append(f" * @typedef {{object}} {name}")
    required = set(definition.get("required", ()))
    for field, spec in _fields(definition):
        slot = field if field in required else f"[{field}]"
        line = f" * @property {{{type_of(spec, unions)}}} {slot}"
        if spec.get("description"):
            line += f" {_prose(str(spec['description']))}"
        lines.append(line)
    lines.append(" */")
    return lines


def source(schema: Schema | None = None) -> str:
    """The text of ``generated/protocol.mjs`` for ``schema`` (the checked-in schema by default)."""
    if schema is None:
        schema = json.loads(SCHEMA_PATH.read_text())
    unions = union_names(schema)
    out = [
        "// The types of protocol v1 for the module's JSDoc: generated by `make schema` (python -m protocol.typedefs)",
        "// from protocol/schema/v1.json. Do not edit: a test fails when it drifts. Types only: nothing here runs.",
        "",
    ]
    for part in schema.get("oneOf", ()):
        joined = _join(type_of(m, unions) for m in part["anyOf"])
        title = str(part["title"])
        out += ["/**", f" * Every {title} of the protocol.", f" * @typedef {{{joined}}} Any{_pascal(title)}", " */"]
    for members, name in sorted(unions.items(), key=lambda item: item[1]):
        out += ["/**", f" * @typedef {{{'|'.join(members)}}} {name}", " */"]
    for name, definition in sorted(schema["$defs"].items()):
        out += _typedef(name, definition, unions)
    out += ["", "export {};", ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m protocol.typedefs", description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--out", type=Path, default=TYPEDEFS_PATH, help="where to write it (default: the module's)")
    out: Path = parser.parse_args(argv).out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(source())
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
