"""Backing up and restoring the SQLite ledger of a data folder.

A backup is made with SQLite's online backup API: one read transaction copies every page, so the copy is
the ledger as it stood at one commit, while a sidecar goes on serving and writing (WAL readers do not stop
the writer). The copy is one self-contained file (its journal mode set back to ``DELETE``), written beside
its name and renamed into place, owner-only like the ledger itself. Copying a live WAL database by hand
can miss the commits still in its ``-wal``, or tear a page the writer was checkpointing.

A restore puts a backup back in place of the folder's ledger, refusing while any sidecar serves the folder
(:func:`sidecar.datadir.nobody_serving`). The ledger it replaces is kept beside it (``…before-restore-TIME``)
and its ``-wal`` and ``-shm`` are removed before the backup is moved in: SQLite would otherwise read the old
ledger's log over the restored file. A keys file whose keys do not open the restored ledger is moved aside
the same way, so the next start neither points the GM at keys that fail nor refuses the folder.

A PostgreSQL ledger is backed up with the database's own tools (:data:`PG_DUMP`, :data:`PG_RESTORE`).
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from sidecar import config, datadir

PG_DUMP = "pg_dump --format=custom --file FILE 'postgresql://USER:PASSWORD@HOST/DB'"
PG_RESTORE = "pg_restore --clean --if-exists --no-owner --dbname 'postgresql://USER:PASSWORD@HOST/DB' FILE"
REQUIRED = ("tables", "events")
"""The tables every Verdict ledger holds: a file without them is not one."""


class BackupError(Exception):
    """A backup or restore that cannot be made; the message says why and what to do."""


@dataclass(frozen=True)
class LedgerSummary:
    """What a ledger file holds, as a backup or restore reports it."""

    tables: int
    events: int


def _summary(db: sqlite3.Connection, path: Path) -> LedgerSummary:
    names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    missing = [n for n in REQUIRED if n not in names]
    if missing:
        raise BackupError(f"{path} is not a Verdict ledger (no {', '.join(missing)} table)")
    tables = db.execute("SELECT count(*) FROM tables").fetchone()[0]
    events = db.execute("SELECT count(*) FROM events").fetchone()[0]
    return LedgerSummary(int(tables), int(events))


def _connect_existing(path: Path) -> sqlite3.Connection:
    """A connection to the SQLite file at ``path``, which must exist (connect would create an empty one)."""
    if not path.is_file():
        raise BackupError(f"{path}: no such file")
    try:
        return sqlite3.connect(f"file:{path}?mode=rw", uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise BackupError(f"{path} cannot be opened ({exc})") from None


def _write_copy(source: sqlite3.Connection, target: Path) -> None:
    """``source``'s database copied to ``target`` at one commit, through a file beside it renamed into place."""
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, datadir.FILE_MODE)
    os.close(fd)
    try:
        copy = sqlite3.connect(partial, isolation_level=None)
        try:
            source.backup(copy)
            copy.execute("PRAGMA journal_mode=DELETE")  # the copy is one file, without a -wal beside it
            checked = copy.execute("PRAGMA quick_check").fetchone()[0]
            if checked != "ok":
                raise BackupError(f"the copy does not check ({checked}); the ledger may be damaged")
        finally:
            copy.close()
        with open(partial, "rb+") as out:
            os.fsync(out.fileno())
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def backup(data: Path, target: Path) -> LedgerSummary:
    """Copy the ledger of the data folder ``data`` to the new file ``target``, consistently, while it serves."""
    ledger = config.data_file(data)
    if target.exists():
        raise BackupError(f"{target} exists; give a new file name (a backup never overwrites a file)")
    if not target.parent.is_dir():
        raise BackupError(f"{target.parent} is not a folder")
    if not ledger.is_file():
        raise BackupError(f"no ledger in {data} ({config.DATA_FILE}); nothing to back up")
    source = _connect_existing(ledger)
    try:
        source.execute("PRAGMA busy_timeout=5000")
        _write_copy(source, target)
    except sqlite3.Error as exc:
        raise BackupError(f"{ledger} cannot be copied ({exc})") from None
    finally:
        source.close()
    copy = _connect_existing(target)
    try:
        return _summary(copy, target)
    finally:
        copy.close()


def check_backup(path: Path) -> LedgerSummary:
    """What the backup at ``path`` holds, or :class:`BackupError` when it is not a whole Verdict ledger."""
    db = _connect_existing(path)
    try:
        checked = db.execute("PRAGMA quick_check").fetchone()[0]
        if checked != "ok":
            raise BackupError(f"{path} is damaged ({checked})")
        return _summary(db, path)
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{path} is not an SQLite ledger ({exc})") from None
    finally:
        db.close()


@dataclass(frozen=True)
class Restored:
    summary: LedgerSummary
    kept: Path | None
    """Where the ledger the backup replaced now is (``None``: the folder held none)."""
    keys_moved: Path | None
    """Where a keys file whose keys do not open the restored ledger was moved (``None``: it was kept)."""


def _stamp() -> str:
    return time.strftime("%Y%m%d-%H%M%S")


def _aside(path: Path, stamp: str) -> Path:
    return path.with_name(f"{path.name}.before-restore-{stamp}")


def _keys_open(ledger: Path, keys_file: Path) -> bool:
    """Whether the keys file's GM key opens its table in the ledger at ``ledger``."""
    from sidecar.state.ledger import hash_key

    fields = dict(line.split(" ", 1) for line in keys_file.read_text().splitlines() if " " in line)
    table, gm = fields.get("table", "").strip(), fields.get("gm", "").strip()
    db = sqlite3.connect(f"file:{ledger}?mode=ro", uri=True)
    try:
        row = db.execute("SELECT gm_hash FROM tables WHERE id=?", (table,)).fetchone()
    finally:
        db.close()
    return row is not None and row[0] == hash_key(gm)


def restore(source: Path, data: Path) -> Restored:
    """Put the backup ``source`` in place of the ledger of ``data``; :class:`datadir.Served` while a sidecar
    serves the folder."""
    summary = check_backup(source)
    ledger = config.data_file(data)
    stamp = _stamp()
    with datadir.nobody_serving(data):
        kept: Path | None = None
        if ledger.exists():
            kept = _aside(ledger, stamp)
            old = _connect_existing(ledger)
            try:
                _write_copy(old, kept)  # the old ledger whole, its -wal included
            finally:
                old.close()
        incoming = ledger.with_name(ledger.name + ".restoring")
        backup_db = _connect_existing(source)
        try:
            _write_copy(backup_db, incoming)
        finally:
            backup_db.close()
        for name in (f"{ledger.name}-wal", f"{ledger.name}-shm"):
            (data / name).unlink(missing_ok=True)
        os.replace(incoming, ledger)
        keys_moved: Path | None = None
        keys_file = datadir.keys_path(data)
        if keys_file.exists() and not _keys_open(ledger, keys_file):
            keys_moved = _aside(keys_file, stamp)
            os.replace(keys_file, keys_moved)
    return Restored(summary, kept, keys_moved)
