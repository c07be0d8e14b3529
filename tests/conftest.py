"""Shared fixtures: a real sidecar on a free loopback port, and real websocket clients."""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer
from hypothesis import settings as hypothesis_settings

from sidecar import config
from sidecar.client import Client
from sidecar.server.app import Settings, create_app
from sidecar.server.run import loop_to_run
from sidecar.state.keys import derive_user_key
from sidecar.state.ledger import SqliteLedger, TableKeys

# `verdict serve` in a child process lives in a module of its own (the benchmarks use it, without pytest);
# the tests import these names from here as well.
from .serving import ROOT as ROOT
from .serving import Process as Process
from .serving import free_port as free_port

# Property tests are deterministic by default (`make test`): the same examples on every run and machine.
# `make test-random` (HYPOTHESIS_PROFILE=random) draws fresh ones; a failure it finds becomes an @example.
# No deadline: an example's time on a loaded machine says nothing of the code.
hypothesis_settings.register_profile("ci", derandomize=True, database=None, print_blob=True, deadline=None)
hypothesis_settings.register_profile("random", derandomize=False, print_blob=True, deadline=None)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# The suite runs on the loop `verdict serve` runs on: uvloop by default (`make test`), asyncio's with
# VERDICT_LOOP=asyncio (`make test-asyncio`). The same variable reaches every `verdict serve` the tests start
# (the knob's environment variable), so the tests' clients and the sidecars share one kind of loop.
TEST_LOOP = loop_to_run(os.environ.get(config.LOOP_ENV) or None)
if TEST_LOOP == "uvloop":
    import uvloop

    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())

# No test writes to the user's own data folder (platformdirs' per-user folder, the CLI's default): every process
# of the suite, and every sidecar or CLI it starts, sees a throwaway one, made before any test runs.
if "VERDICT_TEST_XDG" not in os.environ:
    os.environ["VERDICT_TEST_XDG"] = tempfile.mkdtemp(prefix="verdict-xdg-")
    os.environ["XDG_DATA_HOME"] = os.environ["VERDICT_TEST_XDG"]


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


@contextlib.asynccontextmanager
async def serving(tmp_path: Path, ledger: SqliteLedger) -> AsyncIterator[Sidecar]:
    """The real app on a real port (in this process) over ``ledger``, with one table."""
    keys = ledger.create_table("test")
    app = create_app(Settings(data=tmp_path, rate=1e6, burst=1e6), ledger)
    server = TestServer(app, host="127.0.0.1", port=free_port())
    await server.start_server()
    try:
        yield Sidecar(url=f"ws://127.0.0.1:{server.port}/ws", keys=keys, ledger=ledger, server=server)
    finally:
        await server.close()


@pytest.fixture
async def sidecar(tmp_path: Path) -> AsyncIterator[Sidecar]:
    """The real app on a real port (in this process), with one table."""
    async with serving(tmp_path, SqliteLedger(tmp_path / "verdict.sqlite3")) as sc:
        yield sc


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


# Tests that build a distribution from the checkout itself (setuptools writes its egg-info and build folder
# there) run in one process of `pytest -n`, one after the other; xdist's `loadgroup` keeps a group together.
_FROM_THE_CHECKOUT = {"test_packaging.py", "test_deploy.py", "test_readme.py"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in _FROM_THE_CHECKOUT and item.path.parent.name == "tests":
            item.add_marker(pytest.mark.xdist_group("from_the_checkout"))
