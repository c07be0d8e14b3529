"""A table's keys as every ledger stores them: made at random, kept only as hashes, checked in constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Iterable

from .protocols import TableKeys

ROLES = ("gm", "player", "observer")
"""The roles of the three table-wide keys, in the order a table's row keeps their hashes."""

TableRow = tuple[str, str, str, str, str, float, str]
"""A table's row: id, name, the three keys' hashes, the creation time and the secret user keys derive from."""


def hash_key(key: str) -> str:
    # Keys are 192-bit random tokens, so a plain SHA-256 is enough: no dictionary to attack.
    return hashlib.sha256(key.encode()).hexdigest()


def new_key() -> str:
    return secrets.token_urlsafe(24)


def new_secret() -> str:
    """A table's secret for user keys (:func:`sidecar.state.keys.derive_user_key`), as stored: hex."""
    return secrets.token_hex(32)


def new_table(name: str) -> tuple[TableKeys, TableRow]:
    """A new table's keys (shown once) and its row as every ledger stores it."""
    table_id = secrets.token_hex(4)
    keys = TableKeys(table_id, new_key(), new_key(), new_key())
    row = (
        table_id,
        name,
        hash_key(keys.gm),
        hash_key(keys.player),
        hash_key(keys.observer),
        time.time(),
        new_secret(),
    )
    return keys, row


def new_keys(table_id: str) -> tuple[TableKeys, tuple[str, str, str, str]]:
    """A table's new keys (a rotation) and what its row keeps of them: the three hashes and a new secret."""
    keys = TableKeys(table_id, new_key(), new_key(), new_key())
    return keys, (hash_key(keys.gm), hash_key(keys.player), hash_key(keys.observer), new_secret())


def role_of(hashes: Iterable[str], key: str) -> str | None:
    """The role whose stored hash (gm, player, observer) is the key's, or None."""
    h = hash_key(key)
    for role, stored in zip(ROLES, hashes):
        if hmac.compare_digest(h, stored):
            return role
    return None
