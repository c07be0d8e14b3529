"""Table housekeeping for the CLI: printing keys and exporting a session log.

The markdown recap is written for an audience. ``players`` (the default, a recap to share): what every player
may see, numbered as they number it (:mod:`sidecar.state.hearing`), so that nothing in it, not even a gap,
tells of a ``gm``, ``blind`` or ``self`` roll, a hidden complication or a lurking trial's name. ``gm``: every
event the GM was told of, each one not seen by all marked with who saw it. The JSON lines are the ledger itself, for operators.
"""

from __future__ import annotations

import io
import json
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from protocol.v1 import table as t
from sidecar import config, datadir
from sidecar.engine import registry
from sidecar.state.keys import print_keys as print_keys  # where the server prints the first table's keys too
from sidecar.state.ledger import Ledger
from sidecar.state.table import Stored, Table, decode_stored
from sidecar.state.visibility import Viewer, may_see

AUDIENCES = ("players", "gm")
SEEN_BY = {"gm": "GM only", "roller_gm": "GM and roller only"}
"""How the GM's recap marks an event not seen by all, by its visibility."""


TABLE_ROWS = ("check_events", "snapshots", "requests", "events")
"""The ledger's tables that hold rows of a table (by ``table_id``), besides its own row in ``tables``."""


def delete_table(data: Path, table_id: str) -> tuple[Path, int]:
    """Delete ``table_id`` from the SQLite ledger of ``data``, whole, in one transaction, after a backup of the
    ledger beside it; no sidecar may serve the folder meanwhile (:class:`~sidecar.datadir.Served`).
    Returns the backup's path and how many events went."""
    from sidecar.backup import backup

    with datadir.nobody_serving(data):
        kept = data / f"{config.DATA_FILE}.before-delete-{table_id}-{time.strftime('%Y%m%d-%H%M%S')}"
        backup(data, kept)
        db = sqlite3.connect(config.data_file(data), isolation_level=None)
        try:
            db.execute("PRAGMA busy_timeout=5000")
            db.execute("BEGIN IMMEDIATE")
            try:
                present = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
                events = db.execute("SELECT count(*) FROM events WHERE table_id=?", (table_id,)).fetchone()[0]
                for name in TABLE_ROWS:
                    if name in present:
                        db.execute(f"DELETE FROM {name} WHERE table_id=?", (table_id,))
                db.execute("DELETE FROM tables WHERE id=?", (table_id,))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        finally:
            db.close()
    if datadir.keys_file_table(data) == table_id:
        datadir.keys_path(data).replace(kept.with_name(f"{config.KEYS_FILE}.deleted-{table_id}"))
    return kept, int(events)


def _rows(ledger: Ledger, table_id: str) -> list[tuple[int, Stored]]:
    return [(seq, decode_stored(data)) for seq, data in ledger.events(table_id)]


def export_table(ledger: Ledger, table_id: str, fmt: str, audience: str = "players") -> str:
    """The table's session log: ``jsonl`` (the ledger, every event) or a ``markdown`` recap for ``audience``."""
    if audience not in AUDIENCES:
        raise ValueError(f"a recap is for {' or '.join(AUDIENCES)}, not {audience!r}")
    if fmt == "markdown" and audience == "players":
        return _players_markdown(ledger, table_id)
    rows = _rows(ledger, table_id)
    if fmt == "jsonl":
        out = io.StringIO()
        for seq, st in rows:
            obj = {"seq": seq, "visibility": st.vis, "event": msgspec.to_builtins(st.event)}
            out.write(json.dumps(obj, separators=(",", ":")) + "\n")
        return out.getvalue()
    return _markdown(ledger, table_id, rows)


def _heading(ledger: Ledger, table_id: str, audience: str) -> list[str]:
    info = ledger.table(table_id)
    title = info.name if info else table_id
    lines = [f"# Session log: {title}", ""]
    if info:
        lines += [
            f"Table `{table_id}`, created {datetime.fromtimestamp(info.created, UTC):%Y-%m-%d %H:%M} UTC.",
            "",
        ]
    if audience == "gm":
        lines += ["The GM's recap: every event, those not seen by all marked with who saw them. Not for players.", ""]
    else:
        lines += ["What every player saw, numbered as they saw it.", ""]
    return lines


def _players_markdown(ledger: Ledger, table_id: str) -> str:
    """The recap every player may read: the table as the table-wide player key is told it."""
    table = Table(table_id, ledger)
    table.load()
    told = table.visible(0, Viewer("player", None))
    lines = _heading(ledger, table_id, "players")
    lines += _entries([(e.seq, e.seq, e.event, "") for e in told])
    lines.append("")
    return "\n".join(lines)


def _markdown(ledger: Ledger, table_id: str, rows: list[tuple[int, Stored]]) -> str:
    """The GM's recap: every event the GM was told of, numbered as the GM numbers it, each marked with who
    saw it. A ``self`` roll is its roller's private test, which no GM socket hears: it is not in it either."""
    gm = Viewer("gm", None)
    told = [(seq, st) for seq, st in rows if may_see(st.vis, None, gm)]
    number = {seq: n for n, (seq, _) in enumerate(told, 1)}  # ledger seq -> the GM's own number for it
    entries = []
    for seq, st in told:
        seen_by = SEEN_BY.get(st.vis)
        if isinstance(st.event, t.RollEvent) and st.event.mode != "public":
            seen_by = f"{st.event.mode} roll: {seen_by}" if seen_by else f"{st.event.mode} roll"
        entries.append((seq, number[seq], st.event, f" *({seen_by})*" if seen_by else ""))
    lines = _heading(ledger, table_id, "gm")
    lines += _entries(entries)
    lines.append("")
    return "\n".join(lines)


def _entries(events: list[tuple[int, int, Any, str]]) -> list[str]:
    """The recap's lines for (seq the events name each other by, number shown, event, mark) in order: undone
    ones marked, events that say nothing to a reader left out."""
    undone = {s for _, _, ev, _ in events if isinstance(ev, t.Undone) for s in ev.seqs}
    memos: dict[str, dict[str, Any]] = {}  # each rule set's, across the recap (a facet's name as last written)
    lines = []
    for seq, shown, ev, mark in events:
        text = _line(seq, ev, memos)
        if text is not None:
            lines.append(f"- **#{shown}**{mark}{' *(undone)*' if seq in undone else ''} {text}")
    return lines


def _who(ev: Any) -> str:
    who: str = ev.actor or ev.user or ev.by
    return who


def _line(seq: int, ev: Any, memos: dict[str, dict[str, Any]]) -> str | None:
    """The recap's line for one event: the table's own here, a rule set's its table part's (``recap``, with its
    own memo across the recap)."""
    owned = registry.part_of_event(ev)
    if owned is not None:
        return owned[1].recap(seq, ev, memos.setdefault(owned[0], {}))
    match ev:
        case t.RollEvent():
            r = ev.result
            system = type(r).__struct_config__.tag
            label = f" ({ev.label})" if ev.label else ""
            return f"{_who(ev)} rolled `{system}`{label}: dice {list(r.dice)} → **{r.outcome.replace('_', ' ')}**"
        case t.FollowEvent():
            action = msgspec.to_builtins(ev.action)
            return f"{ev.user or ev.by} followed up check {ev.check_id}: {action} → **{ev.result.outcome.replace('_', ' ')}**"
        case t.ConditionAdded():
            return f"{ev.actor}: new condition ({ev.text})"
        case t.ConditionRemoved():
            return f"{ev.actor}: condition removed"
        case t.ExtendedStarted():
            limit = f", at most {ev.limit} attempts" if ev.limit else ""
            return f"extended check “{ev.name}”: {ev.threshold} net successes, one roll per {ev.time_unit}{limit}"
        case t.ExtendedProgressed():
            return f"extended check progress +{ev.added}: {ev.progress} after {ev.attempts} attempt(s), {ev.status.replace('_', ' ')}"
        case t.SceneActivated():
            return f"scene: {ev.scene}"
        case t.Undone():
            return f"undo of events {ev.seqs}"
    return None
