"""Requests over the Python client, as the rules' end-to-end tests make them: a roll, a follow-up, a GM
op, the state, and the code a refused request names."""

from __future__ import annotations

import pytest

from protocol.v1 import messages as m
from sidecar.client import RequestFailed


async def roll(c, check, **kw):
    return await c.request(m.Roll(id=c.new_id(), check=check, **kw))


async def follow(c, check_id, action):
    return await c.request(m.Follow(id=c.new_id(), check=check_id, action=action))


async def gm_op(gm, op):
    return await gm.request(m.Gm(id=gm.new_id(), op=op))


async def state(c):
    return (await c.request(m.State(id=c.new_id()))).snapshot


async def refused(coro) -> str:
    """The error code of a request that must be refused (fails the test if it goes through)."""
    with pytest.raises(RequestFailed) as e:
        await coro
    return e.value.code
