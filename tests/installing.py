"""Installing the sidecar as a user does: a wheel into a fresh virtual environment outside the checkout.

The environment holds the wheel alone (pip, no index). Its dependencies (aiohttp, msgspec, ...) are the
ones the tests run on, linked into a folder of their own that holds nothing of Verdict's, so nothing is
downloaded and the sidecar can only come from the wheel; `pip check` proves the wheel's requirements met.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.request
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

from .serving import wait_listening

DISTRIBUTION = "verdict-vtt"
"""The distribution's name on the package index (the command it installs is `verdict`)."""
OURS = {DISTRIBUTION}


def _dependencies(name: str) -> list[metadata.Distribution]:
    """The distributions ``name`` needs to run (no extras), transitively."""
    seen: dict[str, metadata.Distribution] = {}
    todo = [name]
    while todo:
        for text in metadata.requires(todo.pop()) or []:
            req = Requirement(text)
            if req.marker is not None and not req.marker.evaluate({"extra": ""}):
                continue
            key = re.sub(r"[-_.]+", "-", req.name).lower()
            if key in seen or key in OURS:
                continue
            seen[key] = metadata.distribution(req.name)
            todo.append(req.name)
    return list(seen.values())


def link_dependencies(where: Path) -> Path:
    """A folder of links to the installed dependencies of the distribution (their packages and metadata only)."""
    where.mkdir(parents=True, exist_ok=True)
    for dist in _dependencies(DISTRIBUTION):
        for file in dist.files or []:
            top = file.parts[0]
            if top == ".." or top.endswith(".pth") or top == "__pycache__":
                continue
            link = where / top
            if not link.exists():
                link.symlink_to(Path(str(dist.locate_file(top))))
    return where


def fresh_venv(where: Path, wheel: Path) -> Path:
    """A virtual environment at ``where`` with ``wheel`` installed by pip; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    python = where / "bin" / "python"
    pip(python, "install", "--no-deps", "--no-index", "--no-cache-dir", str(wheel))
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    deps = link_dependencies(where / "dependencies")
    Path(purelib, "dependencies.pth").write_text(f"{deps}\n")
    checked = pip(python, "check")
    assert "No broken requirements" in checked, checked
    return python


def pip(python: Path, *args: str) -> str:
    r = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def clean_env(**extra: str) -> dict[str, str]:
    """An environment without the checkout on the path and without the sidecar's own variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VERDICT_", "PYTHON", "VIRTUAL_ENV"))}
    env.update({"PYTHONUNBUFFERED": "1", **extra})
    return env


class Served:
    """An installed `verdict serve` in a child process, its output in a file."""

    def __init__(self, command: list[str], port: int, cwd: Path, env: dict[str, str]) -> None:
        self.port, self.log = port, cwd.parent / f"serve-{port}.log"
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=cwd, env=env)
        try:
            wait_listening(port, self.proc)
        except RuntimeError as exc:
            self.stop()
            raise RuntimeError(f"{exc}\n{self.output()}") from None

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def line(self, marker: str, timeout: float = 15.0) -> str:
        """The first line of its output holding ``marker``, once it is written."""
        deadline = time.monotonic() + timeout
        while True:
            for line in self.output().splitlines():
                if marker in line:
                    return line
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(f"no line with {marker!r} in:\n{self.output()}")
            time.sleep(0.05)

    def get(self, path: str, headers: dict[str, str] | None = None) -> bytes:
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", headers=headers or {})
        with urllib.request.urlopen(req, timeout=30) as r:
            body: bytes = r.read()
            return body

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=15)
