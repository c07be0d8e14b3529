"""A few Prometheus metrics, rendered as text at ``/metrics`` (no client library needed)."""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)


@dataclass
class Metrics:
    connections: int = 0
    guests: int = 0
    """Open sockets of observers and of the table-wide player key."""
    players: int = 0
    """Open sockets of players with their own user key."""
    unfinished_bytes: Callable[[], int] = lambda: 0
    """Bytes held for messages peers have begun and not finished, over all sockets."""
    rolls: Counter[str] = field(default_factory=Counter)
    requests: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    latency_counts: list[int] = field(default_factory=lambda: [0] * (len(BUCKETS) + 1))
    """Observations per bucket alone (the last: above every bucket); the histogram's are their running sums."""
    latency_sum: float = 0.0
    latency_count: int = 0

    def observe(self, seconds: float) -> None:
        self.latency_sum += seconds
        self.latency_count += 1
        self.latency_counts[bisect_left(BUCKETS, seconds)] += 1

    @property
    def latency_buckets(self) -> list[int]:
        """Per bucket, the observations at or below it (Prometheus' cumulative ``le``)."""
        out, total = [], 0
        for n in self.latency_counts[:-1]:
            total += n
            out.append(total)
        return out

    def render(self) -> str:
        out = [
            "# HELP verdict_connections Open websocket connections.",
            "# TYPE verdict_connections gauge",
            f"verdict_connections {self.connections}",
            "# HELP verdict_guest_connections Open websockets of observers and the table-wide player key.",
            "# TYPE verdict_guest_connections gauge",
            f"verdict_guest_connections {self.guests}",
            "# HELP verdict_player_connections Open websockets of players with their own user key.",
            "# TYPE verdict_player_connections gauge",
            f"verdict_player_connections {self.players}",
            "# HELP verdict_unfinished_message_bytes Bytes held for messages begun and not finished.",
            "# TYPE verdict_unfinished_message_bytes gauge",
            f"verdict_unfinished_message_bytes {self.unfinished_bytes()}",
            "# HELP verdict_rolls_total Checks resolved, by rule set.",
            "# TYPE verdict_rolls_total counter",
        ]
        out += [f'verdict_rolls_total{{system="{k}"}} {v}' for k, v in sorted(self.rolls.items())]
        out += ["# HELP verdict_requests_total Requests handled, by type.", "# TYPE verdict_requests_total counter"]
        out += [f'verdict_requests_total{{type="{k}"}} {v}' for k, v in sorted(self.requests.items())]
        out += ["# HELP verdict_errors_total Error replies, by code.", "# TYPE verdict_errors_total counter"]
        out += [f'verdict_errors_total{{code="{k}"}} {v}' for k, v in sorted(self.errors.items())]
        out += [
            "# HELP verdict_request_seconds Time from a request frame to its reply.",
            "# TYPE verdict_request_seconds histogram",
        ]
        for b, n in zip(BUCKETS, self.latency_buckets):
            out.append(f'verdict_request_seconds_bucket{{le="{b}"}} {n}')
        out.append(f'verdict_request_seconds_bucket{{le="+Inf"}} {self.latency_count}')
        out.append(f"verdict_request_seconds_sum {self.latency_sum:.6f}")
        out.append(f"verdict_request_seconds_count {self.latency_count}")
        return "\n".join(out) + "\n"
