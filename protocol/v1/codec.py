"""Encoding and decoding of v1 frames, with errors that say what to fix.

JSON text frames for browsers; MessagePack for Python clients that negotiate
``verdict.v1+msgpack``. Unknown fields are ignored; unknown types, garbage and
missing fields raise :class:`ProtocolError` with a stable code.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .messages import CLIENT_TYPES, AnyClientMessage, AnyServerMessage

CLIENT_TAGS = frozenset(t.__struct_config__.tag for t in CLIENT_TYPES)


class ProtocolError(ValueError):
    def __init__(self, code: str, message: str, id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.id = id


class _Envelope(msgspec.Struct, forbid_unknown_fields=False):
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


def encode(msg: Any, msgpack: bool = False) -> bytes:
    return _msgpack_encoder.encode(msg) if msgpack else _json_encoder.encode(msg)


def decode_client(data: bytes | str, msgpack: bool = False) -> Any:
    """Decode a client frame, or raise :class:`ProtocolError` naming what is wrong."""
    dec, env_dec = (_client_msgpack, _env_msgpack) if msgpack else (_client_json, _env_json)
    try:
        return dec.decode(data)
    except msgspec.DecodeError as exc:
        detail = str(exc)
    try:
        env = env_dec.decode(data)
    except msgspec.DecodeError:
        raise ProtocolError("bad_frame", "the frame is not a JSON object" if not msgpack else "the frame is not a MessagePack map") from None
    rid = env.id if isinstance(env.id, str) else None
    if env.type is None:
        raise ProtocolError("bad_message", "the message has no `type` field", rid)
    if env.type not in CLIENT_TAGS:
        raise ProtocolError(
            "unknown_type",
            f"unknown message type {env.type!r}; expected one of: {', '.join(sorted(CLIENT_TAGS))}",
            rid,
        )
    raise ProtocolError("invalid_message", f"invalid {env.type!r} message: {detail}", rid)


def request_id(data: bytes | str, msgpack: bool = False) -> str | None:
    """The ``id`` of a frame that will not be handled (rate limited), so the refusal names it."""
    try:
        env = (_env_msgpack if msgpack else _env_json).decode(data)
    except msgspec.DecodeError:
        return None
    return env.id if isinstance(env.id, str) else None


def decode_server(data: bytes | str, msgpack: bool = False) -> Any:
    return (_server_msgpack if msgpack else _server_json).decode(data)
