"""The request-time histogram: Prometheus' cumulative buckets, each observation counted in every bucket at or above it."""

from __future__ import annotations

from sidecar.server.metrics import BUCKETS, Metrics


def test_buckets_are_cumulative_and_bounds_inclusive():
    m = Metrics()
    for seconds in (0.0001, 0.0005, 0.0006, 0.001, 0.3, 2.0):
        m.observe(seconds)
    # le=0.0005 holds 0.0001 and 0.0005 itself; 0.0006 and 0.001 join at le=0.001; 0.3 at le=0.5; 2.0 in none
    expected = [sum(1 for s in (0.0001, 0.0005, 0.0006, 0.001, 0.3, 2.0) if s <= b) for b in BUCKETS]
    assert m.latency_buckets == expected == [2, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5]
    text = m.render()
    assert 'verdict_request_seconds_bucket{le="0.0005"} 2' in text
    assert 'verdict_request_seconds_bucket{le="+Inf"} 6' in text
    assert "verdict_request_seconds_count 6" in text
