"""The PostgreSQL ledger's schema: numbered ``.sql`` files applied in order, each once, recorded; a database
left at any earlier migration (by a sidecar of that version) upgrades to the newest and serves what it held."""

from __future__ import annotations

import asyncio
from pathlib import Path

import msgspec
import pytest

psycopg = pytest.importorskip("psycopg")

from sidecar.state.ledger import pg_migrations  # noqa: E402
from sidecar.state.ledger.postgres import PostgresLedger  # noqa: E402
from sidecar.state.ledger.table_keys import hash_key  # noqa: E402

TABLE = "0badcafe"
CHECK = f"{TABLE}-00112233445566ab"


def test_the_migrations_are_the_package_s_numbered_sql_files_in_order() -> None:
    found = pg_migrations.migrations()
    folder = Path(pg_migrations.__file__).parent / pg_migrations.FOLDER
    assert [m.name for m in found] == sorted(p.name for p in folder.glob("*.sql"))
    assert [m.number for m in found] == list(range(1, pg_migrations.SCHEMA_VERSION + 1))
    assert all(m.sql.strip() for m in found)


def _held_at(db: psycopg.Connection, version: int) -> None:
    """What a sidecar of schema ``version`` would have stored: a table, two events of one check (the first
    answering a request), as that version's columns take them."""
    secret = ", user_secret" if version >= 2 else ""
    db.execute(
        f"INSERT INTO tables (id, name, gm_hash, player_hash, observer_hash, created, head{secret})"
        f" VALUES (%s, 'old', %s, %s, %s, 0, 2{', NULL' if secret else ''})",
        (TABLE, hash_key("gm-key"), hash_key("player-key"), hash_key("observer-key")),
    )
    for seq, kind in ((1, "roll"), (2, "follow")):
        db.execute(
            "INSERT INTO events (table_id, seq, batch, data, created) VALUES (%s, %s, %s, %s, 0)",
            (TABLE, seq, seq, msgspec.msgpack.encode({"kind": kind, "check_id": CHECK})),
        )
    db.execute(
        "INSERT INTO requests (table_id, request_id, role, reply, seq) VALUES (%s, 'r1', 'gm', 'reply', 1)", (TABLE,)
    )


@pytest.mark.parametrize("version", range(pg_migrations.SCHEMA_VERSION))
async def test_a_database_at_any_earlier_migration_upgrades_and_serves_what_it_held(pg_url: str, version: int) -> None:
    with psycopg.connect(pg_url, autocommit=True) as db:
        assert pg_migrations.migrate(db, upto=version) == version
        if version:
            _held_at(db, version)
            assert pg_migrations.version(db) == version
    ledger = PostgresLedger(pg_url)
    try:
        with psycopg.connect(pg_url) as db:
            recorded = [v for (v,) in db.execute("SELECT version FROM verdict_schema ORDER BY version")]
        assert recorded == list(range(1, pg_migrations.SCHEMA_VERSION + 1))  # each once, in order
        if version:
            assert ledger.role(TABLE, "gm-key") == "gm"
            assert ledger.user_secret(TABLE) is not None  # made on first use where the version kept none
            assert [seq for seq, _ in ledger.check_events(TABLE, CHECK)] == [1, 2]  # indexed as it upgraded
            assert ledger.request(TABLE, "r1") is not None
            ledger.append_sync(TABLE, [(3, msgspec.msgpack.encode({"kind": "roll", "check_id": CHECK}))], None)
            assert [seq for seq, _ in ledger.check_events(TABLE, CHECK)] == [1, 2, 3]
            table_id = TABLE
        else:
            table_id = ledger.create_table("new").table
            ledger.append_sync(table_id, [(1, b"\x80")], ("r1", "gm", b"reply", '["gm",null]'))
        await ledger.store_snapshot(table_id, 1, "v", b"state")
        assert await ledger.find_snapshot(table_id) == (1, "v", b"state")
        assert await ledger.find_request(table_id, "r1") is not None
        await ledger.aclose()
    finally:
        ledger.close()
    again = PostgresLedger(pg_url)  # a second start applies nothing again
    again.close()
    with psycopg.connect(pg_url) as db:
        assert db.execute("SELECT count(*) FROM verdict_schema").fetchone()[0] == pg_migrations.SCHEMA_VERSION


async def test_sidecars_starting_at_once_migrate_once(pg_url: str) -> None:
    ledgers = await asyncio.gather(*(asyncio.to_thread(PostgresLedger, pg_url) for _ in range(3)))
    for ledger in ledgers:
        ledger.close()
    with psycopg.connect(pg_url) as db:
        recorded = [v for (v,) in db.execute("SELECT version FROM verdict_schema ORDER BY version")]
    assert recorded == list(range(1, pg_migrations.SCHEMA_VERSION + 1))
