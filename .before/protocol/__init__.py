"""The Verdict wire contract.

Every message that crosses a socket is a msgspec Struct defined under
:mod:`protocol.v1`. The Structs are the single source of truth: the JSON schema in
``protocol/schema/v1.json`` is generated from them and the golden messages in
``protocol/vectors/`` must decode and re-encode byte for byte.
"""
