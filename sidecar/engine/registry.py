"""The rule sets the engine knows: the one registry everything else is built from.

The CLI's subcommands, the odds, the table's consequences, what players may see and the module's vocabulary
all come from :data:`RULESETS`: every rule set's :class:`RuleSet` instance named under the entry point group
``verdict.rulesets``, the five shipped here by Verdict's own distribution, then those installed as packages
of their own. The protocol gathers the
same rule sets' Structs on its side (it must not import the engine), and a test holds the two in agreement.
To add a rule set, see :mod:`sidecar.engine.ruleset`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from protocol.v1 import table as t
from protocol.v1.base import Action
from protocol.v1.systems import ADDED_BY, SYSTEMS, RuleSetPackageError, installed_by, load_installed
from protocol.v1.systems import EVENT_TYPES as RULE_SET_EVENTS
from protocol.v1.systems import OP_TYPES as RULE_SET_OPS

from .errors import CheckError, ErrorCode
from .ruleset import RuleSet, TableView
from .table_part import TablePart

RULESET_ENTRY_POINTS = "verdict.rulesets"
"""The entry point group naming the :class:`RuleSet` of each rule set installed as a package of its own."""


def _installed() -> list[RuleSet[Any, Any]]:
    """Every :class:`RuleSet` instance, in the protocol's order (the protocol's loader refuses a shipped name
    another package gives, two packages naming one rule set and an entry point that fails to load)."""
    out: list[RuleSet[Any, Any]] = []
    for ep, rs in load_installed(RULESET_ENTRY_POINTS):
        if not isinstance(rs, RuleSet) or rs.name != ep.name:
            raise RuleSetPackageError(f"{installed_by(ep)} is not the RuleSet named {ep.name!r}")
        if rs.name not in SYSTEMS:
            raise RuleSetPackageError(
                f"{installed_by(ep)} installs the rule set {rs.name!r} but no Structs for it "
                f"(an entry point {rs.name} = <module> of the group verdict.protocol)"
            )
        out.append(rs)
    return out


RULESETS: dict[str, RuleSet[Any, Any]] = {rs.name: rs for rs in _installed()}
"""Every rule set by its tag, in the protocol's order."""

for _name in SYSTEMS:
    if _name not in RULESETS:
        raise RuleSetPackageError(
            f"{ADDED_BY.get(_name, 'the protocol')} gives the Structs of the rule set {_name!r} but no RuleSet "
            f"(an entry point {_name} = <module>:RULESET of the group {RULESET_ENTRY_POINTS})"
        )
if tuple(RULESETS) != SYSTEMS:
    raise TypeError(f"the engine's rule sets {tuple(RULESETS)} are not the protocol's {SYSTEMS}")

_BY_CHECK: dict[type, RuleSet[Any, Any]] = {rs.check_type: rs for rs in RULESETS.values()}
_BY_RESULT: dict[type, RuleSet[Any, Any]] = {rs.result_type: rs for rs in RULESETS.values()}
_BY_ACTION: dict[type, RuleSet[Any, Any]] = {a: rs for rs in RULESETS.values() for a in rs.followups}
_BY_OP: dict[type, RuleSet[Any, Any]] = {op: rs for rs in RULESETS.values() for op in rs.ops}

GM_FOLLOWUPS: frozenset[type[Action]] = frozenset(a for rs in RULESETS.values() for a in rs.gm_followups)
"""Follow-ups that are the GM's (the Judge's) to make, not the roller's."""

PARTS: dict[str, TablePart] = {rs.name: rs.table_part for rs in RULESETS.values() if rs.table_part is not None}
"""Each rule set's part of the table's state, by tag (those that keep none are not here)."""
_BY_EVENT: dict[type, tuple[str, TablePart]] = {}
REACTIONS: dict[type, list[tuple[str, TablePart]]] = {}
"""The parts that fold one of the table's own events too, by the event's class, in the protocol's order."""
for _name, _part in PARTS.items():
    for _kind in _part.events:
        if _kind in _BY_EVENT:
            raise RuleSetPackageError(
                f"the rule sets {_BY_EVENT[_kind][0]!r} and {_name!r} both fold the event {_kind.__name__}"
            )
        _BY_EVENT[_kind] = (_name, _part)
    for _kind in _part.reacts_to:
        if _kind not in t.CORE_EVENTS:
            raise RuleSetPackageError(
                f"the rule set {_name!r} reacts to {_kind.__name__}, which is no event of the table's"
            )
        REACTIONS.setdefault(_kind, []).append((_name, _part))
for _kind in RULE_SET_EVENTS:
    if _kind not in _BY_EVENT:
        raise RuleSetPackageError(
            f"{_kind.__module__}.{_kind.__qualname__} is an event no rule set's table part folds (its RuleSet's "
            "table_part.events)"
        )
for _kind in RULE_SET_OPS:
    if _kind not in _BY_OP:
        raise RuleSetPackageError(
            f"{_kind.__module__}.{_kind.__qualname__} is a GM operation no rule set prepares (its RuleSet's ops)"
        )

EXTENDED: tuple[str, ...] = tuple(rs.name for rs in RULESETS.values() if rs.extended)
"""The rule sets whose checks can be extended checks."""


def part_of_event(ev: object) -> tuple[str, TablePart] | None:
    """The rule set (its tag and its table part) whose event ``ev`` is, or ``None`` for the table's own."""
    return _BY_EVENT.get(type(ev))


def ruleset_for(check: object) -> RuleSet[Any, Any] | None:
    """The rule set of a check, or ``None`` for anything that is not a check."""
    return _BY_CHECK.get(type(check))


def ruleset_of(check: object) -> RuleSet[Any, Any]:
    """The rule set of a check (a :class:`CheckError` ``unsupported_system`` for anything else)."""
    rs = _BY_CHECK.get(type(check))
    if rs is None:
        raise CheckError(ErrorCode.UNSUPPORTED_SYSTEM, f"{type(check).__name__} is not a check of a known rule set")
    return rs


def ruleset_of_result(result: object) -> RuleSet[Any, Any]:
    return _BY_RESULT[type(result)]


def ruleset_of_action(action: object) -> RuleSet[Any, Any]:
    return _BY_ACTION[type(action)]


def owns_op(op: object) -> RuleSet[Any, Any] | None:
    """The rule set whose GM operation ``op`` is, or ``None`` for the table's own operations."""
    return _BY_OP.get(type(op))


def redact_check(check: object) -> object:
    return ruleset_of(check).redact_check(check)


def redact_result(result: object) -> object:
    return ruleset_of_result(result).redact(result)


def redact_action(action: object) -> object:
    assert isinstance(action, Action)
    return ruleset_of_action(action).redact_action(action)


def condition_consequences(actor: str, scene: str | None, view: TableView) -> Iterable[object]:
    """What a new condition on ``actor`` sets off, under every rule set that counts conditions."""
    for rs in RULESETS.values():
        yield from rs.on_condition(actor, scene, view)


__all__ = [
    "RULESETS",
    "GM_FOLLOWUPS",
    "PARTS",
    "REACTIONS",
    "part_of_event",
    "EXTENDED",
    "ruleset_for",
    "ruleset_of",
    "ruleset_of_result",
    "ruleset_of_action",
    "owns_op",
    "redact_check",
    "redact_result",
    "redact_action",
    "condition_consequences",
]
