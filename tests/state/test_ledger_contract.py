"""The ledger's contract, held by both backends: SQLite (embedded) and PostgreSQL (a real server)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from sidecar.state.ledger import Action, LedgerUnavailable, Row, SqliteLedger, StoredRequest, check_ids, open_ledger


class Backend:
    """Opens the same ledger again (a restart, or another sidecar) and says where its data is."""

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
    await ledger.aclose()


class Actions:
    """A table's owner in a turn, as plain as can be: actions of given payloads, numbered after the head as
    it stands when the ledger asks for them (as a table prepares its actions on the state they follow)."""

    def __init__(self, head: int, actions: list[tuple[list[bytes], tuple[str, str, bytes] | None]]) -> None:
        self.head = head
        self.actions = actions
        self.request_ids = [r[0] for _, r in actions if r is not None]
        self.caught: list[Row] = []
        self.answered: dict[str, StoredRequest] = {}
        self.resets = 0
        self.prepared = 0

    async def caught_up(self, rows: list[Row]) -> None:
        self.caught += rows
        if rows:
            self.head = rows[-1].seq

    async def prepare(self, answered: Any) -> list[Action]:
        self.prepared += 1
        self.answered = dict(answered)
        out: list[Action] = []
        seq = self.head
        for payloads, request in self.actions:
            if request is not None and request[0] in answered:
                continue
            out.append(([(seq + i + 1, p) for i, p in enumerate(payloads)], request))
            seq += len(payloads)
        return out

    async def reset(self) -> int:
        self.resets += 1
        return self.head


async def _write(ledger: Any, table: str, head: int, *actions: Any) -> Actions:
    writer = Actions(head, list(actions))
    await ledger.write(table, head, writer)
    return writer


def test_tables_and_keys(backend: Backend):
    ledger = backend.open()
    assert ledger.tables() == []
    a = ledger.create_table("alpha")
    b = ledger.create_table("beta")
    assert len({a.gm, a.player, a.observer, b.gm}) == 4
    assert [t.name for t in ledger.tables()] == ["alpha", "beta"]
    assert ledger.table(a.table).name == "alpha" and ledger.table("nope") is None
    assert [ledger.role(a.table, k) for k in (a.gm, a.player, a.observer)] == ["gm", "player", "observer"]
    assert ledger.role(a.table, b.gm) is None  # a key of one table does not open another
    assert ledger.role("nope", a.gm) is None
    assert ledger.role(a.table, "") is None
    new = ledger.rotate_keys(a.table)
    assert ledger.role(a.table, a.gm) is None and ledger.role(a.table, new.gm) == "gm"
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


async def test_serving_reads_answer_as_the_administration_ones(backend: Backend):
    ledger = backend.open()
    a = ledger.create_table("alpha")
    assert (await ledger.find_table(a.table)).name == "alpha" and await ledger.find_table("nope") is None
    assert [await ledger.find_role(a.table, k) for k in (a.gm, a.player, a.observer)] == ["gm", "player", "observer"]
    assert await ledger.find_role(a.table, "") is None and await ledger.find_role("nope", a.gm) is None
    assert await ledger.find_user_secret(a.table) == ledger.user_secret(a.table)
    assert await ledger.find_user_secret("nope") is None
    await _closed(ledger)


async def test_a_keys_access_is_read_at_once_and_its_mark_changes_with_every_rotation_by_another_process(
    backend: Backend,
):
    ledger = backend.open()
    a, b = ledger.create_table("alpha"), ledger.create_table("beta")
    access = await ledger.find_access(a.table, a.gm)
    assert access.role == "gm" and access.user_secret == ledger.user_secret(a.table)
    assert [(await ledger.find_access(a.table, k)).role for k in (a.player, a.observer, b.gm, "")] == [
        "player",
        "observer",
        None,
        None,
    ]
    assert await ledger.find_access("nope", a.gm) is None
    marks = await ledger.find_keys([a.table, b.table, "nope"])
    assert set(marks) == {a.table, b.table} and marks[a.table] == access.keys != marks[b.table]
    new = backend.open().rotate_keys(a.table)  # another process on the same ledger (the CLI)
    after = await ledger.find_keys([a.table, b.table])
    assert after[a.table] != marks[a.table] and after[b.table] == marks[b.table]
    assert (await ledger.find_access(a.table, a.gm)).role is None
    rotated = await ledger.find_access(a.table, new.gm)
    assert rotated.role == "gm" and rotated.keys == after[a.table] and rotated.user_secret != access.user_secret
    await _closed(ledger)


async def test_append_read_and_requests(backend: Backend):
    ledger = backend.open()
    k = ledger.create_table("t")
    await _write(
        ledger,
        k.table,
        0,
        ([b"one", b"two"], ("r1", "player", b"reply-1", "")),
        ([b"three"], ("r2", "gm", b"reply-2", "")),
    )
    ledger.append_sync(k.table, [(4, b"four")], None)
    assert ledger.events(k.table) == [(1, b"one"), (2, b"two"), (3, b"three"), (4, b"four")]
    assert await ledger.read_events(k.table) == ledger.events(k.table)
    assert await ledger.read_events(k.table, 2) == [(3, b"three"), (4, b"four")]
    assert await ledger.read_events(k.table, 4) == []
    assert await ledger.read_events(k.table, 1, 3) == [(2, b"two"), (3, b"three")]
    assert await ledger.read_events(k.table, 3, 3) == []
    r = await ledger.find_request(k.table, "r1")
    assert (r.role, r.reply) == ("player", b"reply-1") == (ledger.request(k.table, "r1").role, b"reply-1")
    assert await ledger.find_request(k.table, "nope") is None
    assert sorted(await ledger.find_request_ids(k.table)) == ["r1", "r2"] == sorted(ledger.request_ids(k.table))
    other = ledger.create_table("other")
    assert await ledger.read_events(other.table) == [] and await ledger.find_request(other.table, "r1") is None
    await _closed(ledger)


async def test_a_check_is_found_by_its_events_check_id_fields(backend: Backend):
    ledger = backend.open()
    k, other = ledger.create_table("t"), ledger.create_table("other")
    ab, cd, old = f"{k.table}-00112233445566ab", f"{k.table}-00112233445566cd", f"{k.table}-12"
    pack = msgspec.msgpack.encode
    await _write(
        ledger,
        k.table,
        0,
        ([pack({"kind": "roll", "check_id": ab}), b"a consequence"], None),
        ([pack({"kind": "follow", "check_id": ab, "at": 7, "raw": b"\x00\xff"})], None),
    )
    await _write(
        ledger,
        k.table,
        3,
        ([pack({"kind": "roll", "check_id": cd}), pack({"text": ab, "label": f"quoting {ab}"})], None),
    )
    await _write(
        ledger, k.table, 5, ([pack({"kind": "roll", "check_id": old, "n": 1})], None)
    )  # from before random ids
    await _write(ledger, other.table, 0, ([pack({"kind": "roll", "check_id": ab})], None))
    found = [s for s, _ in await ledger.read_check_events(k.table, ab)]
    assert found == [1, 3]  # its roll and its follow-up: a text that is (or quotes) its id is no check_id field
    assert ledger.check_events(k.table, ab) == await ledger.read_check_events(k.table, ab)
    assert [s for s, _ in await ledger.read_check_events(k.table, old)] == [6]
    assert await ledger.read_check_events(k.table, f"{k.table}-00112233445566ef") == []
    assert await ledger.read_check_events("nope", ab) == []
    await _closed(ledger)


async def test_a_ledger_from_before_the_check_index_reads_its_old_checks_back(backend: Backend):
    """What a ledger held before the index is indexed once, when opened (SQLite) or migrated (PostgreSQL)."""
    ledger = backend.open()
    k = ledger.create_table("t")
    ab = f"{k.table}-00112233445566ab"
    await _write(ledger, k.table, 0, ([msgspec.msgpack.encode({"kind": "roll", "check_id": ab})], None))
    await _write(ledger, k.table, 1, ([msgspec.msgpack.encode({"kind": "follow", "check_id": ab})], None))
    await _closed(ledger)
    ledger.close()
    if backend.kind == "sqlite":
        with sqlite3.connect(backend.where) as db:
            db.execute("DROP TABLE check_events")  # as a ledger written before the index was
        again = backend.open()
    else:
        import psycopg

        from sidecar.state.ledger import pg_migrations

        with psycopg.connect(backend.where, autocommit=True) as db:
            db.execute("DELETE FROM check_events WHERE table_id = %s", (k.table,))
            with db.transaction():
                pg_migrations.index_checks(db)  # what the check index's migration runs over the events before it
        again = backend.open()
    assert [s for s, _ in await again.read_check_events(k.table, ab)] == [1, 2]
    await _closed(again)


def test_the_check_ids_an_event_holds_are_its_check_id_fields_of_the_tables_shape():
    pack = msgspec.msgpack.encode
    assert check_ids("abcd0123", pack(["roll", {"kind": "roll", "check_id": "abcd0123-00112233445566ab"}])) == {
        "abcd0123-00112233445566ab"
    }
    assert check_ids("abcd0123", pack({"kind": "follow", "check_id": "abcd0123-7"})) == {"abcd0123-7"}  # before
    assert check_ids("abcd0123", pack({"check_id": "ffff0000-00112233445566ab"})) == set()  # another table's
    assert check_ids("abcd0123", pack({"check_id": "abcd0123-xyz"})) == set()  # not an id's shape
    assert check_ids("abcd0123", pack({"check_id": "abcd0123-"})) == set()
    assert check_ids("abcd0123", pack({"check_id": ""})) == set()  # (an extended check's progress by the GM)
    assert check_ids("abcd0123", pack({"check_id": "x"}) + pack("abcd0123-7")) == set()  # another field's
    assert check_ids("abcd0123", pack({"check_id": "abcd0123-0011"})[:-1]) == set()  # cut short
    # whole strings of an id's shape, or ids quoted in a text, are not the event's check: not indexed
    assert check_ids("abcd0123", pack({"label": "abcd0123-00112233445566ab", "actor": "abcd0123-7"})) == set()
    assert check_ids("abcd0123", pack({"label": "\u00a8check_id\u00aaabcd0123-7"})) == set()


async def test_a_turn_from_a_head_the_table_left_stores_nothing_of_it_or_is_prepared_again(backend: Backend):
    """SQLite has one writer: a turn from a stale head is a fault, refused whole (nothing of it stored). On a
    ledger sidecars share it is another sidecar's append: the turn is the ledger's to take again, the table's
    row locked, after handing the writer what it missed and the replies others stored for its ids."""
    ledger = backend.open()
    k = ledger.create_table("t")
    await _write(ledger, k.table, 0, ([b"a", b"b"], ("r1", "gm", b"x", "")))
    if backend.kind == "sqlite":
        with pytest.raises(LedgerUnavailable):
            await _write(ledger, k.table, 1, ([b"again", b"c"], ("r2", "gm", b"y", "")))
        assert ledger.events(k.table) == [(1, b"a"), (2, b"b")] and ledger.request(k.table, "r2") is None
        await _write(ledger, k.table, 2, ([b"c"], ("r2", "gm", b"y", "")))  # the next seq is still free
        assert [s for s, _ in ledger.events(k.table)] == [1, 2, 3]
    else:
        other = backend.open()  # another sidecar
        stale = await _write(other, k.table, 0, ([b"c"], ("r2", "gm", b"y", "")), ([b"again"], ("r1", "gm", b"z", "")))
        assert stale.resets == 1 and stale.prepared == 2 and other.refusals == 1 and other.turns == 1
        assert [(r.seq, r.batch, r.data, r.request_id) for r in stale.caught] == [
            (1, 1, b"a", "r1"),
            (2, 1, b"b", None),
        ]
        assert stale.answered == {"r1": StoredRequest("gm", b"x")}  # answered first elsewhere: its reply
        assert ledger.events(k.table) == [(1, b"a"), (2, b"b"), (3, b"c")]
        # refused once, the table is written in turns for a while: no more refusals
        again = await _write(other, k.table, 2, ([b"d"], ("r3", "gm", b"w", "")))
        assert again.resets == 0 and other.refusals == 1 and other.turns == 2
        assert [r.seq for r in again.caught] == [3]
        await _closed(other)
    await _closed(ledger)


async def test_concurrent_appends_to_many_tables_all_land(backend: Backend):
    ledger = backend.open()
    tables = [ledger.create_table(f"t{i}").table for i in range(5)]

    async def fill(tid: str) -> None:
        for seq in range(1, 21):
            await _write(ledger, tid, seq - 1, ([f"{tid}-{seq}".encode()], (f"r{seq}", "player", b"r", "")))

    await asyncio.gather(*(fill(t) for t in tables))
    for tid in tables:
        assert ledger.events(tid) == [(s, f"{tid}-{s}".encode()) for s in range(1, 21)]
        assert len(ledger.request_ids(tid)) == 20
    await _closed(ledger)


async def test_what_is_appended_survives_a_reopen(backend: Backend):
    ledger = backend.open()
    k = ledger.create_table("t")
    await _write(ledger, k.table, 0, ([b"kept"], ("r", "gm", b"reply", "")))
    await _closed(ledger)
    ledger.close()
    ledger.close()  # closing twice is harmless
    again = backend.open()
    assert again.events(k.table) == [(1, b"kept")]
    assert again.request(k.table, "r").reply == b"reply"
    assert again.role(k.table, k.gm) == "gm"


def test_postgresql_keys_are_stored_hashed_and_the_schema_is_versioned(pg_url: str):
    import psycopg

    from sidecar.state.ledger import pg_migrations

    ledger = open_ledger(pg_url, Path("."))
    keys = ledger.create_table("t")
    ledger.close()
    with psycopg.connect(pg_url) as db:
        rows = db.execute("SELECT * FROM tables").fetchall()
        assert len(rows) == 1
        text = repr(rows)
        for key in (keys.gm, keys.player, keys.observer):
            assert key not in text
        assert db.execute("SELECT max(version) FROM verdict_schema").fetchone()[0] == pg_migrations.SCHEMA_VERSION
    # a second start migrates nothing and keeps the data
    again = open_ledger(pg_url, Path("."))
    assert [t.id for t in again.tables()] == [keys.table]
    again.close()
    # a schema newer than this sidecar is refused with a clear message
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute("INSERT INTO verdict_schema (version) VALUES (%s)", (pg_migrations.SCHEMA_VERSION + 1,))
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
        args = db.execute("SELECT pg_get_function_identity_arguments('verdict_append_many'::regproc)").fetchone()[0]
        db.execute(f"DROP FUNCTION verdict_append_many({args})")
        db.execute(
            f"CREATE FUNCTION verdict_append_many({args}) RETURNS SETOF BIGINT LANGUAGE sql AS 'SELECT 1 WHERE false'"
        )
    with pytest.raises(RuntimeError, match="verdict_append_many answered no row"):
        ledger.append_sync(k.table, [(1, b"one")], None)
    with pytest.raises(RuntimeError, match="verdict_append_many answered no row"):
        await _write(ledger, k.table, 0, ([b"one"], ("r1", "gm", b"reply", "")))
    assert ledger.events(k.table) == [] and ledger.request(k.table, "r1") is None
    await _closed(ledger)
    ledger.close()


def test_an_unreachable_or_unknown_ledger_is_a_clear_error(tmp_path: Path):
    with pytest.raises(ValueError, match="postgresql://"):
        open_ledger("mysql://x@y/z", tmp_path)
    pytest.importorskip("psycopg")
    with pytest.raises(LedgerUnavailable) as e:
        open_ledger("postgresql://someone:s3cret@127.0.0.1:1/nothing", tmp_path)
    assert "127.0.0.1:1" in str(e.value) and "s3cret" not in str(e.value)
