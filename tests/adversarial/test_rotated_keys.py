"""`verdict table rotate-keys` ends every session of the old keys, on every sidecar of the ledger.

A GM, a player with a user key, a player with the table-wide key and an observer hold sockets at a table of a
real `verdict serve`; `verdict table rotate-keys` runs as the host runs it, in a process of its own on the same
ledger. Within a few seconds each old socket is closed with 4403 ("keys rotated"), the code that tells the
module to ask for the new key, and no roll is acknowledged on it after that; a hello with an old key is
refused and the new keys open the table. On SQLite (one sidecar) and on PostgreSQL (two sidecars, the
sessions on both).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
import websockets

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar.client import Client, RequestFailed
from sidecar.server.hub import KEYS_ROTATED
from sidecar.state.keys import derive_user_key
from sidecar.state.ledger import TableKeys, open_ledger

from ..conftest import Process, free_port
from ..serving import cli_keys

WITHIN = 8.0
"""Seconds the sessions may take to end here (the sidecar looks every 2 s; a loaded machine is slow)."""


def _rotate(*where: str, table: str) -> TableKeys:
    """`verdict table ... rotate-keys TABLE` in a process of its own; the new keys it printed."""
    return cli_keys("table", *where, "rotate-keys", table)


async def _sessions(urls: list[str], keys: TableKeys, secret: bytes) -> dict[str, Client]:
    """A GM, a user-keyed player, a table-wide player and an observer, spread over the sidecars at ``urls``."""
    url = lambda i: urls[i % len(urls)]  # noqa: E731
    return {
        "gm": await Client.connect(url(0), keys.table, keys.gm, user="gm"),
        "player": await Client.connect(url(1), keys.table, derive_user_key(secret, "p1"), user="p1"),
        "table-wide player": await Client.connect(url(2), keys.table, keys.player),
        "observer": await Client.connect(url(3), keys.table, keys.observer),
    }


async def _ended(c: Client, timeout: float) -> tuple[int | None, str, float]:
    """Wait for the sidecar to close ``c``: the close code, its reason, and how long it took."""
    start = time.monotonic()
    assert c._reader is not None
    await asyncio.wait_for(asyncio.shield(c._reader), timeout)
    return c.ws.close_code, c.ws.close_reason or "", time.monotonic() - start


async def _rotation_ends_the_sessions(urls: list[str], keys: TableKeys, secret: bytes, *where: str) -> TableKeys:
    sessions = await _sessions(urls, keys, secret)
    for who in ("gm", "player"):
        await sessions[who].request(m.Roll(id=f"before-{who}", check=FacetsCheck(pool=2)))
    new = _rotate(*where, table=keys.table)
    assert new.gm != keys.gm
    ended = await asyncio.gather(*(_ended(c, WITHIN) for c in sessions.values()))
    for who, (code, reason, took) in zip(sessions, ended):
        assert code == KEYS_ROTATED and "rotated" in reason, (who, code, reason)
        assert took < WITHIN, (who, took)
    with pytest.raises(
        (RequestFailed, ConnectionError, websockets.ConnectionClosed)
    ):  # nothing is acknowledged on an ended session
        await sessions["player"].request(m.Roll(id="after", check=FacetsCheck(pool=2)), timeout=2)
    for url in urls:  # the old keys open nothing any more; the new ones do, on every sidecar
        for old in (keys.gm, keys.observer):
            with pytest.raises(RequestFailed) as refused:
                await Client.connect(url, keys.table, old)
            assert refused.value.code == "unauthorized"
        gm = await Client.connect(url, keys.table, new.gm, user="gm")
        await gm.request(m.Roll(id=f"new-{url}", check=FacetsCheck(pool=2)))
        await gm.close()
    return new


async def test_rotating_keys_ends_every_old_session_on_sqlite(tmp_path: Path) -> None:
    data = tmp_path / "data"
    sidecar = Process(data, free_port())
    sidecar.start()
    try:
        keys = sidecar.keys()
        ledger = open_ledger(None, data)
        secret = ledger.user_secret(keys.table)
        ledger.close()
        assert secret is not None
        new = await _rotation_ends_the_sessions([sidecar.url], keys, secret, "--data", str(data))
        # a session of the new keys is not ended by the next look at them
        gm = await Client.connect(sidecar.url, keys.table, new.gm, user="gm")
        await asyncio.sleep(3)
        assert isinstance(await gm.request(m.Ping(id="still")), m.Pong)
        await gm.close()
    finally:
        sidecar.stop()


@pytest.mark.slow
async def test_rotating_keys_ends_every_old_session_on_two_sidecars_over_postgresql(
    tmp_path: Path, pg_url: str
) -> None:
    ledger: Any = open_ledger(pg_url, tmp_path)
    keys = ledger.create_table("rotated")
    secret = ledger.user_secret(keys.table)
    ledger.close()
    procs = [Process(tmp_path / f"data{i}", free_port(), ("--ledger", pg_url)) for i in range(2)]
    for p in procs:
        p.start()
    try:
        await _rotation_ends_the_sessions([p.url for p in procs], keys, secret, "--ledger", pg_url)
    finally:
        for p in procs:
            p.stop()
