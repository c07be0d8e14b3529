"""The benchmarks' in-process parts run against the ledger as it is: `make bench` is not part of the suite, so
a change to the ledger's interface would otherwise break it unseen (it did once: a request without its
requester made the round trip's parts fail with a SQL error)."""

from bench import rtt


def test_the_round_trips_ledger_parts_append_through_the_ledgers_own_interface():
    label, on_loop, threaded, direct = rtt._ledger_parts("disk", count=5)
    assert label.startswith("disk")
    assert on_loop > 0 and threaded > 0 and direct > 0


def test_the_round_trips_durable_commit_floor_runs(tmp_path):
    assert rtt.durable_commit(tmp_path, count=5) > 0
