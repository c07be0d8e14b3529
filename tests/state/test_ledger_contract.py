"""The ledger's contract, held by both backends: SQLite (embedded) and PostgreSQL (a real server)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sidecar.state.ledger import Behind, SqliteLedger, open_ledger


class Backend:
    """Opens the same ledger again (a restart) and says where its data is."""

    def __init__(self, kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
        self.kind = kind
        self.where = str(tmp_path / "verdict.sqlite3") if kind == "sqlite" else request.getfixturevalue("pg_url")
        self.opened: list[Any] = []

    def open(self) -> Any:
        ledger = SqliteLedger(self.where) if self.kind == "sqlite" else open_ledger(self.where, Path("."))
        self.opened.append(ledger)
        return ledger


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    b = Backend(request.param, tmp_path, request)
    yield b
    for ledger in b.opened:
        ledger.close()


async def _closed(ledger: Any) -> None:
    if hasattr(ledger, "aclose"):
        await ledger.aclose()


def test_tables_and_keys(backend: Backend):
    ledger = backend.open()
    assert ledger.tables() == []
    a = ledger.create_table("alpha")
    b = ledger.create_table("beta")
    assert len({a.gm, a.player, a.observer, b.gm}) == 4
    assert [t.name for t in ledger.tables()] == ["alpha", "beta"]
    assert ledger.table(a.table).name == "alpha" and ledger.table("nope") is None
    assert [ledger.role_for(a.table, k) for k in (a.gm, a.player, a.observer)] == ["gm", "player", "observer"]
    assert ledger.role_for(a.table, b.gm) is None  # a key of one table does not open another
    assert ledger.role_for("nope", a.gm) is None
    assert ledger.role_for(a.table, "") is None
    new = ledger.rotate_keys(a.table)
    assert ledger.role_for(a.table, a.gm) is None and ledger.role_for(a.table, new.gm) == "gm"
    with pytest.raises(KeyError):
        ledger.rotate_keys("nope")


def test_user_secrets_are_per_table_stable_and_replaced_by_rotate_keys(backend: Backend):
    # Per-user player keys are derived from this secret: it must survive a restart, differ between
    # tables, and change when the GM rotates the keys (so every derived user key stops working).
    ledger = backend.open()
    a = ledger.create_table("alpha")
    b = ledger.create_table("beta")
    first = ledger.user_secret(a.table)
    assert first and len(first) >= 32 and first == ledger.user_secret(a.table)
    assert ledger.user_secret(b.table) != first
    assert ledger.user_secret("nope") is None
    assert backend.open().user_secret(a.table) == first
    ledger.rotate_keys(a.table)
    assert ledger.user_secret(a.table) not in (None, first)


async def test_append_read_and_requests(backend: Backend):
    ledger = backend.open()
    k = ledger.create_table("t")
    await ledger.append(k.table, [(1, b"one"), (2, b"two")], ("r1", "player", b"reply-1"))
    await ledger.append(k.table, [(3, b"three")], ("r2", "gm", b"reply-2"))
    ledger.append_sync(k.table, [(4, b"four")], None)
    assert ledger.events(k.table) == [(1, b"one"), (2, b"two"), (3, b"three"), (4, b"four")]
    assert ledger.events(k.table, since=2) == [(3, b"three"), (4, b"four")]
    assert ledger.events(k.table, since=4) == []
    assert ledger.events(k.table, since=1, upto=3) == [(2, b"two"), (3, b"three")]
    assert ledger.events(k.table, since=2, upto=3) == [(3, b"three")] and ledger.events(k.table, 3, 3) == []
    r = ledger.request(k.table, "r1")
    assert (r.role, r.reply) == ("player", b"reply-1")
    assert ledger.request(k.table, "nope") is None
    assert sorted(ledger.request_ids(k.table)) == ["r1", "r2"]
    other = ledger.create_table("other")
    assert ledger.events(other.table) == [] and ledger.request(other.table, "r1") is None
    await _closed(ledger)


async def test_a_refused_append_stores_nothing(backend: Backend):
    """A batch whose seq is taken is refused whole: none of its events, not its request."""
    ledger = backend.open()
    k = ledger.create_table("t")
    await ledger.append(k.table, [(1, b"a"), (2, b"b")], ("r1", "gm", b"x"))
    with pytest.raises(Exception) as e:
        await ledger.append(k.table, [(2, b"again"), (3, b"c")], ("r2", "gm", b"y"))
    if backend.kind == "postgresql":
        assert isinstance(e.value, Behind) and e.value.head == 2
    assert ledger.events(k.table) == [(1, b"a"), (2, b"b")]
    assert ledger.request(k.table, "r2") is None
    await ledger.append(k.table, [(3, b"c")], ("r2", "gm", b"y"))  # the next seq is still free
    assert [s for s, _ in ledger.events(k.table)] == [1, 2, 3]
    await _closed(ledger)


async def test_concurrent_appends_to_many_tables_all_land(backend: Backend):
    ledger = backend.open()
    tables = [ledger.create_table(f"t{i}").table for i in range(5)]

    async def fill(tid: str) -> None:
        for seq in range(1, 21):
            await ledger.append(tid, [(seq, f"{tid}-{seq}".encode())], (f"r{seq}", "player", b"r"))

    await asyncio.gather(*(fill(t) for t in tables))
    for tid in tables:
        assert ledger.events(tid) == [(s, f"{tid}-{s}".encode()) for s in range(1, 21)]
        assert len(ledger.request_ids(tid)) == 20
    await _closed(ledger)


async def test_what_is_appended_survives_a_reopen(backend: Backend):
    ledger = backend.open()
    k = ledger.create_table("t")
    await ledger.append(k.table, [(1, b"kept")], ("r", "gm", b"reply"))
    await _closed(ledger)
    ledger.close()
    ledger.close()  # closing twice is harmless
    again = backend.open()
    assert again.events(k.table) == [(1, b"kept")]
    assert again.request(k.table, "r").reply == b"reply"
    assert again.role_for(k.table, k.gm) == "gm"


def test_postgresql_keys_are_stored_hashed_and_the_schema_is_versioned(pg_url: str):
    import psycopg

    from sidecar.state import ledger_pg

    ledger = open_ledger(pg_url, Path("."))
    keys = ledger.create_table("t")
    ledger.close()
    with psycopg.connect(pg_url) as db:
        rows = db.execute("SELECT * FROM tables").fetchall()
        assert len(rows) == 1
        text = repr(rows)
        for key in (keys.gm, keys.player, keys.observer):
            assert key not in text
        assert db.execute("SELECT max(version) FROM verdict_schema").fetchone()[0] == ledger_pg.SCHEMA_VERSION
    # a second start migrates nothing and keeps the data
    again = open_ledger(pg_url, Path("."))
    assert [t.id for t in again.tables()] == [keys.table]
    again.close()
    # a schema newer than this sidecar is refused with a clear message
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute("INSERT INTO verdict_schema (version) VALUES (%s)", (ledger_pg.SCHEMA_VERSION + 1,))
    with pytest.raises(RuntimeError, match="newer than this sidecar"):
        open_ledger(pg_url, Path("."))


async def test_an_append_answered_by_no_row_is_a_clear_error_and_stores_nothing(pg_url: str):
    """psycopg types a fetched row as optional: an append function that answers no row (here one
    rewritten by hand in the database) is named, on the blocking path and the batched one, not a None
    indexed."""
    import psycopg

    ledger = open_ledger(pg_url, Path("."))
    k = ledger.create_table("t")
    with psycopg.connect(pg_url, autocommit=True) as db:
        args = db.execute("SELECT pg_get_function_identity_arguments('verdict_append'::regproc)").fetchone()[0]
        db.execute(f"DROP FUNCTION verdict_append({args})")
        db.execute(
            f"CREATE FUNCTION verdict_append({args}) RETURNS SETOF BIGINT LANGUAGE sql AS 'SELECT 1 WHERE false'"
        )
    with pytest.raises(RuntimeError, match="verdict_append answered no row"):
        ledger.append_sync(k.table, [(1, b"one")], None)
    with pytest.raises(RuntimeError, match="verdict_append answered no row"):
        await ledger.append(k.table, [(1, b"one")], ("r1", "gm", b"reply"))
    assert ledger.events(k.table) == [] and ledger.request(k.table, "r1") is None
    await _closed(ledger)
    ledger.close()


def test_an_unreachable_or_unknown_ledger_is_a_clear_error(tmp_path: Path):
    with pytest.raises(ValueError, match="postgresql://"):
        open_ledger("mysql://x@y/z", tmp_path)
    pytest.importorskip("psycopg")
    with pytest.raises(ConnectionError) as e:
        open_ledger("postgresql://someone:s3cret@127.0.0.1:1/nothing", tmp_path)
    assert "127.0.0.1:1" in str(e.value) and "s3cret" not in str(e.value)
