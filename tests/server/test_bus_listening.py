"""The bus asks its ledger once, when it is made, whether it listens (:class:`~sidecar.state.ledger.Listening`):
a shared ledger is listened to, an embedded one only checked periodically."""

from __future__ import annotations

from pathlib import Path

from protocol.v1 import messages as m
from sidecar.server.appkeys import HUB
from sidecar.state.ledger import Listening, SqliteLedger, open_ledger

from ..conftest import Sidecar


def test_only_the_shared_ledger_has_the_listening_capability(tmp_path: Path, pg_url: str) -> None:
    embedded = SqliteLedger(tmp_path / "verdict.sqlite3")
    shared = open_ledger(pg_url, tmp_path)
    try:
        assert not isinstance(embedded, Listening)
        assert isinstance(shared, Listening)
    finally:
        embedded.close()
        shared.close()


async def test_a_bus_over_an_embedded_ledger_listens_to_nothing_and_still_serves(sidecar: Sidecar) -> None:
    assert sidecar.server is not None
    bus = sidecar.server.app[HUB].bus
    assert bus is not None and bus.listener is None
    gm = await sidecar.client("gm", user="gm")
    try:
        assert isinstance(await gm.request(m.Ping(id="p")), m.Pong)
        hub = sidecar.server.app[HUB].tables[sidecar.keys.table]
        await bus.follow(hub)  # a join's listening: nothing to listen to, and no error
        bus.let_go()
        await bus.check_all()
    finally:
        await gm.close()
    assert bus.listens == 0 and not bus.listening.is_set() and bus.unlistened == 0
