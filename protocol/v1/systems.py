"""The unions over the rule sets: every check, result, follow-up action and odds answer.

The five rule sets shipped here are written out by hand, so type checkers see them. A rule set shipped as a
package of its own names the module of its Structs under the entry point group ``verdict.protocol`` (the
entry point's name is its tag, ``check.system``); at run time the unions below hold its Structs too: the
module's one :class:`~protocol.v1.base.Check` and one :class:`~protocol.v1.base.Result` subclass, its
:class:`~protocol.v1.base.Action` subclasses (its follow-ups) and its one
:class:`~protocol.v1.odds.CheckOdds` subclass. Such a module may import ``protocol.v1.base`` and
``protocol.v1.odds``, nothing above them. The protocol imports nothing of the engine; a test holds these
unions and the engine's registry of rule sets in agreement.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from types import ModuleType
from typing import TYPE_CHECKING, Any, Union

from .base import Action, Check, Result
from .boons import BoonsCheck, BoonsResult
from .challenge import ChallengeCheck, ChallengeChoice, ChallengeRemoveComplication, ChallengeResult
from .facets import FacetsCheck, FacetsResult
from .feats import FeatsCheck, FeatsResult
from .flairs import (
    FlairsBargain,
    FlairsCheck,
    FlairsChoose,
    FlairsNameTrials,
    FlairsResult,
    FlairsReveal,
    FlairsSetLurking,
)
from .odds import ODDS_TYPES, BoonsOdds, ChallengeOdds, CheckOdds, FacetsOdds, FeatsOdds, FlairsOdds

PROTOCOL_ENTRY_POINTS = "verdict.protocol"
"""The entry point group naming the Structs' module of each rule set shipped as a package of its own."""


def _defined(module: ModuleType, base: type) -> list[type]:
    """The subclasses of ``base`` that ``module`` itself defines, in the order written."""
    return [
        v
        for v in vars(module).values()
        if isinstance(v, type) and issubclass(v, base) and v is not base and v.__module__ == module.__name__
    ]


def _one(module: ModuleType, base: type) -> Any:
    found = _defined(module, base)
    if len(found) != 1:
        raise TypeError(f"{module.__name__} defines {len(found)} {base.__name__} Structs, not one")
    return found[0]


def _added() -> tuple[tuple[str, ModuleType], ...]:
    """The rule sets installed as packages of their own: (tag, the module of their Structs), by tag."""
    out: list[tuple[str, ModuleType]] = []
    for ep in sorted(entry_points(group=PROTOCOL_ENTRY_POINTS), key=lambda e: e.name):
        module = ep.load()
        tag = _one(module, Check).__struct_config__.tag
        if tag != ep.name:
            raise TypeError(f"entry point {ep.name!r} names {module.__name__}, whose check is tagged {tag!r}")
        out.append((ep.name, module))
    return tuple(out)


ADDED: tuple[tuple[str, ModuleType], ...] = _added()
"""The rule sets installed beside the shipped ones, with the modules of their Structs."""

SYSTEMS: tuple[str, ...] = ("facets", "challenge", "flairs", "feats", "boons", *(tag for tag, _ in ADDED))
"""The rule sets' tags (``check.system``), in this order throughout the protocol: the shipped ones, then the
installed ones by tag."""

CHECK_TYPES: tuple[type, ...] = (
    FacetsCheck,
    ChallengeCheck,
    FlairsCheck,
    FeatsCheck,
    BoonsCheck,
    *(_one(m, Check) for _, m in ADDED),
)
RESULT_TYPES: tuple[type, ...] = (
    FacetsResult,
    ChallengeResult,
    FlairsResult,
    FeatsResult,
    BoonsResult,
    *(_one(m, Result) for _, m in ADDED),
)
ACTION_TYPES: tuple[type, ...] = (
    ChallengeChoice,
    ChallengeRemoveComplication,
    FlairsBargain,
    FlairsChoose,
    FlairsReveal,
    FlairsSetLurking,
    FlairsNameTrials,
    *(a for _, m in ADDED for a in _defined(m, Action)),
)
ALL_ODDS_TYPES: tuple[type, ...] = (*ODDS_TYPES, *(_one(m, CheckOdds) for _, m in ADDED))

if TYPE_CHECKING:
    AnyCheck = Union[FacetsCheck, ChallengeCheck, FlairsCheck, FeatsCheck, BoonsCheck]
    AnyResult = Union[FacetsResult, ChallengeResult, FlairsResult, FeatsResult, BoonsResult]
    AnyAction = Union[
        ChallengeChoice,
        ChallengeRemoveComplication,
        FlairsBargain,
        FlairsChoose,
        FlairsReveal,
        FlairsSetLurking,
        FlairsNameTrials,
    ]
    AnyOdds = Union[FacetsOdds, ChallengeOdds, FlairsOdds, FeatsOdds, BoonsOdds]
else:
    AnyCheck = Union[CHECK_TYPES]
    AnyResult = Union[RESULT_TYPES]
    AnyAction = Union[ACTION_TYPES]
    AnyOdds = Union[ALL_ODDS_TYPES]
