"""The ledger: where tables and their events are stored. One job a file:

- :mod:`.protocols`: what is asked of a ledger (:class:`ServingLedger`, :class:`Listening`,
  :class:`AdminLedger`, :class:`Ledger`), the records it answers with, and :class:`LedgerUnavailable`;
- :mod:`.guard`: the bound on every serving call, and the refusals and probes while a store is down;
- :mod:`.sqlite`: :class:`SqliteLedger`, the embedded default, one SQLite file of the data folder;
- :mod:`.postgres`: :class:`~.postgres.PostgresLedger`, a database several sidecars share (imported on
  demand: it needs the optional extra ``verdict[postgres]``); :mod:`.pg_listener` its ``LISTEN``/``NOTIFY``,
  :mod:`.pg_migrations` and ``migrations/*.sql`` its schema;
- :mod:`.request_window`: which request ids are answered from their first reply;
- :mod:`.table_keys`: a table's keys as stored (random, hashed, checked in constant time);
- :mod:`.check_index`: which checks an event names, as both ledgers index them;
- :mod:`.opening`: which ledger a ``--ledger`` value names.

Everything a caller uses is importable from here.
"""

from .check_index import check_ids
from .guard import BOUND, PROBE_EVERY, Guard, first_line, within
from .opening import open_ledger
from .protocols import (
    Access,
    Action,
    AdminLedger,
    Ledger,
    LedgerUnavailable,
    Listening,
    Note,
    Request,
    Row,
    ServingLedger,
    StoredRequest,
    TableInfo,
    TableKeys,
    Writer,
)
from .request_window import Answered, RequestWindow, requester, requester_of
from .sqlite import FILE_CHECK_EVERY, RESTORE, SqliteLedger
from .table_keys import ROLES, hash_key, new_key, new_table, role_of

__all__ = [
    "BOUND",
    "FILE_CHECK_EVERY",
    "PROBE_EVERY",
    "RESTORE",
    "ROLES",
    "Access",
    "Action",
    "AdminLedger",
    "Answered",
    "Guard",
    "Ledger",
    "LedgerUnavailable",
    "Listening",
    "Note",
    "Request",
    "RequestWindow",
    "Row",
    "ServingLedger",
    "SqliteLedger",
    "StoredRequest",
    "TableInfo",
    "TableKeys",
    "Writer",
    "check_ids",
    "first_line",
    "hash_key",
    "new_key",
    "new_table",
    "open_ledger",
    "requester",
    "requester_of",
    "role_of",
    "within",
]
