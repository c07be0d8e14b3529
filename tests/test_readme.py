"""The README, followed as a GM follows it: every `console` block's commands run in order (in a home folder
of their own, `verdict serve` a real sidecar on a free port, on a terminal as the GM's is), their output
compared with the output shown; every `verdict …` the prose names is a command the CLI takes; the rest it
shows (installing from the package index) is named here with why it is not run."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shlex
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from sidecar.cli import build_parser

from .installing import clean_env, fresh_venv
from .serving import ROOT, free_port

pytestmark = pytest.mark.xdist_group("from_the_checkout")  # the wheel is built from the checkout (tests/conftest.py)

README = ROOT / "README.md"
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
NOT_RUN = {
    "pipx install verdict-vtt": "installs from the package index; tests/test_packaging.py installs the wheel",
    "pipx upgrade verdict-vtt          # or: pipx install --force verdict_vtt-0.2.0-py3-none-any.whl": (
        "upgrades from the package index or a release not made yet"
    ),
}
"""The commands the README shows that are not run here, and why."""
SHOWN_PORT = "8765"
KEY = re.compile(r"(?<![\w-])[A-Za-z0-9_-]{32}(?![\w-])")
STAMP = re.compile(r"\d{8}-\d{6}")
INLINE = re.compile(r"`(verdict [^`]+)`")
PLACEHOLDERS = {"ID": "639cabf1", "FILE": "backup.sqlite3", "NAME": "flairs", "DIR": "folder"}


def _blocks(kind: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(README.read_text()) if lang == kind]


def _steps(block: str) -> list[tuple[str, str]]:
    """(command, the output shown after it) for each ``$ command`` of a console block."""
    steps: list[tuple[str, list[str]]] = []
    for line in block.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line)
    return [(cmd, "\n".join(out)) for cmd, out in steps]


def _normal(text: str, home: Path, port: int, table: str | None, shown_table: str) -> str:
    text = text.replace("\r\n", "\n").replace(str(home), "~").replace(f":{port}", f":{SHOWN_PORT}")
    if table:
        text = text.replace(table, shown_table)
    text = STAMP.sub("<time>", KEY.sub("<key>", text))
    return "\n".join(line.rstrip() for line in text.strip("\n").split("\n"))


class Terminal:
    """`verdict serve` with a terminal for its output, as a GM starts it; what it printed up to listening."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        master, slave = pty.openpty()
        self.proc = subprocess.Popen(argv, stdout=slave, stderr=subprocess.DEVNULL, cwd=cwd, env=env)
        os.close(slave)
        self.master, said = master, b""
        deadline = time.monotonic() + 30
        while b" listening on " not in said:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                said += os.read(master, 65536)
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"verdict serve did not start:\n{said.decode(errors='replace')}")
        self.said = said.decode()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=15)
        os.close(self.master)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of an installed `verdict`: the wheel, built from the checkout, in a fresh environment."""
    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    (wheel,) = out.glob("verdict_vtt-*.whl")
    return fresh_venv(out / "venv", wheel).parent


@pytest.mark.parametrize("where", ["checkout", "wheel"])
def test_every_command_shown_runs_and_prints_what_is_shown(
    tmp_path: Path, where: str, request: pytest.FixtureRequest
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    port = free_port()
    if where == "wheel":  # the quick start as a GM meets it: only Python and the installed wheel
        env = clean_env()
        env["PATH"] = f"{request.getfixturevalue('installed')}{os.pathsep}/usr/bin:/bin"
    else:
        env = {k: v for k, v in os.environ.items() if not k.startswith("VERDICT_")}
        env.update(PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=str(ROOT))
    env = {k: v for k, v in env.items() if not k.startswith("XDG_")}
    env.update(HOME=str(home), PYTHONUNBUFFERED="1")
    blocks = _blocks("console")
    assert blocks, "the README shows no console session"
    shown_table = re.search(r"table id\s+(\w+)", blocks[0])[1]  # type: ignore[index]
    table: str | None = None
    served: Terminal | None = None
    ran = 0
    try:
        for block in blocks:
            for command, shown in _steps(block):
                argv = [table if word == shown_table and table else word for word in shlex.split(command)]
                assert argv[0] == "verdict", command
                if argv[1] == "serve":
                    argv += ["--port", str(port)]
                if argv[1] == "restore" and served is not None:
                    served.stop()  # the README: stop the sidecar first
                    served = None
                if argv[1] == "serve" and served is None:
                    served = Terminal(argv, home, env)
                    said = served.said
                    keys = home / ".local" / "share" / "verdict" / "default-table.keys"
                    table = keys.read_text().split()[1]
                    manifest = json.loads(
                        urllib.request.urlopen(f"http://127.0.0.1:{port}/module/module.json", timeout=30).read()
                    )
                    assert manifest["id"] == "verdict" and manifest["manifest"].endswith("/module/module.json")
                else:
                    r = subprocess.run(
                        argv, cwd=home, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60
                    )
                    said = r.stdout
                assert _normal(said, home, port, table, shown_table) == _normal(shown, home, port, None, shown_table), (
                    f"`{command}` printed:\n{said}"
                )
                ran += 1
    finally:
        if served is not None:
            served.stop()
    assert ran >= 6


def test_every_other_command_shown_is_named_with_why_it_is_not_run() -> None:
    shown = [line for block in _blocks("sh") for line in block.strip().split("\n")]
    assert shown and set(shown) == set(NOT_RUN)


def test_every_verdict_command_the_prose_names_is_one_the_cli_takes() -> None:
    parser = build_parser()
    named = INLINE.findall(README.read_text())
    assert len(named) >= 5
    for command in named:
        argv = [PLACEHOLDERS.get(word, word) for word in shlex.split(command)[1:]]
        try:
            parser.parse_args(argv)
        except SystemExit as exc:  # --help and --version exit 0; a misspelled command or option, 2
            assert exc.code == 0, command
