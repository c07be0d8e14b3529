"""A table whose append failed and whose read-back failed too (``HeldTable.broken``): it still holds the
refused action in memory, and nothing of that may reach anyone, through ``state``, ``verify`` or a join.

Real websocket clients against the real app, over the real SQLite ledger, wrapped so that its appends
and its reads of events fail as a disk that cannot be read or written would.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from protocol.v1 import challenge as challenge_t
from protocol.v1 import messages as m
from protocol.v1.facets import FacetsCheck
from sidecar.state.ledger import Action, SqliteLedger

from ..conftest import Sidecar, serving
from ..wire import refused, state


class SickLedger(SqliteLedger):
    """The SQLite ledger, with appends and reads of events that fail while told to."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.sick = False

    async def append_actions(self, table_id: str, actions: list[Action]) -> None:
        if self.sick:
            raise sqlite3.OperationalError("disk I/O error")
        await super().append_actions(table_id, actions)

    def events(self, table_id: str, since: int = 0, upto: int | None = None) -> list[tuple[int, bytes]]:
        if self.sick:
            raise sqlite3.OperationalError("disk I/O error")
        return super().events(table_id, since, upto)


@pytest.fixture
async def sick(tmp_path: Path) -> AsyncIterator[Sidecar]:
    async with serving(tmp_path, SickLedger(tmp_path / "verdict.sqlite3")) as sc:
        yield sc


async def test_a_refused_action_is_never_read_back_while_the_table_cannot_be_reloaded(sick: Sidecar) -> None:
    ledger: SickLedger = sick.ledger  # type: ignore[assignment]
    gm = await sick.client("gm", user="gm-1")
    p1 = await sick.client("player", user="p1")
    p2 = await sick.client("player", user="p2")
    ledger.sick = True
    # a roll whose append fails: refused, so it never happened; the read-back fails as well
    assert await refused(p1.request(m.Roll(id="r", check=FacetsCheck(pool=3)))) == "ledger_unavailable"
    check = f"{sick.keys.table}-1"
    ledger.sick = False  # the disk is back: nothing was stored
    assert ledger.events(sick.keys.table) == []
    # nobody may read the refused roll: not its seq, not the check, not its result
    snap = await state(p2)
    verified = await p2.request(m.Verify(id="v", check=check))
    late = await sick.client("observer")
    assert late.welcome is not None
    assert (snap.seq, verified.found, late.welcome.seq) == (0, False, 0)
    for c in [gm, p1, p2, late]:
        await c.close()


async def test_a_refused_gm_op_is_not_in_the_gms_snapshot_while_the_table_cannot_be_reloaded(sick: Sidecar) -> None:
    ledger: SickLedger = sick.ledger  # type: ignore[assignment]
    gm = await sick.client("gm", user="gm-1")
    ledger.sick = True
    op = challenge_t.StrainSet(actor="Ayla", strain=3)
    assert await refused(gm.request(m.Gm(id="s", op=op))) == "ledger_unavailable"
    ledger.sick = False  # the disk is back: nothing was stored
    assert ledger.events(sick.keys.table) == []
    snap = await state(gm)
    other = await sick.client("gm", user="gm-2")
    assert other.welcome is not None and other.welcome.snapshot is not None
    # the op was refused: no GM may see it done
    assert "Ayla" not in snap.actors, snap
    assert "Ayla" not in other.welcome.snapshot.actors
    for c in [gm, other]:
        await c.close()
