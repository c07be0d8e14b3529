"""A ledger written by the release whose schema had the two request-window indexes (``data/``: a table where
a GM and a player each rolled ``r0`` ... ``r4`` with a window of 3) opens: the indexes are dropped, nothing they
held is lost, and over a real websocket each requester's last three ids are answered with their first replies,
an older id is a new request, the old checks are verified, and the housekeeping prunes to the window."""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
from pathlib import Path

from protocol.v1 import codec
from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar.client import Client
from sidecar.state.ledger import RequestWindow, SqliteLedger

from .test_request_window import running

DATA = Path(__file__).parent / "data" / "ledger-window-indexes.sqlite3"
WINDOW_INDEXES = {"requests_by_requester", "requests_by_age"}


def _indexes(path: Path) -> set[str]:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='index'")}


async def test_a_ledger_with_the_window_indexes_opens_without_them_and_answers_as_before(tmp_path: Path) -> None:
    path = tmp_path / "verdict.sqlite3"
    shutil.copy(DATA, path)
    made = json.loads(Path(f"{DATA}.json").read_text())
    assert WINDOW_INDEXES <= _indexes(path)  # as that release left it

    ledger = SqliteLedger(path)
    ledger.window = RequestWindow(count=3, age=100 * 365 * 24 * 3600.0)  # the app's settings say the same
    assert not WINDOW_INDEXES & _indexes(path)
    table = made["table"]
    assert sorted(await ledger.find_request_ids(table)) == sorted(
        f'["{role}","{user}","r{i}"]' for role, user in (("gm", "gm"), ("player", "alice")) for i in (2, 3, 4)
    )
    async with running(ledger, tmp_path, request_window=3, request_window_age=100 * 365 * 24 * 3600.0) as (_, url):
        clients = {
            "gm": await Client.connect(url, table, made["gm"], user="gm"),
            "alice": await Client.connect(url, table, made["alice"], user="alice"),
        }
        for who, client in clients.items():
            for i in (2, 3, 4):  # inside each requester's window: the very first reply
                reply = await client.request(m.Roll(id=f"r{i}", check=FacetsCheck(pool=2)))
                assert codec.encode(reply).decode() == made["replies"][f"{who}:r{i}"]
        old = codec.decode_server(made["replies"]["gm:r0"].encode())
        assert isinstance(old, m.Rolled)
        again = await clients["gm"].request(m.Roll(id="r0", check=FacetsCheck(pool=2)))  # out of the window
        assert isinstance(again, m.Rolled) and again.check != old.check and again.seq == 11
        verified = await clients["alice"].request(m.Verify(id="v", check=old.check))
        assert isinstance(verified, m.Verified) and verified.found and verified.result == old.result
        for client in clients.values():
            await client.close()

    ledger = SqliteLedger(path)
    ledger.window = RequestWindow(count=3, age=100 * 365 * 24 * 3600.0)
    # never pruned before: r0 and r1 of each beyond the window, and the gm's r2 since r0 was stored again
    assert ledger.prune_requests_sync() == 4
    assert sorted(ledger.request_ids(table)) == sorted(
        [*(f'["gm","gm","r{i}"]' for i in (3, 4, 0)), *(f'["player","alice","r{i}"]' for i in (2, 3, 4))]
    )
    assert not WINDOW_INDEXES & _indexes(path)
    ledger.close()
