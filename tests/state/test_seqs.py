"""The numbering's compact seqs (:class:`sidecar.state.seqs.Seqs`) against a plain sorted list: the same
``bisect_right``, membership, indexing and iteration, before and after a round trip through a snapshot's bytes,
with blocks sealed, decoded and evicted along the way."""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sidecar.state import seqs as seqs_module
from sidecar.state.seqs import Seqs


@contextmanager
def block_of(size: int) -> Iterator[None]:
    """Blocks of ``size`` seqs, so a short list crosses many of them."""
    was = seqs_module.BLOCK
    seqs_module.BLOCK = size
    try:
        yield
    finally:
        seqs_module.BLOCK = was


def check(got: Seqs, plain: list[int], queries: list[int]) -> None:
    assert len(got) == len(plain)
    assert bool(got) == bool(plain)
    for x in queries:
        assert got.bisect_right(x) == bisect.bisect_right(plain, x), x
        assert (x in got) == (x in plain), x
    for n in {0, len(plain) // 2, len(plain) - 1} if plain else ():
        assert got[n] == plain[n]
    assert list(got) == plain


steps = st.lists(st.one_of(st.integers(1, 3), st.integers(1, 1 << 40)), max_size=80)


@given(
    block=st.integers(1, 9),
    start=st.integers(-(1 << 40), 1 << 40),
    deltas=steps,
    queries=st.lists(st.integers(-(1 << 41), 1 << 41), max_size=20),
    picks=st.lists(st.integers(0, 200), max_size=40),
)
def test_seqs_answer_as_a_sorted_list(
    block: int, start: int, deltas: list[int], queries: list[int], picks: list[int]
) -> None:
    with block_of(block):
        plain: list[int] = []
        got = Seqs()
        at = start
        for d in deltas:
            at += d
            plain.append(at)
            got.append(at)
        near = [p + off for p in (plain[i % len(plain)] for i in picks) for off in (-1, 0, 1)] if plain else []
        # asked in a random order, so the decoded blocks kept are evicted and decoded again
        check(got, plain, queries + near)
        again = Seqs.from_bytes(got.to_bytes())
        check(again, plain, list(reversed(near)) + queries)
        extra = at + 1 + len(queries)  # appended after the round trip, as a restored table numbers on
        again.append(extra)
        check(again, [*plain, extra], [extra - 1, extra, extra + 1])


@given(count=st.integers(0, 5000), rng=st.randoms(use_true_random=False))
def test_seqs_at_the_real_block_size(count: int, rng: random.Random) -> None:
    plain, got, at = [], Seqs(), 0
    for _ in range(count):
        at += rng.choice((1, 1, 2, 3, 5, 300, 70_000))
        plain.append(at)
        got.append(at)
    queries = [rng.randint(-1, at + 2) for _ in range(200)] + plain[:: max(1, count // 50)]
    check(got, plain, queries)
    check(Seqs.from_bytes(got.to_bytes()), plain, queries)


def test_seqs_are_compact() -> None:
    got = Seqs()
    for i in range(100_000):
        got.append(3 * i + i % 2)
    raw = got.to_bytes()
    assert len(raw) < 100_000 // 4  # under 2 bits an entry, against 64 in a plain array
    assert Seqs.from_bytes(raw).bisect_right(150_000) == 50_001  # i = 0 … 50,000


def test_seqs_refuse_an_append_out_of_order() -> None:
    got = Seqs()
    got.append(5)
    with pytest.raises(ValueError):
        got.append(5)
    with pytest.raises(ValueError):
        got.append(4)


@pytest.mark.parametrize("cut", [1, 7, 30, -1])
def test_truncated_bytes_are_refused(cut: int) -> None:
    got = Seqs()
    for i in range(3000):
        got.append(i * 2)
    raw = got.to_bytes()
    with pytest.raises(ValueError):
        Seqs.from_bytes(raw[:cut])


def test_numbering_over_blocks_of_two_matches_the_definition() -> None:
    """Each viewer's numbers and catch-up starts (tests/state/test_numbering.py) with every list's seqs sealed in
    blocks of two, so that nearly every number and every search step reads a sealed block."""
    from tests.state.test_numbering import test_numbers_and_catch_up_starts_match_the_definition as definition

    with block_of(2):
        definition()


def test_a_table_restored_from_its_snapshot_numbers_as_a_full_fold(tmp_path) -> None:
    """A campaign of secret rolls long enough that every list seals blocks: the table read back from its
    snapshot (and the events after it) numbers every seq for every viewer as the table that folded them all,
    and says the same of who may know of each secret event."""
    from protocol.v1 import messages as m
    from protocol.v1.facets import FacetsCheck
    from sidecar.state.hearing import seen
    from sidecar.state.ledger import SqliteLedger
    from sidecar.state.table import Table, decode_stored
    from sidecar.state.visibility import Viewer

    ledger = SqliteLedger(tmp_path / "v.sqlite3", synchronous="OFF")
    table = Table(ledger.create_table("t").table, ledger)
    table.load()
    modes = ["gm", "self", "blind", "public", "gm"]
    snapshot: bytes | None = None
    for i in range(1_600):
        viewer = Viewer("player", ("ann", "bo")[i % 2]) if i % 3 else Viewer("gm", "gm")
        msg = m.Roll(id="x", check=FacetsCheck(pool=2, dice=[1 + i % 6, 2]), mode=modes[i % 5])  # type: ignore[arg-type]
        pending = table.prepare_roll(msg, viewer, viewer.user)
        ledger.append_sync(table.id, pending.encoded(), None)
        table.commit(pending)
        if i == 1_400:
            snapshot, at = table.saved(), table.head
    assert snapshot is not None
    assert len(table.numbering.gaps[False]) > 2 * seqs_module.BLOCK
    again = Table(table.id, ledger)
    again.restore(snapshot, ledger.events(table.id, at))
    table = Table(table.id, ledger)
    table.load()  # no snapshot stored: every event folded
    assert again.head == table.head
    rows = [(seq, decode_stored(raw)) for seq, raw in ledger.events(table.id)]
    restricted = {seq: (st.vis, st.owner) for seq, st in rows if st.vis != "all"}
    viewers = [Viewer("player", None), Viewer("player", "ann"), Viewer("player", "bo"), Viewer("gm", "gm")]
    for viewer in viewers:  # against the definition: a viewer's number of s is how many of its events are <= s
        stream = [seq for seq, st in rows if seen(st, restricted, viewer) is not None]
        for nums in (again.numbering, table.numbering):
            assert nums.count(viewer) == len(stream)
            for seq in range(0, table.head + 1, 7):
                assert nums.number(seq, viewer) == bisect.bisect_right(stream, seq), (viewer, seq)
            for since in range(0, len(stream), 97):
                assert nums.after(since, viewer) == stream[since] - 1
    assert sorted(again.restricted.items()) == sorted(table.restricted.items())
    ledger.close()
