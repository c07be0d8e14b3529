"""Who a key lets in: the three table-wide keys, and the per-user player keys derived from a table's secret.

A user key is ``HMAC-SHA256(table secret, user id)``: the server can derive it again at every
``hello`` without storing it, and ``verdict table rotate-keys`` replaces the secret, so every user
key derived before stops working. The table-wide player key binds to no user.

A session lasts as long as the keys it was let in with: an :class:`Identity` carries their mark
(:attr:`~.ledger.Access.keys`), and a sidecar that finds a table's mark changed (a rotation, by any process on
the ledger) ends the sessions of the old one (:meth:`sidecar.server.hub.Hub.check_keys`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import sys
from dataclasses import dataclass
from typing import IO

from protocol.v1.errors import ErrorCode, VerdictError
from protocol.v1.messages import Role
from sidecar.config import MAX_USER

from .ledger import ServingLedger, TableKeys


def derive_user_key(secret: bytes, user: str) -> str:
    mac = hmac.new(secret, b"verdict-user-key\x00" + user.encode(), hashlib.sha256).digest()
    return "u" + base64.urlsafe_b64encode(mac).decode().rstrip("=")


@dataclass(frozen=True)
class Identity:
    role: Role
    user: str | None
    """The user the connection is bound to (a user key, or the GM's own id); ``None``: no one."""
    keys: str = ""
    """The mark of the table's keys the key was checked against: the session ends once they are rotated."""


class Refused(VerdictError):
    """A ``hello`` whose key (or user) is refused."""


async def authenticate(ledger: ServingLedger, table_id: str, key: str, user: str | None) -> Identity:
    """The identity ``key`` (and ``hello.user``) gives on ``table_id``, or :class:`Refused` (or
    :class:`~.ledger.LedgerUnavailable`: the ledger is read without blocking the loop)."""
    if user is not None and (not user or len(user) > MAX_USER):
        raise Refused(ErrorCode.UNAUTHORIZED, "unknown table or wrong key for it")
    access = await ledger.find_access(table_id, key)  # one read: the key, the secret and their mark agree
    if access is None:
        raise Refused(ErrorCode.UNAUTHORIZED, "unknown table or wrong key for it")
    role, keys = access.role, access.keys
    if role == "gm":
        return Identity("gm", user, keys)
    if role == "player":
        if user is not None:
            raise Refused(
                ErrorCode.USER_KEY_REQUIRED,
                "the table-wide player key binds to no user; to act as a user, connect with that user's own user key "
                "(the GM gets it with `user_key` or `verdict table user-key`)",
            )
        return Identity("player", None, keys)
    if role == "observer":
        return Identity("observer", None, keys)  # observers watch the public view; a claimed user changes nothing
    if user is not None and hmac.compare_digest(derive_user_key(access.user_secret, user), key):
        return Identity("player", user, keys)
    raise Refused(ErrorCode.UNAUTHORIZED, "unknown table or wrong key for it")


def print_keys(name: str, keys: TableKeys, file: IO[str] | None = None) -> None:
    """A table's keys as `verdict table create` and a first `verdict serve` show them, once."""
    out = file or sys.stdout
    print("", file=out)
    print(f"  Verdict table {name!r}", file=out)
    print(f"    table id      {keys.table}", file=out)
    print(f"    GM key        {keys.gm}", file=out)
    print(f"    player key    {keys.player}", file=out)
    print(f"    observer key  {keys.observer}", file=out)
    print("  Keep the GM key secret; it is shown only now (keys are stored hashed).", file=out)
    print("", file=out, flush=True)
