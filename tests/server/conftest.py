"""Fixtures of the server's tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from .several import Sidecars, start_sidecars


@pytest.fixture
async def pair(pg_url: str) -> AsyncIterator[Sidecars]:
    """Two sidecars over one PostgreSQL ledger (a real server), both listening, with a table made."""
    sc = await start_sidecars(pg_url)
    yield sc
    await sc.close()
