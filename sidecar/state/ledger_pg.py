"""The PostgreSQL ledger's names at the path its callers import them from (:mod:`sidecar.state.ledger.postgres`,
:mod:`.ledger.pg_listener` and :mod:`.ledger.pg_migrations` hold them)."""

from .ledger.pg_listener import CHANNEL, KEYS_NOTE, PgListener, channel, channel_sql, parse_note
from .ledger.pg_migrations import CHECK_INDEX, SCHEMA_VERSION, index_checks, migrate, migrations
from .ledger.postgres import PostgresLedger, redact

_channel_sql = channel_sql
_index_checks = index_checks

__all__ = [
    "CHANNEL",
    "CHECK_INDEX",
    "KEYS_NOTE",
    "SCHEMA_VERSION",
    "PgListener",
    "PostgresLedger",
    "channel",
    "channel_sql",
    "index_checks",
    "migrate",
    "migrations",
    "parse_note",
    "redact",
]
