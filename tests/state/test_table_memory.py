"""A table holds its state, not its history: memory stays bounded however many events clients send.

Measured the way the hostile-clients report did: rolls with long labels, and what stays allocated
once they are in. The rare paths that need the history (a reconnect with ``since``, an undo) read it
back from the ledger and answer exactly as a table holding every event did.
"""

from __future__ import annotations

import gc
import tracemalloc

import msgspec

from protocol.v1 import challenge as challenge_t
from protocol.v1 import messages as m
from protocol.v1 import table as t
from protocol.v1.challenge import ChallengeCheck
from protocol.v1.facets import FacetsCheck
from protocol.v1.feats import FeatsCheck
from sidecar.engine import Dice
from sidecar.state.ledger import SqliteLedger
from sidecar.state.table import Table
from sidecar.state.visibility import Viewer

from .test_replay_property import _apply

GM = Viewer("gm", "gm")
ANNA = Viewer("player", "anna")
BO = Viewer("player", "bo")
PUBLIC = Viewer("player", None)
VIEWERS = (GM, ANNA, BO, PUBLIC, Viewer("observer", None))

LABEL = 8_000


def _roll(table: Table, viewer: Viewer, label: str, mode: str = "public") -> None:
    pending = table.prepare_roll(
        m.Roll(id="x", check=FacetsCheck(pool=2, dice=[3, 5]), actor="Ayla", mode=mode, label=label),  # type: ignore[arg-type]
        viewer,
        viewer.user,
    )
    table.ledger.append_sync(table.id, pending.encoded(), None)
    table.commit(pending)


def _retained(table: Table, n: int, start: int) -> int:
    """Bytes still allocated after ``n`` more rolls, each with a label of ``LABEL`` characters."""
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    for i in range(start, start + n):
        _roll(table, ANNA, f"{i:08d}" + "x" * (LABEL - 8))
    gc.collect()
    return tracemalloc.get_traced_memory()[0] - before


def test_memory_does_not_grow_with_the_labels_clients_send(tmp_path):
    ledger = SqliteLedger(tmp_path / "v.sqlite3")
    keys = ledger.create_table("t")
    table = Table(keys.table, ledger)
    table.load()
    warm = 2 * table.recent_kept  # fill the recent window first: past it, the table keeps no event
    tracemalloc.start()  # before the window fills, so that the labels it lets go of count as freed
    try:
        for _ in range(warm):
            _roll(table, ANNA, "x" * LABEL)
        table.snapshot(ANNA)  # a player's view, kept current from now on
        grown = _retained(table, 1_000, warm)
    finally:
        tracemalloc.stop()
    # each roll sent 8 kB of label; holding the events would keep 8 MB or more. What grows is the
    # state (each check open to follow-ups, without its label) and the recent window's turnover.
    assert grown < 1_000 * 1_000, f"{grown / 1000:.0f} kB retained for 1,000 rolls of {LABEL} B labels"
    assert len(table.recent) <= 2 * table.recent_kept
    assert all(rec.label is None for rec in table.state.checks.values())
    # the labels are not lost: the ledger has them, and a reconnect from the start reads them back
    frames = table.visible(0, ANNA)
    assert len(frames) == warm + 1_000 and frames[-1].event.label.startswith(f"{warm + 999:08d}")
    ledger.close()


def _script(table: Table) -> None:
    """Rolls in every mode by two players and the GM, GM operations, facets and undos."""
    acts: list[tuple] = []
    for i in range(6):
        for viewer in (ANNA, BO, GM):
            for mode in ("public", "gm", "blind", "self"):
                acts.append(("roll", FacetsCheck(pool=1, dice=[1 + (i % 6)]), "Ayla", mode, viewer))
        acts += [
            ("roll", FeatsCheck(level=i - 3, dice=[(i % 8) + 1, 8, 3]), "Bram", "self", ANNA),
            ("roll", ChallengeCheck(cl=1 + i % 5, dice=[3 * i + 1]), "Cade", "gm", BO),
            ("roll", ChallengeCheck(cl=1, modifier=5, dice=[15 + i]), "Cade", "public", GM),
            ("epic_remove",),
            ("op", challenge_t.ComplicationAdd(scene="S", text=f"secret-{i}", hidden=i % 2 == 0)),
            ("op", t.ConditionAdd(actor="Ayla")),
            ("reveal",),
            ("facet", "rename" if i % 2 else "remove"),
            ("op", challenge_t.StrainSet(actor="Bram", strain=i)),
            ("op", t.Undo(count=1 + i % 3)),
            ("op", t.Undo(count=1, events=True)),
        ]
    for a in acts:
        _apply(table, a)


def _seen(table: Table) -> bytes:
    out = []
    for viewer in VIEWERS:
        out.append(msgspec.json.encode(table.snapshot(viewer)))
        for since in range(0, table.head + 1, 7):
            out.append(msgspec.json.encode(table.visible(since, viewer)))
        out.append(msgspec.json.encode(table.visible(table.head - 1, viewer)))
    return b"\n".join(out)


def test_reconnects_and_undos_read_from_the_ledger_give_the_same_frames(tmp_path):
    ledger = SqliteLedger(tmp_path / "v.sqlite3")
    keys = ledger.create_table("t")
    live = Table(keys.table, ledger, Dice(lambda n: bytes(range(n % 256)) * (n // 256 + 1)))
    live.recent_kept = 2  # almost no event kept: reconnects and undos read the ledger
    live.load()
    for viewer in VIEWERS:
        live.snapshot(viewer)  # views kept current, and rebuilt, through every undo
    _script(live)
    assert live.head > 100 and len(live.recent) <= 4
    assert sum(isinstance(st.event, t.Undone) for _, st in live.stored()) >= 6

    def loaded(kept: int) -> Table:
        table = Table(keys.table, ledger)
        table.recent_kept = kept
        table.load()
        return table

    everything = loaded(10**9)  # every event in memory: how a table answered before
    assert len(everything.recent) == everything.head == live.head
    assert _seen(live) == _seen(everything)
    assert _seen(loaded(2)) == _seen(everything)
    ledger.close()
