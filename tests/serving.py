"""`verdict serve` in a child process, as the tests and the hostile-clients benchmark start it.

No pytest here: ``bench/`` imports this module too.
"""

from __future__ import annotations

import contextlib
import io
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sidecar.cli import main as cli_main
from sidecar.state.ledger import TableKeys

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def cli_keys(*args: str) -> TableKeys:
    """``verdict ARGS`` in a process of its own, as a host runs it, for a command that prints a table's keys
    (``table create``, ``table rotate-keys``): the keys it printed."""
    ran = subprocess.run(
        [sys.executable, "-m", "sidecar.cli", *args], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    said = {}
    for line in ran.stdout.splitlines():
        words = line.split()
        if len(words) == 3 and words[1] in ("id", "key"):
            said[words[0]] = words[2]
    return TableKeys(said["table"], said["GM"], said["player"], said["observer"])


def serve_command(port: int, data: Path, *extra: str) -> list[str]:
    """`verdict serve` on 127.0.0.1:``port`` with its data in ``data``, logging JSON."""
    return [
        sys.executable,
        "-m",
        "sidecar.cli",
        "serve",
        "--port",
        str(port),
        "--data",
        str(data),
        "--log-format",
        "json",
        *extra,
    ]


def wait_listening(port: int, proc: subprocess.Popen[Any], timeout: float = 15.0) -> None:
    """Return once 127.0.0.1:``port`` takes a connection. If ``proc`` exits first, or ``timeout``
    seconds pass, raise :class:`RuntimeError` with what it printed (when its output is a pipe)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            if proc.poll() is not None:
                said = proc.stdout.read() if proc.stdout else b""
                said = said.decode(errors="replace") if isinstance(said, bytes) else said
                raise RuntimeError(
                    f"the sidecar exited with status {proc.returncode} before listening on port {port}"
                    + (f":\n{said}" if said else "")
                ) from None
            if time.monotonic() > deadline:
                raise RuntimeError(f"the sidecar did not listen on port {port} within {timeout:g} s") from None
            time.sleep(0.05)


class Process:
    """`verdict serve` as a separate process, which a test can kill and start again.

    Its output goes to a pipe (read when it fails to start), or to the file ``log`` for long runs that
    would fill a pipe nobody reads.
    """

    def __init__(
        self,
        data: Path,
        port: int,
        extra: tuple[str, ...] = (),
        log: Path | None = None,
        preexec_fn: Callable[[], Any] | None = None,
    ) -> None:
        self.data, self.port, self.extra, self.log, self.preexec_fn = data, port, extra, log, preexec_fn
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def keys(self) -> TableKeys:
        """The default table's keys, as `verdict serve` writes them on its first start."""
        fields = dict(line.split(" ", 1) for line in (self.data / "default-table.keys").read_text().splitlines())
        return TableKeys(fields["table"], fields["gm"], fields["player"], fields["observer"])

    def user_key(self, user: str) -> str:
        """The user's key, as a GM gets it: `verdict table user-key` (run in this process: it only reads the
        ledger the sidecar writes, so a child process would prove nothing more)."""
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = cli_main(["table", "--data", str(self.data), "user-key", self.keys().table, user])
        if code != 0:
            raise RuntimeError(f"verdict table user-key exited {code}")
        return out.getvalue().strip()

    def start(self) -> None:
        log = open(self.log, "ab") if self.log is not None else None
        try:
            self.proc = subprocess.Popen(
                serve_command(self.port, self.data, *self.extra),
                stdout=log if log is not None else subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=ROOT,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                preexec_fn=self.preexec_fn,
            )
        finally:
            if log is not None:
                log.close()  # the child holds its own copy
        try:
            wait_listening(self.port, self.proc)
        except RuntimeError as exc:
            if self.log is None:
                raise
            raise RuntimeError(f"{exc}; its output is in {self.log}") from None

    def stop(self, sig: int | None = None) -> int:
        assert self.proc is not None
        if sig is None:
            self.proc.terminate()
        else:
            self.proc.send_signal(sig)
        try:
            rc = self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()  # not left running after the test that failed on it
            self.proc.wait()
            raise
        if self.proc.stdout:
            self.proc.stdout.close()
        self.proc = None
        return rc
