"""The PostgreSQL ledger's schema: numbered ``.sql`` files (``migrations/NNNN_name.sql``), applied in order,
each once, and recorded in ``verdict_schema``.

A migration is never edited once released: a database at any earlier version reaches the newest by the
ones after its own, in one transaction, under an advisory lock (several sidecars may start at once). A
migration may need work SQL cannot do: :data:`AFTER` runs it in the same transaction.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

import psycopg
import structlog

from .check_index import check_ids

FOLDER = "migrations"
"""The folder of the migrations, inside this package (package data: the wheel carries it)."""

_NAME = re.compile(r"(\d{4})_[a-z0-9_]+\.sql")
_LOCK = 0x76657264
"""The advisory lock key: one sidecar migrates at a time."""


@dataclass(frozen=True)
class Migration:
    number: int
    name: str
    sql: str


def migrations() -> list[Migration]:
    """Every migration, in order; their numbers are 1, 2, 3, … without a gap or a repeat."""
    found: list[Migration] = []
    for entry in resources.files("sidecar.state.ledger").joinpath(FOLDER).iterdir():
        match = _NAME.fullmatch(entry.name)
        if match is not None:
            found.append(Migration(int(match[1]), entry.name, entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.number)
    numbers = [m.number for m in found]
    if numbers != list(range(1, len(found) + 1)):
        raise RuntimeError(f"the ledger's migrations are numbered {numbers}: each number from 1, once")
    return found


def index_checks(db: psycopg.Connection) -> None:
    """Index the check ids of every event a ledger held before the check index, in the migration's transaction."""
    rows = 0
    with db.cursor(name="verdict_index_checks") as cur:
        cur.execute("SELECT table_id, seq, data FROM events")
        while chunk := cur.fetchmany(1000):
            found = [(t, c, s) for t, s, d in chunk for c in check_ids(t, bytes(d))]
            if found:
                with db.cursor() as ins:
                    ins.executemany(
                        "INSERT INTO check_events (table_id, check_id, seq) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                        found,
                    )
            rows += len(found)
    if rows:
        structlog.get_logger("verdict.ledger").info("ledger_checks_indexed", rows=rows)


CHECK_INDEX = 7
"""The migration that makes the check index: the events stored before it are indexed as it runs."""

AFTER: dict[int, Callable[[psycopg.Connection], None]] = {CHECK_INDEX: index_checks}
"""What runs after a migration's SQL, in its transaction."""

SCHEMA_VERSION = len(migrations())
"""The newest schema this sidecar knows."""


def version(db: psycopg.Connection) -> int:
    """The schema's version as the database records it (0: none yet)."""
    row = db.execute("SELECT to_regclass('verdict_schema')").fetchone()
    if row is None or row[0] is None:
        return 0
    found = db.execute("SELECT max(version) FROM verdict_schema").fetchone()
    return found[0] if found and found[0] is not None else 0


def migrate(db: psycopg.Connection, upto: int | None = None) -> int:
    """Bring the schema to :data:`SCHEMA_VERSION` (or to ``upto``); the version it is at. Safe when several
    sidecars start at once; refused (RuntimeError) for a schema newer than this sidecar knows."""
    with db.transaction():
        db.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
        db.execute("CREATE TABLE IF NOT EXISTS verdict_schema (version INTEGER NOT NULL)")
        at = version(db)
        if at > SCHEMA_VERSION:
            raise RuntimeError(
                f"the ledger's schema is version {at}, newer than this sidecar's {SCHEMA_VERSION}: upgrade verdict"
            )
        for migration in migrations():
            if at < migration.number <= (SCHEMA_VERSION if upto is None else upto):
                db.execute(migration.sql)
                if migration.number in AFTER:
                    AFTER[migration.number](db)
                db.execute("INSERT INTO verdict_schema (version) VALUES (%s)", (migration.number,))
                at = migration.number
    return at
