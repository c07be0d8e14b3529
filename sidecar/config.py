"""The sidecar's defaults, in one place: where it listens, where it keeps its data, its limits and timeouts.

``verdict serve`` options and :class:`sidecar.server.app.Settings` start from these; the README's
Security section states the same numbers.
"""

from __future__ import annotations

import os
from pathlib import Path

# --- where ----------------------------------------------------------------------------------------------
HOST = "127.0.0.1"
PORT = 8765
DATA_DIR = "var"
"""The data directory when neither ``--data`` nor ``$VERDICT_DATA`` names one."""
DATA_ENV = "VERDICT_DATA"
DATA_FILE = "verdict.sqlite3"
"""The ledger's file inside the data directory (SQLite, when no ``--ledger`` URL names another)."""
LEDGER_ENV = "VERDICT_LEDGER"
"""Names the ledger (``postgresql://…``) when ``--ledger`` does not."""
PUBLIC_URL_ENV = "VERDICT_PUBLIC_URL"
"""Names the public URL (where clients reach the sidecar, e.g. ``https://verdict.example.org``) when
``--public-url`` does not; the module's manifest and zip carry absolute URLs on it."""
KEYS_FILE = "default-table.keys"
"""Where the first table's keys are written once, inside the data directory."""
LOCAL_FOUNDRY_ORIGINS = (
    "http://localhost:30000",
    "http://127.0.0.1:30000",
    "https://localhost:30000",
    "https://127.0.0.1:30000",
)
"""Browsers allowed by default when serving on loopback (Foundry's own port)."""

# --- limits ---------------------------------------------------------------------------------------------
MAX_FRAME = 64 * 1024
"""Bytes in one websocket frame at most (``frame_too_large``)."""
RATE = 20.0
"""Requests per second a connection may sustain."""
BURST = 40.0
MAX_CONNECTIONS = 1000
"""Open websockets at most (503 beyond, once no socket that has not said hello is left to give its seat up)."""
MAX_PER_ADDRESS = 64
"""Open websockets from one remote address at most, for sockets that are no one in particular (see MAX_GUESTS)."""
MAX_GUESTS = 250
"""Sockets that are no one in particular at most: observers and the table-wide player key (a hello beyond is
refused, ``too_many_connections``). With sockets that have not said hello yet (the oldest of which gives its
seat up when the sidecar or an address is full) they never take the seats of the GM and user-keyed players:
a quarter of MAX_CONNECTIONS (at least 8) stays theirs even when a low file limit lowers it."""
MAX_UNFINISHED_BYTES = 32 * 1024 * 1024
"""Bytes held for messages begun and not finished (fragments, a frame in flight), over all sockets of the
process: a peer whose bytes would go beyond is cut off (1009) before they are held. A message that arrives
whole in one read (every request of a few KiB) is never held, so never cut for it."""
SEND_BUFFER = 64 * 1024
"""The kernel's send buffer per socket."""
ODDS_QUEUE = 32
"""Odds requests waiting for the odds worker at most (``busy`` beyond)."""

# --- timeouts (seconds) ---------------------------------------------------------------------------------
HELLO_TIMEOUT = 10.0
"""A socket that has not said ``hello`` this long after opening is closed (4408)."""
FRAME_TIMEOUT = 10.0
"""A frame or a message begun and not finished this long is a stalled peer (4408): it runs from the message's
first fragment, and pings or pongs between its fragments do not reset it."""
SHUTDOWN_TIMEOUT = 5.0
"""On SIGINT or SIGTERM, how long open sockets get to close."""
WARN_INTERVAL = 10.0
"""Resource warnings are logged at most once per this interval, with a count of those left out."""


def data_dir(value: str | Path | None = None) -> Path:
    """The data directory: ``value``, else ``$VERDICT_DATA``, else ``./var``."""
    return Path(value or os.environ.get(DATA_ENV) or DATA_DIR)


def data_file(data: Path) -> Path:
    """The ledger's file in the data directory ``data``."""
    return data / DATA_FILE


# --- the runtime ------------------------------------------------------------------------------------------
GC_YOUNG = 10_000
"""Allocations between two collections of the youngest objects (Python's default is 700); see
:func:`sidecar.server.app.tune_gc`."""

# --- growth: what a table keeps as the campaign goes on -----------------------------------------------------
REQUEST_WINDOW = 1000
"""Request ids per requester (role and user) per table answered from their first reply: the last this many."""
REQUEST_WINDOW_AGE = 24 * 3600.0
"""Seconds a request id is answered from its first reply at most; an older id is a new request."""
HOUSEKEEPING_EVERY = 30.0
"""Seconds between two rounds of the hub's housekeeping (request rows out of the window pruned, snapshots
written, idle tables let go), off the request path."""
SNAPSHOT_EVERY = 1000
"""Events between two snapshots of a table's state (a load reads the newest and the events after it)."""
IDLE_UNLOAD_AFTER = 600.0
"""Seconds a table held in memory may go without connections before it is let go (snapshotted first); the
next join loads it again from its snapshot."""
CHECKS_HELD = 1000
"""Checks still open to follow-ups a table holds in memory at most (the newest). A check its rule set closes
leaves at once; one a rule leaves open (the GM's removal of a complication after an epic success waits for a
complication; an extended check's roll while it is in progress) leaves once this many newer ones are held.
Either way its events stay in the ledger, and a follow-up or ``verify`` naming it reads them back and is
answered as before: this bounds memory, not what a client may do."""
CHECKS_LATEST = 16
"""The last checks rolled a table holds whether or not they are still open (the cards just drawn, which every
browser drawing them verifies); older ones are held only while open (:data:`CHECKS_HELD`)."""
OLD_CHECKS_KEPT = 256
"""Checks no longer held (closed, or out of :data:`CHECKS_HELD`) kept once read back from the ledger, for a
follow-up or ``verify`` that names them again (a reload of the chat log verifies every card it draws)."""
