"""The protocol's unions are written out by hand: none may forget a Struct its module defines."""

from __future__ import annotations

from types import ModuleType

import pytest

from protocol.v1 import messages, odds, table

UNIONS = [
    (table, table.Op, table.OPS),
    (table, table.Event, table.EVENT_TYPES),
    (messages, messages.ClientMessage, messages.CLIENT_TYPES),
    (messages, messages.ServerMessage, messages.SERVER_TYPES),
    (odds, odds.CheckOdds, odds.ODDS_TYPES),
]


@pytest.mark.parametrize("module, base, members", UNIONS, ids=lambda x: getattr(x, "__name__", ""))
def test_every_struct_is_in_its_union(module: ModuleType, base: type, members: tuple[type, ...]) -> None:
    defined = {
        v for v in vars(module).values()
        if isinstance(v, type) and issubclass(v, base) and v is not base and v.__module__ == module.__name__
    }
    assert defined == set(members)
    assert len(members) == len(set(members))
