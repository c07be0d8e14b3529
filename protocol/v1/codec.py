"""Encoding and decoding of v1 frames, with errors that say what to fix.

JSON text frames for browsers; MessagePack for Python clients that negotiate
``verdict.v1+msgpack``. Unknown types, garbage, missing fields and unknown fields raise
:class:`ProtocolError` with a stable code. Unknown fields are refused in every client message and
in every Struct nested in one (checks, participants, pools, actions, GM operations), with the
field's name and where it sits (``$.check.opponent``): a misspelled field would otherwise be
dropped and the request done without it. Frames nested too deeply, integers outside 64-bit
signed range and text fields longer than :data:`MAX_TEXT` raise it too, and so does a value beyond its
field's own bound (``protocol/v1/limits.py``: named with its place and the bound, ``text_too_long`` for a
text).

What the sidecar sends (results, events, snapshots) is decoded leniently: a client keeps reading
the messages of a newer sidecar that added a field, since what it does not know it only shows.
"""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec

from .errors import ErrorCode, VerdictError
from .messages import CLIENT_TYPES, AnyClientMessage, AnyServerMessage

CLIENT_TAGS = frozenset(t.__struct_config__.tag for t in CLIENT_TYPES)

INT_MIN, INT_MAX = -(2**63), 2**63 - 1
MAX_TEXT = 1024
"""Longest string a client may send in any field (labels, complication texts, names, ids), in characters."""


class ProtocolError(VerdictError, ValueError):
    """A frame or a message that does not decode; ``id`` is the request's, when it could be read."""

    def __init__(self, code: ErrorCode, message: str, id: str | None = None) -> None:
        super().__init__(code, message)
        self.id = id


class _Envelope(msgspec.Struct, gc=False, forbid_unknown_fields=False):
    type: Any = None
    id: Any = None


_json_encoder = msgspec.json.Encoder()
_msgpack_encoder = msgspec.msgpack.Encoder()
_client_json = msgspec.json.Decoder(AnyClientMessage)
_client_msgpack = msgspec.msgpack.Decoder(AnyClientMessage)
_server_json = msgspec.json.Decoder(AnyServerMessage)
_server_msgpack = msgspec.msgpack.Decoder(AnyServerMessage)
_env_json = msgspec.json.Decoder(_Envelope)
_env_msgpack = msgspec.msgpack.Decoder(_Envelope)


def _packed(data: bytes | str) -> bytes:
    """A MessagePack decoder reads bytes only: a text frame fails here as msgspec itself fails it."""
    if isinstance(data, str):
        raise TypeError("a bytes-like object is required, not 'str'")
    return data


def encode(msg: Any, msgpack: bool = False) -> bytes:
    return _msgpack_encoder.encode(msg) if msgpack else _json_encoder.encode(msg)


def decode_client(data: bytes | str, msgpack: bool = False) -> Any:
    """Decode a client frame, or raise :class:`ProtocolError` naming what is wrong."""
    try:
        msg = _client_msgpack.decode(_packed(data)) if msgpack else _client_json.decode(data)
    except msgspec.DecodeError as exc:
        detail = str(exc)
    except RecursionError:
        raise ProtocolError(ErrorCode.INVALID_MESSAGE, "the frame is nested too deeply") from None
    else:
        if not _small(data, msgpack) and not _fits(msg):  # find what does not fit, and say where
            _check_values(msg, getattr(msg, "id", None))
        return msg
    try:
        env = _env_msgpack.decode(_packed(data)) if msgpack else _env_json.decode(data)
    except msgspec.DecodeError as exc:
        if not msgpack:
            raise _not_json(data) from None
        if "UTF-8" in str(exc):
            raise ProtocolError(
                ErrorCode.BAD_FRAME, "a string in the frame is not UTF-8: MessagePack strings are UTF-8 text"
            ) from None
        raise ProtocolError(ErrorCode.BAD_FRAME, "the frame is not a MessagePack map") from None
    except RecursionError:
        raise ProtocolError(ErrorCode.INVALID_MESSAGE, "the frame is nested too deeply") from None
    rid = env.id if isinstance(env.id, str) else None
    if env.type is None:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "the message has no `type` field", rid)
    if not isinstance(env.type, str):
        raise ProtocolError(ErrorCode.INVALID_MESSAGE, '`type` is a string naming the message, e.g. "roll"', rid)
    if env.type not in CLIENT_TAGS:
        raise ProtocolError(
            ErrorCode.UNKNOWN_TYPE,
            f"unknown message type {env.type!r}; expected one of: {', '.join(sorted(map(str, CLIENT_TAGS)))}",
            rid,
        )
    code, why = _explain(detail)
    raise ProtocolError(code, f"invalid {env.type!r} message: {why}", rid)


def _not_json(data: bytes | str) -> ProtocolError:
    """Why a text frame is not read: text that is not UTF-8, a lone surrogate (JSON's grammar allows
    ``"\\ud800"``, Unicode does not), or no JSON object at all."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ProtocolError(
            ErrorCode.BAD_FRAME,
            f"text frames are UTF-8, and byte {exc.start} (0x{raw[exc.start]:02x}) of this one is not; "
            "send the text encoded as UTF-8",
        )
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return ProtocolError(ErrorCode.BAD_FRAME, "the frame is not a JSON object")
    try:
        found = _lone_surrogate(value, "")
    except RecursionError:
        found = None
    if found is None:
        return ProtocolError(ErrorCode.BAD_FRAME, "the frame is not a JSON object")
    where, char = found
    rid = value.get("id") if isinstance(value, dict) else None
    return ProtocolError(
        ErrorCode.BAD_FRAME,
        f"`{where or '$'}` holds a lone surrogate (\\u{ord(char):04x}), which is no character: text must be "
        "Unicode (a character beyond U+FFFF is written as a pair of escapes, high then low, or as itself)",
        rid if isinstance(rid, str) and _LONE.search(rid) is None and len(rid) <= MAX_TEXT else None,
    )


_LONE = re.compile("[\ud800-\udfff]")


def _lone_surrogate(value: Any, path: str) -> tuple[str, str] | None:
    """Where a lone surrogate sits in a JSON value Python's reader accepted (its path and the surrogate)."""
    if isinstance(value, str):
        hit = _LONE.search(value)
        return (path, hit.group()) if hit else None
    if isinstance(value, dict):
        for k, item in value.items():
            if (hit := _LONE.search(k)) is not None:
                return (f"{path}.{k!a}" if path else f"{k!a}", hit.group())
            found = _lone_surrogate(item, f"{path}.{k}" if path else k)
            if found is not None:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found = _lone_surrogate(item, f"{path}[{i}]")
            if found is not None:
                return found
    return None


_UNKNOWN = re.compile(r"^Object contains unknown field `(?P<name>[^`]*)`(?: - at `(?P<at>[^`]*)`)?$")
_BOUND = re.compile(
    r"^Expected `(?P<kind>int|str|array|object)`(?P<length> of length)? (?P<op><=|>=|<|>) (?P<n>-?[0-9]+)"
    r"(?: - at `\$\.?(?P<at>[^`]*)`)?$"
)
_SIDE = {"<=": "at most", ">=": "at least", "<": "less than", ">": "more than"}


def _explain(detail: str) -> tuple[ErrorCode, str]:
    """msgspec's error as the refusal says it: an unknown field named with its full path
    (``$.check.opponent.abilty``); a value beyond a field's bound (``protocol/v1/limits.py``) named with its place
    and the bound (a text too long: ``text_too_long``, as for any text beyond :data:`MAX_TEXT`)."""
    hit = _UNKNOWN.match(detail)
    if hit is not None:
        where = hit["at"] or "$"
        return ErrorCode.INVALID_MESSAGE, (
            f"unknown field `{hit['name']}` at `{where}.{hit['name']}`; no such field here: check its spelling and place"
        )
    bound = _BOUND.match(detail)
    if bound is None:
        return ErrorCode.INVALID_MESSAGE, detail
    where, side, n = bound["at"] or "$", _SIDE[bound["op"]], bound["n"]
    if bound["kind"] == "str" and bound["length"]:
        return ErrorCode.TEXT_TOO_LONG, f"`{where}` is too long: {side} {n} characters"
    if bound["length"]:
        return ErrorCode.INVALID_MESSAGE, f"`{where}` holds {side} {n} items"
    return ErrorCode.INVALID_MESSAGE, f"`{where}` is {side} {n}: the bound of what the rules can mean"


_LONG_NUMBER = re.compile(rb"[0-9]{19}")
_LONG_NUMBER_TEXT = re.compile(r"[0-9]{19}")


def _small(data: bytes | str, msgpack: bool) -> bool:
    """Whether nothing in the frame can be over a limit, by its bytes alone (most requests): no text in a frame
    of at most :data:`MAX_TEXT` bytes or characters is longer, and every integer outside 64 signed bits has
    19 digits or more in JSON, or is a MessagePack uint64 (``0xcf``). A digit run or an ``0xcf`` byte inside
    a text only sends the frame to the full check."""
    if len(data) > MAX_TEXT:
        return False
    if msgpack:
        return isinstance(data, bytes) and b"\xcf" not in data
    if isinstance(data, bytes):
        return _LONG_NUMBER.search(data) is None
    return _LONG_NUMBER_TEXT.search(data) is None


def _fits(value: Any) -> bool:
    """Whether every integer fits 64 signed bits and every text :data:`MAX_TEXT`: the check of every
    request, without the paths :func:`_check_values` builds to name what does not fit (``False`` for
    anything it does not know, which that then looks at)."""
    kind = type(value)
    if kind is str:
        return len(value) <= MAX_TEXT
    if kind is int:
        return bool(INT_MIN <= value <= INT_MAX)
    if value is None or kind is bool or kind is float:
        return True
    if isinstance(value, msgspec.Struct):
        for name in value.__struct_fields__:
            if not _fits(getattr(value, name)):
                return False
        return True
    if kind is list or kind is tuple:
        for item in value:
            if not _fits(item):
                return False
        return True
    if kind is dict:
        for k, item in value.items():
            if not _fits(k) or not _fits(item):
                return False
        return True
    return False


def _check_values(value: Any, rid: Any, path: str = "") -> None:
    """Integers fit 64 signed bits and text fits :data:`MAX_TEXT`, everywhere in a decoded message."""
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int):
        if not INT_MIN <= value <= INT_MAX:
            raise ProtocolError(
                ErrorCode.INVALID_MESSAGE,
                f"`{path}`: integers are limited to 64-bit signed values",
                rid if isinstance(rid, str) else None,
            )
    elif isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise ProtocolError(
                ErrorCode.TEXT_TOO_LONG,
                f"`{path}` has {len(value)} characters; at most {MAX_TEXT}",
                rid if isinstance(rid, str) and len(rid) <= MAX_TEXT else None,
            )
    elif isinstance(value, msgspec.Struct):
        for name in value.__struct_fields__:
            _check_values(getattr(value, name), rid, f"{path}.{name}" if path else name)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _check_values(item, rid, f"{path}[{i}]")
    elif isinstance(value, dict):
        for k, item in value.items():
            _check_values(k, rid, path)
            _check_values(item, rid, f"{path}.{k}")


def request_id(data: bytes | str, msgpack: bool = False) -> str | None:
    """The ``id`` of a frame that will not be handled (rate limited), so the refusal names it."""
    if msgpack and isinstance(data, str):
        return None  # a text frame on a MessagePack socket: refused as such
    try:
        env = _env_msgpack.decode(_packed(data)) if msgpack else _env_json.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return None
    return env.id if isinstance(env.id, str) and len(env.id) <= MAX_TEXT else None


def decode_server(data: bytes | str, msgpack: bool = False) -> Any:
    return _server_msgpack.decode(_packed(data)) if msgpack else _server_json.decode(data)
