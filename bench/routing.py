"""Which sidecar a table's sockets reach behind the proxy: the rule of Caddy's hashing selection policies.

``deploy/Caddyfile.several`` has ``lb_policy uri_hash``: Caddy hashes the request URI (``/ws?table=ID``,
the same for every socket of a table) together with each available upstream's dial address
(``host:port``) with XXH64, and picks the upstream with the highest hash (rendezvous, or
highest-random-weight, hashing). So every socket of a table lands on the same sidecar, and when a
sidecar goes away only its own tables move, each to the survivor that ranks next for it. The benchmark
and the tests route their connections with :func:`pick`, so they see what the proxy would do.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlsplit

_M = (1 << 64) - 1
_P1 = 0x9E3779B185EBCA87
_P2 = 0xC2B2AE3D27D4EB4F
_P3 = 0x165667B19E3779F9
_P4 = 0x85EBCA77C2B2AE63
_P5 = 0x27D4EB2F165667C5


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _M


def _round(acc: int, lane: int) -> int:
    return (_rotl((acc + lane * _P2) & _M, 31) * _P1) & _M


def _merge(acc: int, val: int) -> int:
    return ((acc ^ _round(0, val)) * _P1 + _P4) & _M


def xxh64(data: bytes, seed: int = 0) -> int:
    """XXH64 of ``data`` (the hash Caddy's selection policies use, from github.com/cespare/xxhash)."""
    n = len(data)
    i = 0
    if n >= 32:
        v = [(seed + _P1 + _P2) & _M, (seed + _P2) & _M, seed & _M, (seed - _P1) & _M]
        while i + 32 <= n:
            for k in range(4):
                v[k] = _round(v[k], int.from_bytes(data[i + 8 * k : i + 8 * k + 8], "little"))
            i += 32
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & _M
        for x in v:
            h = _merge(h, x)
    else:
        h = (seed + _P5) & _M
    h = (h + n) & _M
    while i + 8 <= n:
        h ^= _round(0, int.from_bytes(data[i : i + 8], "little"))
        h = (_rotl(h, 27) * _P1 + _P4) & _M
        i += 8
    if i + 4 <= n:
        h ^= (int.from_bytes(data[i : i + 4], "little") * _P1) & _M
        h = (_rotl(h, 23) * _P2 + _P3) & _M
        i += 4
    while i < n:
        h ^= (data[i] * _P5) & _M
        h = (_rotl(h, 11) * _P1) & _M
        i += 1
    h ^= h >> 33
    h = (h * _P2) & _M
    h ^= h >> 29
    h = (h * _P3) & _M
    h ^= h >> 32
    return h


def upstream(url: str) -> str:
    """The address Caddy names an upstream by (its dial address), from a sidecar's websocket URL."""
    return urlsplit(url).netloc


def request_uri(table: str) -> str:
    """What a client of ``table`` asks the proxy for (the Python client's URL for it, path and query)."""
    return "/ws?" + urlencode({"table": table})


def pick(urls: list[str], key: str) -> str:
    """The sidecar (one of ``urls``, those available) that the proxy sends a request for ``key`` to
    (for a table's sockets: :func:`request_uri`)."""
    if not urls:
        raise ValueError("no sidecar to route to")
    best, best_hash = urls[0], -1
    for url in urls:
        h = xxh64((upstream(url) + key).encode())
        if h > best_hash:
            best, best_hash = url, h
    return best


def table_of(url: str) -> str | None:
    """The table a websocket URL names (``/ws?table=ID``), if any."""
    values = parse_qs(urlsplit(url).query).get("table")
    return ",".join(values) if values else None
