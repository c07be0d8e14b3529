"""The sidecar's settings while serving, from :mod:`sidecar.config`'s defaults and ``verdict serve``'s options."""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import ip_address
from pathlib import Path

from sidecar import config

LOCAL_FOUNDRY_ORIGINS = config.LOCAL_FOUNDRY_ORIGINS


@dataclass
class Settings:
    host: str = config.HOST
    port: int = config.PORT
    data: Path = Path(config.DATA_DIR)
    allow_origins: tuple[str, ...] | None = None
    """``None``: the local Foundry origins when serving on loopback, none else otherwise."""
    max_frame: int = config.MAX_FRAME
    rate: float = config.RATE
    """Requests per second a connection may sustain."""
    burst: float = config.BURST
    hello_timeout: float = config.HELLO_TIMEOUT
    """A socket that has not said hello this long after opening is closed (4408)."""
    frame_timeout: float = config.FRAME_TIMEOUT
    """A frame or message begun and not finished this long (from its first fragment, whatever control
    frames come between) is a stalled peer: the socket is cut (4408)."""
    key_rate: float | None = None
    """Requests per second one requester (a GM or a player bound to a user) may sustain over all its
    sockets, so reconnecting does not refill; ``None``: twice ``rate``."""
    address_rate: float | None = None
    """Requests per second one remote address may sustain over all its sockets; ``None``: 8 x ``rate``."""
    max_connections: int = config.MAX_CONNECTIONS
    """Open websockets at most: beyond, the oldest socket that has not said hello gives its seat up; when
    every seat is someone's who said hello, more are refused (503, ``too_many_connections``)."""
    max_per_address: int = config.MAX_PER_ADDRESS
    """Open websockets from one remote address at most: beyond, the address's oldest socket that has not said
    hello gives its seat up, and the hello of an observer or the table-wide player key is refused
    (``too_many_connections``); the GM and user-keyed players still get in."""
    max_guests: int = config.MAX_GUESTS
    """Observers and sockets of the table-wide player key at most; a hello beyond is refused."""
    max_unfinished_bytes: int = config.MAX_UNFINISHED_BYTES
    """Bytes held for messages begun and not finished, over all sockets; a peer beyond is cut (1009)."""
    send_buffer: int = config.SEND_BUFFER
    """The kernel's send buffer per socket: with the slow-peer check it bounds what an unread peer holds."""
    odds_queue: int = config.ODDS_QUEUE
    """Odds requests waiting for the odds worker at most; more are refused (``busy``)."""
    trusted_proxies: tuple[str, ...] = ()
    """Addresses or networks (CIDR) of reverse proxies whose ``X-Forwarded-For`` names the client: per-address
    limits and the /metrics check then apply to the client, not to the proxy. Their ``X-Forwarded-Proto``
    and ``-Host`` also give the module's URLs when no ``public_url`` is set; everyone else's are ignored."""
    public_url: str | None = None
    """Where clients reach the sidecar (``https://verdict.example.org``): the module's manifest and zip carry
    absolute URLs on it. ``None``: the address a request came in on (its socket's, never its ``Host``)."""
    metrics_token: str | None = None
    """``/metrics`` answers loopback clients, and others that send ``Authorization: Bearer <token>``."""

    def guest_seats(self) -> int:
        """``max_guests``, but never so many that the GM and user-keyed players would be left fewer than a
        quarter of ``max_connections`` (at least 8): the cap on connections falls with a low file limit."""
        return max(0, min(self.max_guests, self.max_connections - max(8, self.max_connections // 4)))

    def origins(self) -> frozenset[str]:
        if self.allow_origins is not None:
            return frozenset(o.rstrip("/") for o in self.allow_origins)
        return frozenset(LOCAL_FOUNDRY_ORIGINS) if is_loopback(self.host) else frozenset()


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False
