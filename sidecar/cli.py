"""`verdict`: the sidecar's command line.

    verdict serve [--host H] [--port P] [--data DIR] [--ledger URL] ... [--max-frame BYTES] [--hello-timeout S] ...
    verdict module --public-url URL [--zip PATH] [--manifest PATH]   write the Foundry module's release files
    verdict roll SYSTEM [options] [--json]      roll a check here, with the sidecar's dice
    verdict read SYSTEM --dice F,F,... [options] [--json]   read faces rolled by hand
    verdict odds SYSTEM [options] [--json]      the exact odds of a check
    verdict rules [NAME]                        print a rule set's rules page
    verdict table [--data DIR] [--ledger URL] create NAME | list | rotate-keys ID | user-key ID USER | delete ID [--yes]
                  | export ID --format jsonl|markdown [--for players|gm]
    verdict backup FILE | restore FILE [--data DIR]   copy the ledger consistently while serving; put one back
    verdict health [--data DIR]                 exit 0 when the sidecar serving the data folder answers /healthz

The data folder is ``--data``, else ``$VERDICT_DATA``, else a ``./var`` holding a ledger, else the platform's
(:mod:`sidecar.datadir`). The ledger is SQLite in it unless ``--ledger`` (or ``$VERDICT_LEDGER``) names a
PostgreSQL database, ``postgresql://USER:PASSWORD@HOST/DB``, which several sidecars may share.

The options of serve are sidecar/config.py's knobs (``verdict serve --help`` lists them by group, with their
defaults); those of roll, read and odds come from the rule set's check: `verdict roll facets --help`.
Bad arguments exit with status 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import re
import sqlite3
import sys
import textwrap
import typing
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from protocol.v1.errors import ErrorCode

try:
    # The rule sets installed as packages load here: one that cannot be used is named in one line.
    from .cli_checks import CHECKS as CHECKS
    from .cli_checks import CliError as CliError
    from .cli_checks import _add_check_options, cmd_odds, cmd_roll
except ImportError as exc:
    if type(exc).__name__ != "RuleSetPackageError":  # its module failed to import: known by name only
        raise
    sys.stderr.write(f"verdict: {exc}\n")
    raise SystemExit(2) from None

from sidecar import __version__, config, datadir

if TYPE_CHECKING:
    from sidecar.server.settings import Settings


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


DEFAULTS_SAID: dict[str, Callable[[], str]] = {
    "data": lambda: f"a ./var here that holds a ledger, else {datadir.platform_data_dir()}",
}
"""Defaults the CLI works out rather than takes from the knob, as ``--help`` says them."""


def _knob_help(knob: config.Knob) -> str:
    """An option's help: the knob's line, then its default (and the variable read first) in its unit."""
    default = DEFAULTS_SAID[knob.name]() if knob.name in DEFAULTS_SAID else knob.said(knob.default)
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
    """The data folder (:func:`sidecar.datadir.resolve`); its note, when it has one, said once on stderr."""
    folder = datadir.resolve(_knob_value(args, KNOBS["data"]))
    if folder.note:
        sys.stderr.write(folder.note + "\n")
    return folder.path


def serve_settings(args: argparse.Namespace) -> Settings:
    """The :class:`~sidecar.server.settings.Settings` ``verdict serve``'s options (and the environment) give."""
    from .server.settings import Settings

    given = {k.name: _knob_value(args, k) for k in config.KNOBS}
    given["data"] = _data_dir(args)
    given["public_url"] = _public_url(args.public_url)
    given["trusted_proxies"] = _trusted_proxies(args.trusted_proxies)
    return Settings(**{name: value for name, value in given.items() if value is not None})


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


def _claim_port(host: str, port: int) -> int:
    """The port ``verdict serve`` will listen on, found free before anything is created: ``port``, or for 0
    the one the system gives now. A port in use (or an address not of this machine) is a :class:`CliError`.
    The probe binds as aiohttp will (address reuse on, so a port left in TIME_WAIT by the last run is free)."""
    import errno
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise CliError(ErrorCode.USAGE, f"--host {host}: no such address here ({exc.strerror})") from None
    for family, kind, proto, _, address in infos:
        with socket.socket(family, kind, proto) as probe:
            if os.name != "nt":
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                probe.bind((address[0], port, *address[2:]))
            except OSError as exc:
                if exc.errno == errno.EADDRNOTAVAIL:
                    raise CliError(
                        ErrorCode.USAGE, f"--host {host}: not an address of this machine (e.g. 127.0.0.1 or 0.0.0.0)"
                    ) from None
                reason = (
                    "is already in use (another sidecar?)"
                    if exc.errno == errno.EADDRINUSE
                    else f"cannot be used: {exc.strerror}"
                )
                raise CliError(ErrorCode.USAGE, f"{host}:{port} {reason}; choose another with --port") from None
            port = port or probe.getsockname()[1]
    return port


def _reaching_addresses(host: str) -> list[str]:
    """The addresses of this machine a sidecar listening on ``host`` is reached at from others: ``host``
    itself, or for a wildcard each address of this machine's own (loopback left out)."""
    import ipaddress
    import socket

    try:
        wildcard = ipaddress.ip_address(host.split("%")[0]).is_unspecified
    except ValueError:
        return []
    if not wildcard:
        return []
    found: list[str] = []
    with contextlib.suppress(OSError):  # the address a route to the outside leaves from (no packet is sent)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            found.append(probe.getsockname()[0])
    with contextlib.suppress(OSError):
        for *_, address in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET, socket.SOCK_STREAM):
            found.append(str(address[0]))
    return [a for a in dict.fromkeys(found) if not ipaddress.ip_address(a).is_loopback]


def _connect_lines(settings: Settings) -> list[str]:
    """What the banner tells the GM to paste into Foundry: the *Sidecar URL* exactly, and for a wildcard
    host the addresses other machines reach it at."""
    from .server.module import MANIFEST_PATH, address_url

    if settings.public_url:
        return [f"Sidecar URL (paste into Foundry's module settings): {settings.public_url}"]
    here = address_url(settings.host, settings.port)
    lines = [f"Sidecar URL (paste into Foundry's module settings): {here}"]
    others = [address_url(a, settings.port) for a in _reaching_addresses(settings.host)]
    if others:
        lines.append(
            f"  from other machines: {', '.join(others)} (allow their Foundry with --allow-origin; "
            f"its manifest: that URL + {MANIFEST_PATH})"
        )
    return lines


def _first_start(ledger: Any, data: Path) -> None:
    """The default table on first start (:func:`~sidecar.server.run.ensure_default_table`, which ``serve``
    calls again to say where the keys are): its keys are printed on a terminal; when the output is not one
    (a service's or container's log, kept for good) only the keys file's path is, the file being the
    owner's alone. A folder the sidecar will not start on is refused here, before anything is printed."""
    import io

    from .server.run import StartRefused, ensure_default_table

    before = {t.id for t in ledger.tables()}
    said = io.StringIO()
    try:
        with contextlib.redirect_stdout(said):
            ensure_default_table(ledger, data)
    except StartRefused as exc:
        ledger.close()
        raise CliError(ErrorCode.USAGE, str(exc)) from None
    made = [t for t in ledger.tables() if t.id not in before]
    if not made:
        return
    if sys.stdout.isatty():
        sys.stdout.write(said.getvalue())
        return
    print(
        f"new table {made[0].name!r} ({made[0].id}): its keys are in {datadir.keys_path(data)}, readable by you "
        "alone (not printed here: this output is not a terminal)",
        flush=True,
    )


def cmd_serve(args: argparse.Namespace) -> int:
    settings = serve_settings(args)
    with datadir.private_files():  # the ledger's files (and SQLite's -wal, -shm) are created owner-only
        return _serve(settings)


def _serve(settings: Settings) -> int:
    from .server.run import serve

    data = settings.data
    settings = dataclasses.replace(settings, port=_claim_port(settings.host, settings.port))  # before anything is made
    try:
        datadir.secure(data)
    except OSError as exc:
        raise CliError(
            ErrorCode.USAGE,
            f"--data {data}: the data folder cannot be used ({exc.strerror or exc}); choose another with --data",
        ) from None
    from .server.module import address_url

    try:
        lock = datadir.hold_serving_lock(data, address_url(settings.host, settings.port))
    except datadir.Served as exc:
        raise CliError(ErrorCode.USAGE, str(exc)) from None
    except OSError as exc:
        raise CliError(
            ErrorCode.USAGE,
            f"--data {data}: the data folder cannot be used ({exc.strerror or exc}); choose another with --data",
        ) from None
    try:
        ledger = _open_ledger(settings.ledger_url, data)
        _first_start(ledger, data)
        print(f"data folder: {data} (back it up with `verdict backup FILE`)", flush=True)
        for line in _connect_lines(settings):
            print(line, flush=True)
        return serve(settings, ledger)
    finally:
        lock.close()


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


def _where(ledger_url: str | None, data: Path) -> str:
    """The ledger as messages name it: the data folder's file, or the PostgreSQL database (no password)."""
    if ledger_url is None:
        return f"the data folder {data}"
    from urllib.parse import urlsplit

    parts = urlsplit(ledger_url)
    return f"the PostgreSQL ledger at {parts.hostname or 'localhost'}{parts.path}"


def _confirm(question: str, answer: str) -> bool:
    """Whether the user typed ``answer`` to ``question`` (on a terminal only)."""
    if not sys.stdin.isatty():
        return False
    try:
        return input(question).strip() == answer
    except EOFError:
        return False


def cmd_table(args: argparse.Namespace) -> int:
    data = _data_dir(args)
    ledger_url = _knob_value(args, KNOBS["ledger_url"])
    where = _where(ledger_url, data)
    with datadir.private_files():
        if ledger_url is None:
            with contextlib.suppress(OSError):  # a folder that cannot be made is said by the ledger's opening
                datadir.secure(data)
        ledger = _open_ledger(ledger_url, data)
        try:
            return _table_action(args, ledger, ledger_url, data, where)
        finally:
            ledger.close()


def _table_action(args: argparse.Namespace, ledger: Any, ledger_url: str | None, data: Path, where: str) -> int:
    from .export import delete_table, export_table, print_keys

    def known(table_id: str) -> Any:
        info = ledger.table(table_id)
        if info is None:
            raise CliError(ErrorCode.USAGE, f"no table {table_id!r} in {where}; see `verdict table list`")
        return info

    if args.table_cmd == "create":
        name = args.name.strip()
        if not name:
            raise CliError(ErrorCode.USAGE, 'NAME: give the table a name, e.g. verdict table create "Friday group"')
        if any(t.name == name for t in ledger.tables()):
            raise CliError(
                ErrorCode.USAGE,
                f"a table named {name!r} is already in {where}; choose another name (see `verdict table list`)",
            )
        keys = ledger.create_table(name)
        if args.json:
            print(
                json.dumps(
                    {"table": keys.table, "name": name, "gm": keys.gm, "player": keys.player, "observer": keys.observer}
                )
            )
        else:
            print_keys(name, keys)
    elif args.table_cmd == "list":
        rows = ledger.tables()
        if not rows:
            print(f"no tables yet in {where}: verdict table create NAME")
        for info in rows:
            print(f"{info.id}  {info.name}")
    elif args.table_cmd == "rotate-keys":
        try:
            keys = ledger.rotate_keys(args.id)
        except KeyError:
            raise CliError(ErrorCode.USAGE, f"no table {args.id!r} in {where}; see `verdict table list`") from None
        info = ledger.table(args.id)
        print_keys(info.name if info else args.id, keys)
        if datadir.keys_file_table(data) == keys.table:
            path = datadir.rewrite_keys_file(
                data, datadir.keys_file_text(keys.table, keys.gm, keys.player, keys.observer)
            )
            print(f"(the new keys replace the old in {path})", flush=True)
    elif args.table_cmd == "user-key":
        from .state.keys import derive_user_key

        if not args.user or len(args.user) > config.MAX_USER:
            raise CliError(ErrorCode.USAGE, f"USER is a Foundry user id of 1 to {config.MAX_USER} characters")
        secret = ledger.user_secret(args.id)
        if secret is None:
            raise CliError(ErrorCode.USAGE, f"no table {args.id!r} in {where}; see `verdict table list`")
        print(derive_user_key(secret, args.user))
    elif args.table_cmd == "export":
        known(args.id)
        sys.stdout.write(export_table(ledger, args.id, args.format, args.audience))
    elif args.table_cmd == "delete":
        info = known(args.id)
        if ledger_url is not None:
            from .backup import PG_DUMP

            raise CliError(
                ErrorCode.USAGE,
                f"table delete works on a data folder's ledger; back up {where} first ({PG_DUMP}), then delete the "
                "table's rows with psql",
            )
        if not args.yes and not _confirm(
            f"Delete table {info.name!r} ({info.id}) and its whole history? Type its name to confirm: ", info.name
        ):
            raise CliError(ErrorCode.USAGE, f"table {info.id} not deleted: confirm by typing its name, or add --yes")
        ledger.close()
        from .backup import BackupError

        try:
            kept, events = delete_table(data, info.id)
        except (datadir.Served, BackupError) as exc:
            raise CliError(ErrorCode.USAGE, f"table {info.id} not deleted: {exc}") from None
        print(f"deleted table {info.name!r} ({info.id}, {events} events); a backup from just before: {kept}")
    return 0


def cmd_health(args: argparse.Namespace) -> int:
    """Exit 0 when the sidecar serving the data folder answers /healthz, else 1 (a container's health check:
    it follows the port the sidecar serves, whatever its command line says)."""
    import urllib.error
    import urllib.request

    data = _data_dir(args)
    address = datadir.serving_address(data)
    if address is None:
        print(f"unhealthy: no sidecar serves {data}", file=sys.stderr)
        return 1
    try:
        with urllib.request.urlopen(f"{address}/healthz", timeout=args.timeout) as reply:
            body = json.loads(reply.read())
    except (OSError, ValueError) as exc:
        print(f"unhealthy: {address}/healthz: {getattr(exc, 'reason', exc)}", file=sys.stderr)
        return 1
    print(f"{address}: {body.get('status', body)}")
    return 0 if body.get("status") == "ok" else 1


def _counted(summary: Any) -> str:
    """What a ledger holds, as a backup or restore says it: ``2 tables, 1 event``."""
    return ", ".join(
        f"{n} {what}{'' if n == 1 else 's'}" for n, what in ((summary.tables, "table"), (summary.events, "event"))
    )


def cmd_backup(args: argparse.Namespace) -> int:
    from .backup import PG_DUMP, BackupError, backup

    data = _data_dir(args)
    if _knob_value(args, KNOBS["ledger_url"]) is not None:
        raise CliError(ErrorCode.USAGE, f"a PostgreSQL ledger is backed up with its own tools: {PG_DUMP}")
    target = Path(args.file).expanduser().absolute()
    with datadir.private_files():
        try:
            summary = backup(data, target)
        except BackupError as exc:
            raise CliError(ErrorCode.USAGE, f"backup: {exc}") from None
    print(f"backed up the ledger of {data} to {target} ({_counted(summary)})")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from .backup import PG_RESTORE, BackupError, restore

    data = _data_dir(args)
    if _knob_value(args, KNOBS["ledger_url"]) is not None:
        raise CliError(ErrorCode.USAGE, f"a PostgreSQL ledger is restored with its own tools: {PG_RESTORE}")
    source = Path(args.file).expanduser().absolute()
    with datadir.private_files():
        try:
            datadir.secure(data)
            done = restore(source, data)
        except (BackupError, datadir.Served) as exc:
            raise CliError(ErrorCode.USAGE, f"restore: {exc}") from None
        except OSError as exc:
            raise CliError(ErrorCode.USAGE, f"restore: {data} cannot be written ({exc.strerror or exc})") from None
    print(f"restored {source} into {data} ({_counted(done.summary)})")
    if done.kept:
        print(f"the ledger it replaced: {done.kept}")
    if done.keys_moved:
        print(
            f"the keys file's keys do not open the restored ledger: moved to {done.keys_moved}; "
            "new keys: verdict table rotate-keys ID"
        )
    return 0


RULES_PACKAGE = "sidecar.rules_pages"
"""Where an installed distribution keeps docs/rules/ (pyproject.toml maps it in)."""
CHECKOUT_RULES = Path(__file__).resolve().parents[1] / "docs" / "rules"
_PAGE_REFERENCE = re.compile(r"\(docs/rules/(\w+)\.md\)")


def _rules_pages() -> dict[str, Any]:
    """The rules pages by name (``facets``, ...; ``README`` is the index), a checkout's or the installed copy."""
    import importlib.resources

    root: Any = CHECKOUT_RULES
    if not (CHECKOUT_RULES / "README.md").is_file():
        try:
            root = importlib.resources.files(RULES_PACKAGE)
        except ModuleNotFoundError:
            return {}
    return {p.name.removesuffix(".md"): p for p in root.iterdir() if p.name.endswith(".md")}


def cmd_rules(args: argparse.Namespace) -> int:
    pages = _rules_pages()
    names = sorted(n for n in pages if n != "README")
    if args.name is None:
        sys.stdout.write(pages["README"].read_text(encoding="utf-8") if "README" in pages else "")
        print(f"\npages: {', '.join(names)} (verdict rules NAME)")
        return 0
    page = pages.get(args.name)
    if page is None:
        raise CliError(ErrorCode.USAGE, f"no rules page {args.name!r}; the pages: {', '.join(names)}")
    sys.stdout.write(page.read_text(encoding="utf-8"))
    return 0


def _pointing_to_rules(text: str) -> str:
    """A help line that names a rules page by its path in the checkout names the command that prints it."""
    return _PAGE_REFERENCE.sub(lambda hit: f"(verdict rules {hit[1]})", text)


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
            sp = systems.add_parser(
                system, help=_pointing_to_rules((sys.modules[check_type.__module__].__doc__ or "").split("\n")[0])
            )
            _add_check_options(sp, check_type, dice)
            sp.add_argument("--json", action="store_true", help="print the result object exactly as on the wire")
            sp.set_defaults(func=func)

    rules = sub.add_parser(
        "rules",
        help="print a rule set's rules page (or, without NAME, the index)",
        description="Print a rules page: what each rule set does, in the project's words, with its rulings.",
    )
    rules.add_argument("name", nargs="?", metavar="NAME", help=f"one of: {', '.join(CHECKS)}")
    rules.set_defaults(func=cmd_rules)

    table = sub.add_parser("table", help="manage tables and their keys")
    _add_knob(table, KNOBS["data"])
    _add_knob(table, KNOBS["ledger_url"])
    tsub = table.add_subparsers(dest="table_cmd", required=True, metavar="ACTION", parser_class=Parser)
    create = tsub.add_parser("create", help="create a table and print its keys (once)")
    create.add_argument("name", help='a name of its own, e.g. "Friday group"')
    create.add_argument("--json", action="store_true", help="print the id and keys as one JSON object")
    tsub.add_parser("list", help="list tables")
    delete = tsub.add_parser(
        "delete",
        help="delete a table and its history (a backup is made first)",
        description="Delete table ID: its keys, events, snapshots and requests. A backup of the whole ledger is "
        "written to the data folder first; no sidecar may serve the folder meanwhile.",
    )
    delete.add_argument("id")
    delete.add_argument("--yes", action="store_true", help="do not ask for confirmation")
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

    health = sub.add_parser(
        "health",
        help="check the sidecar serving the data folder (exit 0 when it answers /healthz)",
        description="Ask the sidecar that serves the data folder for /healthz, on the address it listens on: "
        "exit 0 when it is healthy, 1 otherwise (the image's health check).",
    )
    _add_knob(health, KNOBS["data"])
    health.add_argument("--timeout", type=float, default=3.0, metavar="SECONDS", help="how long to wait (default: 3)")
    health.set_defaults(func=cmd_health)

    for name, func, what, about in (
        (
            "backup",
            cmd_backup,
            "copy the ledger to FILE, consistently, even while a sidecar serves",
            "FILE: a new file, e.g. verdict-2026-12-03.sqlite3",
        ),
        (
            "restore",
            cmd_restore,
            "put the backup FILE back as the data folder's ledger (stop the sidecar first)",
            "FILE: a file `verdict backup` wrote",
        ),
    ):
        p = sub.add_parser(name, help=what, description=what[0].upper() + what[1:] + ".")
        _add_knob(p, KNOBS["data"])
        _add_knob(p, KNOBS["ledger_url"])
        p.add_argument("file", metavar="FILE", help=about)
        p.set_defaults(func=func)
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
