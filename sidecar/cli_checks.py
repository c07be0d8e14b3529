"""The check commands (``verdict roll``, ``verdict read``, ``verdict odds``): each rule set's options from its check
Struct (a field's title and description its help), the check built from them, the result or odds printed."""

from __future__ import annotations

import argparse
import functools
import json
import re
import sys
import types
import typing
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from protocol.v1.errors import ErrorCode, VerdictError
from protocol.v1.systems import CHECK_TYPES, SYSTEMS
from sidecar.vocabulary import FieldDoc, field_docs

if TYPE_CHECKING:
    from sidecar.engine.ruleset import DiceCount

CHECKS: dict[str, type] = dict(zip(SYSTEMS, CHECK_TYPES, strict=True))


class CliError(VerdictError):
    """A usage error: printed as one line, exit status 2."""


# --- check options from the Struct --------------------------------------------------


def _unwrap(tp: Any) -> tuple[Any, bool]:
    """(the type without ``None``, whether ``None`` was allowed)."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return (args[0] if len(args) == 1 else tp), len(args) < len(typing.get_args(tp))
    return tp, False


@functools.cache
def _check_fields(check_type: type[msgspec.Struct]) -> tuple[tuple[msgspec.structs.FieldInfo, Any, FieldDoc], ...]:
    """Each field of a check with its type (``None`` taken off) and what it says of itself, worked out once per
    check: a run of `verdict` builds every rule set's options for three commands, and walking the type hints
    fifteen times took most of the 40-90 ms it spent before parsing its arguments."""
    hints = typing.get_type_hints(check_type)
    docs = field_docs(check_type)
    return tuple((f, _unwrap(hints[f.name])[0], docs[f.name]) for f in msgspec.structs.fields(check_type))


def _is_struct(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, msgspec.Struct)


_SAMPLES = ("A", "B")
"""The sample names a JSON example gives its objects' text fields."""


def _json_example(tp: Any) -> str:
    """What a JSON option takes: its object's fields (the required ones said so) and an example that
    parses as it stands, copied from the help."""
    origin = typing.get_origin(tp)
    item = typing.get_args(tp)[0] if origin is list else tp
    if not _is_struct(item):
        return "JSON"
    fields = msgspec.structs.fields(item)
    hints = typing.get_type_hints(item)
    keys = ", ".join(f'"{f.name}"' + (" (required)" if f.required else "") for f in fields)
    first_int = next((f.name for f in fields if _unwrap(hints[f.name])[0] is int), None)

    def sample(n: int) -> str:
        values: dict[str, Any] = {}
        for f in fields:
            kind = _unwrap(hints[f.name])[0]
            if f.required:
                values[f.name] = _SAMPLES[n] if kind is str else 1
            elif f.name == first_int:
                values[f.name] = n + 1
        return json.dumps(values)

    if origin is list:
        return f"a list of objects with {keys}, e.g. '[{sample(0)}, {sample(1)}]'"
    return f"an object with {keys}, e.g. '{sample(0)}'"


def _help(doc: FieldDoc, note: str) -> str:
    """An option's help: what the field is, as its Struct says once (title and description), then ``note``.
    A description that opens with the title says it alone. argparse formats ``%`` in help; a description's
    own is kept."""
    title, description = doc.title, doc.description
    if title and description and description.lower().startswith(title.lower()):
        title = None
    said = ". ".join(x for x in (title, description) if x).replace("%", "%%")
    return f"{said} {note}".strip()


def _default(value: Any) -> str:
    """A default as the help says it: ``unset`` where the field is left out."""
    return "(default: unset)" if value is None else f"(default: {value})"


def _add_check_options(parser: argparse.ArgumentParser, check_type: type[msgspec.Struct], dice: str) -> None:
    for f, tp, doc in _check_fields(check_type):
        flag = "--" + f.name.replace("_", "-")
        default = None if f.default is msgspec.NODEFAULT else f.default
        origin = typing.get_origin(tp)
        if f.name == "dice":
            if dice == "none":
                continue
            parser.add_argument(
                flag,
                dest=f.name,
                metavar="F,F,...",
                required=dice == "required",
                help=_help(doc, "(comma-separated)") if doc.description else "the faces, comma-separated",
            )
        elif tp is bool:
            parser.add_argument(flag, dest=f.name, action="store_true", help=_help(doc, "(default: off)"))
        elif tp is int:
            note = _default(default)
            infer = _dice_count(str(check_type.__struct_config__.tag))
            if dice == "required" and infer is not None and infer.field == f.name:
                note = infer.note
            parser.add_argument(flag, dest=f.name, type=int, metavar="N", default=None, help=_help(doc, note))
        elif tp is str:
            parser.add_argument(flag, dest=f.name, metavar="TEXT", default=None, help=_help(doc, _default(default)))
        elif origin is Literal:
            choices = typing.get_args(tp)
            parser.add_argument(flag, dest=f.name, choices=choices, default=None, help=_help(doc, _default(default)))
        elif origin is list and not _is_struct(typing.get_args(tp)[0]):
            (item,) = typing.get_args(tp)
            values = typing.get_args(item) if typing.get_origin(item) is Literal else ()
            what = (
                f"each one of: {', '.join(map(str, values))}"
                if values
                else "whole numbers"
                if item is int
                else "values"
            )
            parser.add_argument(
                flag, dest=f.name, metavar="A,B,...", default=None, help=_help(doc, f"(comma-separated, {what})")
            )
        else:
            parser.add_argument(
                flag,
                dest=f.name,
                metavar="JSON",
                default=None,
                help=_help(doc, f"(JSON: {_json_example(tp)})"),
            )


def _check_from_args(system: str, args: argparse.Namespace) -> Any:
    check_type = CHECKS[system]
    values: dict[str, Any] = {"system": system}
    for f, tp, _ in _check_fields(check_type):
        raw = getattr(args, f.name, None)
        if raw is None or raw is False:
            continue
        origin = typing.get_origin(tp)
        if origin is list and isinstance(raw, str) and not _is_struct(typing.get_args(tp)[0]):
            (item,) = typing.get_args(tp)
            parts = [p.strip() for p in raw.split(",") if p.strip()]
            if item is int:
                try:
                    values[f.name] = [int(p) for p in parts]
                except ValueError:
                    raise CliError(
                        ErrorCode.USAGE,
                        f"--{f.name.replace('_', '-')}: expected whole numbers separated by commas, got {raw!r}",
                    ) from None
            else:
                values[f.name] = parts
        elif isinstance(raw, str) and tp not in (str,) and origin is not Literal:
            try:
                values[f.name] = json.loads(raw)
            except json.JSONDecodeError:
                raise CliError(
                    ErrorCode.USAGE, f"--{f.name.replace('_', '-')}: expected a JSON object, got {raw!r}"
                ) from None
        else:
            values[f.name] = raw
    try:
        return msgspec.convert(values, check_type)
    except msgspec.ValidationError as exc:
        raise CliError(ErrorCode.USAGE, f"{system}: {_explain(str(exc))}") from None


_UNKNOWN = re.compile(
    r"^Object contains unknown field `(?P<name>[^`]*)` - at `\$\.(?P<option>[a-z_]+)(?P<rest>[^`]*)`$"
)


def _explain(detail: str) -> str:
    """A validation error in terms of the command line: an unknown field names its option and place."""
    hit = _UNKNOWN.match(detail)
    if hit is None:
        return detail
    flag = "--" + hit["option"].replace("_", "-")
    where = f" (at {hit['rest']})" if hit["rest"] else ""
    return f"{flag}: unknown field `{hit['name']}`{where}; no such field here: check its spelling"


# --- commands -----------------------------------------------------------------------


def _print_result(result: Any, as_json: bool, describe: Any) -> None:
    if as_json:
        sys.stdout.write(msgspec.json.encode(result).decode() + "\n")
    else:
        print(describe(result))


def _dice_count(system: str) -> DiceCount | None:
    """The check field ``verdict read <system> --dice …`` reads from the number of faces when it is left out
    (the rule set's ``dice_count``)."""
    from sidecar.engine.registry import RULESETS

    rules = RULESETS.get(system)
    return rules.dice_count if rules is not None else None


def cmd_roll(args: argparse.Namespace) -> int:
    from sidecar import engine

    infer = _dice_count(args.system)
    if (
        infer is not None
        and getattr(args, "dice", None)
        and getattr(args, infer.field) is None
        and not getattr(args, "group", None)
    ):
        n = len([x for x in args.dice.split(",") if x.strip()])
        value = infer.value(vars(args), n)
        if value is not None:
            setattr(args, infer.field, value)
    check = _check_from_args(args.system, args)
    system = engine.RULESETS[args.system]
    try:
        result = engine.resolve(check)
    except engine.CheckError as exc:
        raise CliError(exc.code, exc.message) from None
    _print_result(result, args.json, system.describe)
    return 0


def cmd_odds(args: argparse.Namespace) -> int:
    from sidecar import engine

    check = _check_from_args(args.system, args)
    try:
        from sidecar.engine.odds import describe as describe_odds
        from sidecar.engine.odds import odds
    except ImportError:
        raise CliError(ErrorCode.USAGE, "odds are not available in this build") from None
    try:
        answer = odds(check)
    except engine.CheckError as exc:
        raise CliError(exc.code, exc.message) from None
    _print_result(answer, args.json, describe_odds)
    return 0
