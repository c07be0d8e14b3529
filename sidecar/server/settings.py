"""The sidecar's settings while serving: :mod:`sidecar.config`'s knobs, as ``verdict serve``'s options set them."""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import ip_address

from sidecar import config

LOCAL_FOUNDRY_ORIGINS = config.LOCAL_FOUNDRY_ORIGINS


@dataclass
class Settings(config.Knobs):
    """Every knob (declared, with its default and help, in :class:`sidecar.config.Knobs`) and what follows
    from them. Built by ``verdict serve`` from its options, or by code with keywords (``Settings(rate=5)``)."""

    def bucket(self) -> float:
        """What one socket's token bucket holds: ``burst``, else twice ``rate``."""
        return self.burst if self.burst is not None else 2 * self.rate

    def guest_seats(self) -> int:
        """``max_guests``, but never so many that the GM and user-keyed players would be left fewer than a
        quarter of ``max_connections`` (at least 8): the cap on connections falls with a low file limit."""
        return max(0, min(self.max_guests, self.max_connections - max(8, self.max_connections // 4)))

    def gm_reserve(self) -> int:
        """``gm_seats``, at most a quarter of ``max_connections``: the seats no hello but a GM key's takes."""
        return min(self.gm_seats, self.max_connections // 4)

    def origins(self) -> frozenset[str]:
        """The browser origins allowed: ``allow_origins``, else the local Foundry ones on loopback, else none."""
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
