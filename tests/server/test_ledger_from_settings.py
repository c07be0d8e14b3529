"""The application serves from the ledger its settings name: ``create_app(Settings(ledger_url=...))`` alone,
as a program embedding the sidecar makes it, with no ledger handed in."""

from __future__ import annotations

from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar import config
from sidecar.client import Client
from sidecar.server.app import HUB, Settings, create_app, ledger_for
from sidecar.state.ledger import SqliteLedger, open_ledger

from ..conftest import free_port


async def _served_roll(settings: Settings, gm_key: str, table: str) -> tuple[TestServer, str]:
    server = TestServer(create_app(settings), host="127.0.0.1", port=free_port())
    await server.start_server()
    gm = await Client.connect(f"ws://127.0.0.1:{server.port}/ws", table, gm_key, user="gm")
    try:
        rolled = await gm.request(m.Roll(id="r1", check=FacetsCheck(pool=2, dice=[4, 5])))
    finally:
        await gm.close()
    return server, rolled.check


async def test_an_app_made_from_settings_naming_postgresql_serves_from_it(pg_url: str, tmp_path: Path) -> None:
    admin = open_ledger(pg_url, tmp_path)
    keys = admin.create_table("from settings")
    settings = Settings(data=tmp_path, ledger_url=pg_url, rate=1e6, burst=1e6, request_window=7)
    server, check = await _served_roll(settings, keys.gm, keys.table)
    try:
        served = server.app[HUB].ledger
        assert type(served).__name__ == "PostgresLedger" and served.window.count == 7
        assert server.app[HUB].bus.listener is served  # a shared ledger: the bus listens to it
    finally:
        await server.close()
    # the roll is in the database (read by another process's connection), and no SQLite file was made
    assert [seq for seq, _ in admin.check_events(keys.table, check)] == [1]
    assert not config.data_file(tmp_path).exists()
    admin.close()


async def test_an_app_made_from_settings_naming_no_ledger_serves_from_the_data_folder(tmp_path: Path) -> None:
    admin = SqliteLedger(config.data_file(tmp_path))
    keys = admin.create_table("from settings")
    admin.close()
    server, check = await _served_roll(Settings(data=tmp_path, rate=1e6, burst=1e6), keys.gm, keys.table)
    try:
        served = server.app[HUB].ledger
        assert isinstance(served, SqliteLedger) and served.path == config.data_file(tmp_path)
        assert server.app[HUB].bus.listener is None  # nobody else appends: nothing to listen to
    finally:
        await server.close()
    reopened = SqliteLedger(config.data_file(tmp_path))
    assert [seq for seq, _ in reopened.check_events(keys.table, check)] == [1]
    reopened.close()


def test_a_ledger_url_that_names_no_ledger_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown ledger 'mysql'"):
        ledger_for(Settings(data=tmp_path, ledger_url="mysql://somewhere/db"))


def test_serve_opens_the_ledger_its_settings_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``serve(settings)`` with no ledger handed in opens the one ``ledger_url`` names, as ``create_app`` does:
    a URL naming no ledger stops it with status 2 and a line naming the ledger, and no SQLite file is made."""
    from sidecar.server.run import serve

    assert serve(Settings(data=tmp_path, ledger_url="nosuch://somewhere")) == 2
    assert "ledger" in capsys.readouterr().err
    assert not config.data_file(tmp_path).exists()
