"""What everyone hears of a turn's last request is worked out while its commit is under way on the ledger's
writer thread, not before the commit starts: a lone roll's round trip does not wait for that work.

Real websocket clients against the real app over the real SQLite ledger, whose commit (on its writer
thread) is made slow enough to be seen; nobody hears of the roll before it is durable all the same."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar.server.hub import Hub
from sidecar.state.ledger import SqliteLedger

from ..conftest import serving


class SlowCommits(SqliteLedger):
    """The SQLite ledger whose writer thread takes a while over each commit, saying when it starts and ends."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.started, self.finished = threading.Event(), threading.Event()

    def _write(self, db: sqlite3.Connection, batch: Iterable[tuple[Any, ...]]) -> None:
        if threading.current_thread() is threading.main_thread():  # the table's creation, before serving
            return super()._write(db, batch)
        self.started.set()
        time.sleep(0.3)
        super()._write(db, batch)
        self.finished.set()


async def test_a_lone_rolls_hearing_is_worked_out_while_its_commit_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = SlowCommits(tmp_path / "verdict.sqlite3")
    worked_out: list[tuple[bool, bool]] = []
    real = Hub._told

    def told(self: Hub, *args: Any, **kwargs: Any) -> None:
        worked_out.append((ledger.started.is_set(), ledger.finished.is_set()))
        real(self, *args, **kwargs)

    monkeypatch.setattr(Hub, "_told", told)
    async with serving(tmp_path, ledger) as sidecar:
        gm = await sidecar.client("gm")
        player = await sidecar.client("player", user="alice")
        rolled = await gm.request(m.Roll(id="r1", check=FacetsCheck(pool=3)))
        assert worked_out == [(True, False)]  # after the commit started, before it ended
        assert ledger.finished.is_set()  # and the reply only once it was durable
        heard = await player.next(10)  # the player hears the public roll
        assert (type(heard).__name__, heard.seq) == (type(rolled).__name__, rolled.seq)
        await gm.close()
        await player.close()
