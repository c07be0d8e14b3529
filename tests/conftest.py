"""Shared fixtures: a real sidecar on a free loopback port, and real websocket clients."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer
from hypothesis import settings as hypothesis_settings

from sidecar.client import Client
from sidecar.server.app import Settings, create_app
from sidecar.state.keys import derive_user_key
from sidecar.state.ledger import SqliteLedger, TableKeys

ROOT = Path(__file__).resolve().parents[1]

# Property tests are deterministic by default (`make test`): the same examples on every run and machine.
# `make test-random` (HYPOTHESIS_PROFILE=random) draws fresh ones; a failure it finds becomes an @example.
hypothesis_settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
hypothesis_settings.register_profile("random", derandomize=False, print_blob=True)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Sidecar:
    url: str
    keys: TableKeys
    ledger: SqliteLedger
    server: TestServer | None = None

    def user_key(self, user: str) -> str:
        return derive_user_key(self.ledger.user_secret(self.keys.table), user)  # type: ignore[arg-type]

    async def client(self, role: str = "gm", user: str | None = None, **kw: object) -> Client:
        """A GM (with its own user id), a player bound to ``user`` by that user's key, or an observer."""
        user = user or f"{role}-user"
        if role == "player":
            key = self.user_key(user)
        else:
            key = getattr(self.keys, role)
        if role == "observer":
            user = None
        return await Client.connect(self.url, self.keys.table, key, user=user, **kw)  # type: ignore[arg-type]


@pytest.fixture
async def sidecar(tmp_path: Path) -> AsyncIterator[Sidecar]:
    """The real app on a real port (in this process), with one table."""
    ledger = SqliteLedger(tmp_path / "verdict.sqlite3")
    keys = ledger.create_table("test")
    app = create_app(Settings(data=tmp_path, rate=1e6, burst=1e6), ledger)
    server = TestServer(app, host="127.0.0.1", port=free_port())
    await server.start_server()
    try:
        yield Sidecar(url=f"ws://127.0.0.1:{server.port}/ws", keys=keys, ledger=ledger, server=server)
    finally:
        await server.close()


class Process:
    """`verdict serve` as a separate process, which a test can kill and start again."""

    def __init__(self, data: Path, port: int, extra: tuple[str, ...] = ()) -> None:
        self.data, self.port, self.extra = data, port, extra
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def keys(self) -> TableKeys:
        fields = dict(line.split(" ", 1) for line in (self.data / "default-table.keys").read_text().splitlines())
        return TableKeys(fields["table"], fields["gm"], fields["player"], fields["observer"])

    def user_key(self, user: str) -> str:
        """The user's key, as a GM gets it: `verdict table user-key`."""
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "sidecar.cli",
                "table",
                "--data",
                str(self.data),
                "user-key",
                self.keys().table,
                user,
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
        )
        return out.stdout.strip()

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "sidecar.cli",
                "serve",
                "--port",
                str(self.port),
                "--data",
                str(self.data),
                "--log-format",
                "json",
                *self.extra,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(
                        self.proc.stdout.read().decode() if self.proc.stdout else "sidecar died"
                    ) from None
                time.sleep(0.05)
        raise RuntimeError("the sidecar did not start")

    def stop(self, sig: int | None = None) -> int:
        assert self.proc is not None
        if sig is None:
            self.proc.terminate()
        else:
            self.proc.send_signal(sig)
        rc = self.proc.wait(timeout=15)
        if self.proc.stdout:
            self.proc.stdout.close()
        self.proc = None
        return rc


@pytest.fixture
def sidecar_process(tmp_path: Path) -> Iterator[Process]:
    p = Process(tmp_path / "data", free_port())
    p.start()
    try:
        yield p
    finally:
        if p.proc is not None:
            p.proc.kill()
            p.proc.wait()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[object]:
    """One real PostgreSQL server for the session (skipped only where its binaries are missing)."""
    from .pgserver import MISSING, PgServer, bin_dir

    if bin_dir() is None:
        pytest.skip(MISSING)
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg is not installed: pip install -e '.[postgres]' (make test does)")
    server = PgServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_url(pg_server: object) -> str:
    """A fresh database on the session's PostgreSQL server."""
    return pg_server.create_database()  # type: ignore[attr-defined]
