"""Which ledger a ``--ledger`` value names."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sidecar import config

from .sqlite import SqliteLedger

if TYPE_CHECKING:
    from .postgres import PostgresLedger
    from .protocols import Ledger, Listening

    def _conforms(sqlite: SqliteLedger, postgres: PostgresLedger) -> tuple[Ledger, Ledger, Listening]:
        """Both stores are ledgers and the shared one listens: said to the type checker, never run."""
        return sqlite, postgres, postgres


def open_ledger(url: str | None, data: Path) -> SqliteLedger | PostgresLedger:
    """The ledger ``url`` names: empty for SQLite in the data folder ``data``, ``sqlite:PATH``, or
    ``postgresql://...`` (which needs the optional extra ``verdict[postgres]``: ImportError without it)."""
    if not url:
        return SqliteLedger(config.data_file(data))
    if url.startswith("sqlite:"):
        return SqliteLedger(Path(url.removeprefix("sqlite:").removeprefix("//")))
    if url.startswith(("postgresql://", "postgres://")):
        from .postgres import PostgresLedger

        return PostgresLedger(url)
    raise ValueError(f"unknown ledger {url.split(':', 1)[0]!r}: use postgresql://USER:PASSWORD@HOST/DB or sqlite:PATH")
