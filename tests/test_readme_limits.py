"""The operator's guide's Security section (docs/operating.md) states sidecar/config.py's numbers: its table of knobs is made from the knobs
(``make schema``), and every number its prose gives for a limit is that limit's default."""

from __future__ import annotations

import pytest

from protocol.v1.codec import MAX_TEXT
from sidecar import config, knob_table
from sidecar.server.settings import Settings

D = config.DEFAULTS
KNOB = {k.name: k for k in config.KNOBS}


def _security() -> str:
    text = knob_table.GUIDE.read_text()
    section = text[text.index("\n## Security\n") :]
    section = section[: section.index("\n## ", 1)]
    return " ".join(section.split())  # the prose's lines wrap anywhere


def test_the_table_of_knobs_is_current() -> None:
    text = knob_table.GUIDE.read_text()
    assert knob_table.rewrite(text) == text, "the table of knobs in docs/operating.md is out of date: run `make schema`"
    for group in knob_table.GROUPS:
        for knob in config.KNOBS:
            if knob.group == group:
                assert f"| `{knob.option}` | {knob.said(knob.default)} |" in text, knob.option


def _n(value: float) -> str:
    return f"{value:,g}" if isinstance(value, float) else f"{value:,}"


PROSE = [
    # (what the guide says, with the default where it goes)
    (f"Frames: at most {KNOB['max_frame'].said(D.max_frame)} (`--max-frame`", "max_frame"),
    (f"text fields at most {_n(MAX_TEXT)} characters", "the protocol's"),
    (f"{_n(D.rate)} requests/s per socket (burst {_n(Settings().bucket())})", "rate, burst"),
    (f"Connections: {_n(D.max_connections)} in all (`--max-connections`", "max_connections"),
    (f"{_n(D.max_per_address)} per remote address (`--max-per-address`", "max_per_address"),
    (f"apart, {_n(D.max_guests)} at most (`--max-guests`", "max_guests"),
    (f"within {KNOB['hello_timeout'].said(D.hello_timeout)} (`--hello-timeout`)", "hello_timeout"),
    (f"within {KNOB['frame_timeout'].said(D.frame_timeout)} (`--frame-timeout`)", "frame_timeout"),
    (f"({KNOB['max_unfinished_bytes'].said(D.max_unfinished_bytes)}, `--max-unfinished-bytes`)", "unfinished"),
    (f"once {config.SLOW_PEER_BYTES // config.KIB} KiB wait for it", "SLOW_PEER_BYTES"),
    (f"bounded at {KNOB['send_buffer'].said(D.send_buffer)}, `--send-buffer`", "send_buffer"),
    (f"at most {D.odds_queue} waiting (`--odds-queue`", "odds_queue"),
    (f"bounded by bytes ({config.ODDS_CACHE_BYTES // config.MIB} MiB)", "ODDS_CACHE_BYTES"),
    (f"once per {config.WARN_INTERVAL:g} s", "WARN_INTERVAL"),
    (f"(at most {config.MAX_REQUEST_ID} characters", "MAX_REQUEST_ID"),
    (f"among its requester's last **{_n(D.request_window)}**", "request_window"),
    (f"less than **{D.request_window_age / 3600:g} h** ago", "request_window_age"),
    (f"pruned every {D.housekeeping_every:g} s", "housekeeping_every"),
]


@pytest.mark.parametrize("said, what", PROSE, ids=[w for _, w in PROSE])
def test_the_prose_states_the_defaults(said: str, what: str) -> None:
    assert said in _security(), f"the Security section of docs/operating.md no longer says {said!r} ({what})"


def test_when_the_ledger_is_down_states_its_bounds() -> None:
    text = " ".join(knob_table.GUIDE.read_text().split())
    assert f"`ledger_unavailable` within about {config.LEDGER_BOUND:g} seconds" in text
    assert f"(a probe every {config.LEDGER_PROBE_EVERY:g} s)" in text
