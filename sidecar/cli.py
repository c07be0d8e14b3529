"""`verdict`: the sidecar's command line.

    verdict serve [--host H] [--port P] [--data DIR] [--ledger URL] ... [--max-frame BYTES] [--hello-timeout S] ...
    verdict module --public-url URL [--zip PATH] [--manifest PATH]   write the Foundry module's release files
    verdict roll SYSTEM [options] [--json]      roll a check here, with the sidecar's dice
    verdict read SYSTEM --dice F,F,... [options] [--json]   read faces rolled by hand
    verdict odds SYSTEM [options] [--json]      the exact odds of a check
    verdict table [--ledger URL] create NAME | list | rotate-keys ID | user-key ID USER | export ID --format jsonl|markdown [--for players|gm]

The ledger is SQLite in the data directory unless ``--ledger`` (or ``$VERDICT_LEDGER``) names a
PostgreSQL database, ``postgresql://USER:PASSWORD@HOST/DB``, which several sidecars may share.

The options of serve are sidecar/config.py's knobs (``verdict serve --help`` lists them by group, with their
defaults); those of roll, read and odds come from the rule set's check: `verdict roll facets --help`.
Bad arguments exit with status 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import sqlite3
import sys
import textwrap
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from protocol.v1.errors import ErrorCode, VerdictError

try:
    # The rule sets installed as packages load here: one that cannot be used is named in one line.
    from protocol.v1.systems import CHECK_TYPES, SYSTEMS
    from sidecar.vocabulary import FieldDoc, field_docs
except ImportError as exc:
    if type(exc).__name__ != "RuleSetPackageError":  # its module failed to import: known by name only
        raise
    sys.stderr.write(f"verdict: {exc}\n")
    raise SystemExit(2) from None

from sidecar import __version__, config

if TYPE_CHECKING:
    from sidecar.server.settings import Settings

CHECKS: dict[str, type] = dict(zip(SYSTEMS, CHECK_TYPES, strict=True))


class CliError(VerdictError):
    """A usage error: printed as one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr (and ``--help`` for the rest)."""

    def error(self, message: str) -> typing.NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _open_ledger(ledger_url: str | None, data: Path) -> Any:
    from .state.ledger import LedgerUnavailable, open_ledger

    try:
        return open_ledger(ledger_url, data)
    except (ValueError, ImportError, LedgerUnavailable, RuntimeError) as exc:
        raise CliError(ErrorCode.USAGE, f"--ledger: {exc}") from None
    except (OSError, sqlite3.Error) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CliError(
            ErrorCode.USAGE, f"--data {data}: the data folder cannot be used ({reason}); choose another with --data"
        ) from None


# --- serve's options from the knobs -------------------------------------------------


KNOBS = {k.name: k for k in config.KNOBS}


def _knob_help(knob: config.Knob) -> str:
    """An option's help: the knob's line, then its default (and the variable read first) in its unit."""
    default = knob.said(knob.default)
    if knob.env:
        default = f"${knob.env}, else {default}"
    repeatable = "repeatable; " if knob.repeat else ""
    return f"{knob.help} ({repeatable}default: {default})".replace("%", "%%")


def _knob_reader(knob: config.Knob) -> Callable[[str], Any]:
    """How one value of the option is read: a number within the knob's bounds, a path, or text."""
    if knob.kind not in (int, float):
        return knob.kind
    what = f"a {'whole ' if knob.kind is int else ''}number" + (f" of {knob.unit}" if knob.unit else "")

    def read(text: str) -> Any:
        try:
            value = knob.kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        out = knob.check(value)
        if out is not None:
            raise argparse.ArgumentTypeError(f"expected {what}, {out}; got {text!r}")
        return value

    return read


def _add_knob(parser: argparse._ActionsContainer, knob: config.Knob) -> None:
    metavar = knob.metavar or {
        "bytes": "BYTES",
        "seconds": "SECONDS",
    }.get(knob.unit, "N" if knob.kind in (int, float) else "DIR" if knob.kind is Path else None)
    parser.add_argument(
        knob.option,
        dest=knob.name,
        type=_knob_reader(knob),
        action="append" if knob.repeat else "store",
        choices=knob.choices or None,
        metavar=None if knob.choices else metavar,
        default=None,
        help=_knob_help(knob),
    )


class KeepOptionsWhole(argparse.HelpFormatter):
    """Wraps help between words only: an option named in a help (``--max-connections``) stays whole."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


def _knob_value(args: argparse.Namespace, knob: config.Knob) -> Any:
    """What the option gave, else the knob's environment variable, else ``None`` (the knob's default)."""
    given = getattr(args, knob.name, None)
    if given is None and knob.env:
        given = os.environ.get(knob.env) or None
        if given is not None and knob.kind is Path:
            given = Path(given)
    if isinstance(given, list):
        given = tuple(given)
    return given


def _data_dir(args: argparse.Namespace) -> Path:
    data: Path | None = _knob_value(args, KNOBS["data"])
    return data if data is not None else config.DEFAULTS.data


def serve_settings(args: argparse.Namespace) -> Settings:
    """The :class:`~sidecar.server.settings.Settings` ``verdict serve``'s options (and the environment) give."""
    from .server.settings import Settings

    given = {k.name: _knob_value(args, k) for k in config.KNOBS}
    given["public_url"] = _public_url(args.public_url)
    given["trusted_proxies"] = _trusted_proxies(args.trusted_proxies)
    return Settings(**{name: value for name, value in given.items() if value is not None})


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
            infer = POOL_FROM_DICE.get(str(check_type.__struct_config__.tag))
            if dice == "required" and infer is not None and infer[0] == f.name:
                note = "(default: 0, the desperate 2d6; with other than 2 --dice, their number)"
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


# `verdict read facets --dice 6,6,2`: a pool left out is the dice on the table (pool = dice brought + helping
# - hindering). Two dice keep the documented default, pool 0: the desperate roll of 2d6.
POOL_FROM_DICE: dict[str, tuple[str, Callable[[argparse.Namespace, int], int]]] = {
    "facets": ("pool", lambda a, n: n - (a.helping or 0) + (a.hindering or 0)),
}
DESPERATE_DICE = 2


def cmd_roll(args: argparse.Namespace) -> int:
    from sidecar import engine

    infer = POOL_FROM_DICE.get(args.system)
    if (
        infer is not None
        and getattr(args, "dice", None)
        and getattr(args, infer[0]) is None
        and not getattr(args, "group", None)
    ):
        n = len([x for x in args.dice.split(",") if x.strip()])
        if n != DESPERATE_DICE:
            setattr(args, infer[0], max(0, infer[1](args, n)))
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


def _public_url(value: str | None, required: bool = False) -> str | None:
    """``--public-url``, else ``$VERDICT_PUBLIC_URL``: checked, without a trailing slash."""
    from .server.module import check_public_url

    given = value or os.environ.get(config.PUBLIC_URL_ENV) or None
    if given is None:
        if required:
            raise CliError(
                ErrorCode.USAGE,
                "--public-url: give the address the sidecar is reached at, e.g. https://verdict.example.org "
                f"(or set ${config.PUBLIC_URL_ENV}): the module's manifest and download URLs must be absolute "
                "for Foundry to install it and check for updates",
            )
        return None
    try:
        return check_public_url(given)
    except ValueError as exc:
        said = "--public-url" if value else f"${config.PUBLIC_URL_ENV}"
        raise CliError(ErrorCode.USAGE, f"{said}: {exc}") from None


def _trusted_proxies(values: list[str] | None) -> tuple[str, ...] | None:
    from ipaddress import ip_network

    for value in values or ():
        try:
            ip_network(value, strict=False)
        except ValueError:
            raise CliError(
                ErrorCode.USAGE, f"--trust-proxy: {value!r} is not an IP address or network (e.g. 172.30.87.2)"
            ) from None
    return tuple(values) if values else None


def cmd_serve(args: argparse.Namespace) -> int:
    from .server.run import serve

    settings = serve_settings(args)
    return serve(settings, _open_ledger(settings.ledger_url, settings.data))


def cmd_module(args: argparse.Namespace) -> int:
    from .server.module import ModuleMissing, build_zip, manifest

    if not args.zip and not args.manifest:
        raise CliError(ErrorCode.USAGE, "say what to write: --zip PATH and/or --manifest PATH")
    public_url = _public_url(args.public_url, required=True)
    assert public_url is not None
    try:
        outputs = []
        if args.zip:
            outputs.append((Path(args.zip), build_zip(public_url)))
        if args.manifest:
            outputs.append((Path(args.manifest), (json.dumps(manifest(public_url), indent=2) + "\n").encode()))
    except ModuleMissing as exc:
        raise CliError(ErrorCode.USAGE, str(exc)) from None
    for path, body in outputs:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(body)
        except OSError as exc:
            raise CliError(ErrorCode.USAGE, f"{path}: cannot be written ({exc.strerror})") from None
        print(path)
    return 0


def cmd_table(args: argparse.Namespace) -> int:
    from .tables import export_table, print_keys

    ledger = _open_ledger(_knob_value(args, KNOBS["ledger_url"]), _data_dir(args))
    try:
        if args.table_cmd == "create":
            keys = ledger.create_table(args.name)
            if args.json:
                print(
                    json.dumps(
                        {
                            "table": keys.table,
                            "name": args.name,
                            "gm": keys.gm,
                            "player": keys.player,
                            "observer": keys.observer,
                        }
                    )
                )
            else:
                print_keys(args.name, keys)
        elif args.table_cmd == "list":
            rows = ledger.tables()
            if not rows:
                print("no tables yet: verdict table create NAME")
            for info in rows:
                print(f"{info.id}  {info.name}")
        elif args.table_cmd == "rotate-keys":
            try:
                keys = ledger.rotate_keys(args.id)
            except KeyError:
                raise CliError(ErrorCode.USAGE, f"no table {args.id!r}; see `verdict table list`") from None
            info = ledger.table(args.id)
            print_keys(info.name if info else args.id, keys)
        elif args.table_cmd == "user-key":
            from .state.keys import derive_user_key

            if not args.user or len(args.user) > config.MAX_USER:
                raise CliError(ErrorCode.USAGE, f"USER is a Foundry user id of 1 to {config.MAX_USER} characters")
            secret = ledger.user_secret(args.id)
            if secret is None:
                raise CliError(ErrorCode.USAGE, f"no table {args.id!r}; see `verdict table list`")
            print(derive_user_key(secret, args.user))
        elif args.table_cmd == "export":
            if ledger.table(args.id) is None:
                raise CliError(ErrorCode.USAGE, f"no table {args.id!r}; see `verdict table list`")
            sys.stdout.write(export_table(ledger, args.id, args.format, args.audience))
    finally:
        ledger.close()
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="verdict",
        description="Verdict: check resolution for Foundry VTT. Run the sidecar, roll and read checks, see the odds, manage tables.",
    )
    parser.add_argument("--version", action="version", version=f"verdict {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)

    serve = sub.add_parser(
        "serve",
        help="run the sidecar",
        description="Run the sidecar: websocket at /ws, /healthz, /metrics, the Foundry module at /module/module.json.",
        formatter_class=KeepOptionsWhole,
    )
    for group, about in config.GROUPS.items():
        options = serve.add_argument_group(f"{group}: {about}")
        for knob in config.KNOBS:
            if knob.group == group:
                _add_knob(options, knob)
    serve.set_defaults(func=cmd_serve)

    module = sub.add_parser(
        "module",
        help="write the Foundry module's release zip and manifest",
        description="Write the Foundry module as the sidecar serves it at PUBLIC_URL/module/: verdict.zip (module.json "
        "at its root) and module.json, their manifest and download URLs absolute on PUBLIC_URL, so an installed "
        "copy checks for updates there.",
    )
    module.add_argument("--zip", metavar="PATH", help="write the release zip here (e.g. dist/verdict.zip)")
    module.add_argument("--manifest", metavar="PATH", help="write module.json here (e.g. dist/module.json)")
    module.add_argument(
        "--public-url",
        metavar="URL",
        help=f"where the sidecar serving updates is reached, e.g. https://verdict.example.org (default: ${config.PUBLIC_URL_ENV}; required)",
    )
    module.set_defaults(func=cmd_module)

    for name, func, dice, what in (
        ("roll", cmd_roll, "none", "roll a check with the sidecar's dice"),
        ("read", cmd_roll, "required", "read faces rolled by hand"),
        ("odds", cmd_odds, "none", "the exact odds of a check"),
    ):
        p = sub.add_parser(name, help=what, description=what.capitalize() + ". Options depend on the rule set.")
        systems = p.add_subparsers(dest="system", required=True, metavar="SYSTEM", parser_class=Parser)
        for system, check_type in CHECKS.items():
            sp = systems.add_parser(system, help=(sys.modules[check_type.__module__].__doc__ or "").split("\n")[0])
            _add_check_options(sp, check_type, dice)
            sp.add_argument("--json", action="store_true", help="print the result object exactly as on the wire")
            sp.set_defaults(func=func)

    table = sub.add_parser("table", help="manage tables and their keys")
    _add_knob(table, KNOBS["data"])
    _add_knob(table, KNOBS["ledger_url"])
    tsub = table.add_subparsers(dest="table_cmd", required=True, metavar="ACTION", parser_class=Parser)
    create = tsub.add_parser("create", help="create a table and print its keys (once)")
    create.add_argument("name")
    create.add_argument("--json", action="store_true", help="print the id and keys as one JSON object")
    tsub.add_parser("list", help="list tables")
    rotate = tsub.add_parser("rotate-keys", help="replace a table's keys and user keys (the old ones stop working)")
    rotate.add_argument("id")
    ukey = tsub.add_parser(
        "user-key",
        help="print the key that binds a player's connection to one Foundry user",
        description="Print USER's player key for table ID: `hello` with it and `user: USER` is that player, and no "
        "one else. rotate-keys invalidates every user key.",
    )
    ukey.add_argument("id")
    ukey.add_argument("user")
    export = tsub.add_parser("export", help="write a table's session log")
    export.add_argument("id")
    export.add_argument("--format", choices=("jsonl", "markdown"), default="markdown")
    export.add_argument(
        "--for",
        dest="audience",
        choices=("players", "gm"),
        default="players",
        help="whom the markdown recap is for: players (what every player saw; the default) or the GM (every "
        "event, marked with who saw it); jsonl is the whole ledger either way",
    )
    table.set_defaults(func=cmd_table)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
        return code
    except CliError as exc:
        sys.stderr.write(f"verdict: {exc}\n")
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
