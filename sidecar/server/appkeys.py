"""What the application holds, by key: one module that every part of the server reads them from."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from aiohttp import web

if TYPE_CHECKING:
    from .hub import Hub
    from .limits import Limiter, PerSource, Throttled
    from .metrics import Metrics
    from .settings import Settings
    from .transport import Socket, Unfinished

HUB: web.AppKey[Hub] = web.AppKey("hub")
SETTINGS: web.AppKey[Settings] = web.AppKey("settings")
METRICS: web.AppKey[Metrics] = web.AppKey("metrics")
SOCKETS: web.AppKey[set[web.WebSocketResponse]] = web.AppKey("sockets")
LIMITS: web.AppKey[dict[str, Limiter]] = web.AppKey("limits")
PEERS: web.AppKey[dict[str, int]] = web.AppKey("peers")
"""Open sockets per remote address."""
USERS: web.AppKey[dict[tuple[str, str], int]] = web.AppKey("users")
"""Open sockets per user-keyed player, by (table, user)."""
WAITING: web.AppKey[dict[Socket, None]] = web.AppKey("waiting")
"""Sockets that have not said hello yet, oldest first."""
UNFINISHED: web.AppKey[Unfinished] = web.AppKey("unfinished")
THROTTLED: web.AppKey[Throttled] = web.AppKey("throttled")
REFUSALS: web.AppKey[PerSource] = web.AppKey("refusals")
"""Refused hellos and origins, logged once per source per minute with what to do."""
WATCHDOG: web.AppKey[asyncio.Task[None]] = web.AppKey("watchdog")
LIVE: web.AppKey[set[Socket]] = web.AppKey("live")
ODDS: web.AppKey[dict[str, Any]] = web.AppKey("odds")
