"""The protocol's unions are written out by hand: none may forget a Struct its module defines."""

from __future__ import annotations

from types import ModuleType

import pytest

from protocol.v1 import base, messages, odds, systems, table

UNIONS = [
    (table, table.Op, table.CORE_OPS),
    (table, table.Event, table.CORE_EVENTS),
    (messages, messages.ClientMessage, messages.CLIENT_TYPES),
    (messages, messages.ServerMessage, messages.SERVER_TYPES),
    (odds, odds.CheckOdds, odds.ODDS_TYPES),
]


@pytest.mark.parametrize("module, base, members", UNIONS, ids=lambda x: getattr(x, "__name__", ""))
def test_every_struct_is_in_its_union(module: ModuleType, base: type, members: tuple[type, ...]) -> None:
    defined = {
        v
        for v in vars(module).values()
        if isinstance(v, type) and issubclass(v, base) and v is not base and v.__module__ == module.__name__
    }
    assert defined == set(members)
    assert len(members) == len(set(members))


@pytest.mark.parametrize("base_struct", [base.Op, base.Event], ids=lambda b: b.__name__)
def test_every_rule_sets_table_struct_is_in_its_union(base_struct: type) -> None:
    """The operations and events each rule set's module defines are in the table's unions, and nothing else is."""
    union = table.OPS if base_struct is base.Op else table.EVENT_TYPES
    core = table.CORE_OPS if base_struct is base.Op else table.CORE_EVENTS
    defined = {
        v
        for _, module in systems.MODULES
        for v in vars(module).values()
        if isinstance(v, type)
        and issubclass(v, base_struct)
        and v is not base_struct
        and v.__module__ == module.__name__
    }
    assert set(union) == set(core) | defined
    assert len(union) == len(set(union))
