"""The unions over the rule sets: every check, result, follow-up action and odds answer.

The five rule sets shipped here are written out by hand, so type checkers see them. A rule set shipped as a
package of its own names the module of its Structs under the entry point group ``verdict.protocol`` (the
entry point's name is its tag, ``check.system``); at run time the unions below hold its Structs too: the
module's one :class:`~protocol.v1.base.Check` and one :class:`~protocol.v1.base.Result` subclass, its
:class:`~protocol.v1.base.Action` subclasses (its follow-ups) and its one
:class:`~protocol.v1.odds.CheckOdds` subclass; and for its table state its :class:`~protocol.v1.base.Op` and
:class:`~protocol.v1.base.Event` subclasses and at most one :class:`~protocol.v1.base.ActorPart` and one
:class:`~protocol.v1.base.ScenePart` (collected from every rule set's module, shipped or added, into
:data:`OP_TYPES`, :data:`EVENT_TYPES`, :data:`ACTOR_PARTS`, :data:`SCENE_PARTS`; ``protocol/v1/table.py``
assembles the table's unions and flat states from them). Such a module may import ``protocol.v1.base``,
``protocol.v1.limits`` (the bounds of its fields) and ``protocol.v1.odds``, nothing above them. The protocol imports nothing of the engine; a test holds these
unions and the engine's registry of rule sets in agreement.

An installed package that cannot be used as it stands stops the sidecar at start with a
:class:`RuleSetPackageError` naming the distribution and its entry point: one that fails to import, one
that names a rule set shipped here (a package adds rule sets, it never replaces one), two that name the
same rule set, Structs whose tag another already uses, and an actor's or a scene's field another rule set adds. Nothing is skipped silently: a table's stored
checks of that rule set would no longer read.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType
from typing import TYPE_CHECKING, Any, Union

from . import boons, challenge, facets, feats, flairs
from .base import Action, ActorPart, Check, Event, Op, Result, ScenePart
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


def _at_most_one(module: ModuleType, base: type) -> Any:
    found = _defined(module, base)
    if len(found) > 1:
        raise TypeError(f"{module.__name__} defines {len(found)} {base.__name__} Structs, not one at most")
    return found[0] if found else None


SHIPPED: tuple[str, ...] = ("facets", "challenge", "flairs", "feats", "boons")
"""The rule sets shipped here, in the protocol's order."""


class RuleSetPackageError(ImportError):
    """An installed rule set package that cannot be used as it stands: which one, and why."""


def installed_by(ep: EntryPoint) -> str:
    """The distribution and the entry point, as an error names them: ``verdict-omen 0.1 (verdict.protocol:
    omen = verdict_omen.protocol)``."""
    dist = ep.dist
    who = f"{dist.name} {dist.version}" if dist is not None else "an installed package"
    return f"{who} ({ep.group}: {ep.name} = {ep.value})"


def load_installed(group: str) -> list[tuple[EntryPoint, Any]]:
    """The entry points of ``group`` by name, each loaded: a shipped name, a name two distributions give,
    or an entry point that fails to load raises :class:`RuleSetPackageError`."""
    found = sorted(entry_points(group=group), key=lambda e: (e.name, installed_by(e)))
    for ep, after in zip(found, found[1:]):
        if ep.name == after.name:
            raise RuleSetPackageError(
                f"two packages install the rule set {ep.name!r}: {installed_by(ep)} and {installed_by(after)}; "
                "uninstall one"
            )
    out = []
    for ep in found:
        if ep.name in SHIPPED:
            raise RuleSetPackageError(
                f"{installed_by(ep)} names the rule set {ep.name!r}, which is shipped with Verdict: a package adds "
                "a rule set under a name of its own and cannot replace one"
            )
        try:
            out.append((ep, ep.load()))
        except Exception as exc:  # whatever its import raises, the package is the one to name
            raise RuleSetPackageError(
                f"{installed_by(ep)} cannot be loaded: {type(exc).__name__}: {exc}".rstrip(": ")
            ) from exc
    return out


def _added() -> tuple[tuple[str, ModuleType], ...]:
    """The rule sets installed as packages of their own: (tag, the module of their Structs), by tag."""
    out: list[tuple[str, ModuleType]] = []
    for ep, module in load_installed(PROTOCOL_ENTRY_POINTS):
        try:
            tag = _one(module, Check).__struct_config__.tag
        except TypeError as exc:
            raise RuleSetPackageError(f"{installed_by(ep)}: {exc}") from None
        if tag != ep.name:
            raise RuleSetPackageError(f"{installed_by(ep)} names {module.__name__}, whose check is tagged {tag!r}")
        out.append((ep.name, module))
        ADDED_BY[ep.name] = installed_by(ep)
    return tuple(out)


def tags_unique(kinds: Iterable[type], what: str) -> None:
    """Each Struct of one union under a tag of its own (msgspec refuses the union otherwise, naming no package)."""
    seen: dict[object, type] = {}
    for kind in kinds:
        tag = kind.__struct_config__.tag  # type: ignore[attr-defined]
        if tag in seen:
            first = seen[tag]
            raise RuleSetPackageError(
                f"{kind.__module__}.{kind.__qualname__} is tagged {tag!r}, the tag of the {what} "
                f"{first.__module__}.{first.__qualname__}: an installed rule set's Structs need tags of their own"
            )
        seen[tag] = kind


ADDED_BY: dict[str, str] = {}
"""Who installed each added rule set's Structs (:func:`installed_by`), for the errors that name it."""
ADDED: tuple[tuple[str, ModuleType], ...] = _added()
"""The rule sets installed beside the shipped ones, with the modules of their Structs."""

SYSTEMS: tuple[str, ...] = (*SHIPPED, *(tag for tag, _ in ADDED))
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

MODULES: tuple[tuple[str, ModuleType], ...] = (
    ("facets", facets),
    ("challenge", challenge),
    ("flairs", flairs),
    ("feats", feats),
    ("boons", boons),
    *ADDED,
)
"""Every rule set's Structs' module by tag, in the protocol's order: where its table state's Structs are found."""

OP_TYPES: tuple[type, ...] = tuple(o for _, m in MODULES for o in _defined(m, Op))
"""The rule sets' GM operations (the table's own are in ``protocol/v1/table.py``)."""
EVENT_TYPES: tuple[type, ...] = tuple(e for _, m in MODULES for e in _defined(m, Event))
"""The rule sets' events (the table's own are in ``protocol/v1/table.py``)."""


def _parts(base: type) -> tuple[tuple[str, type], ...]:
    out = []
    for tag, module in MODULES:
        try:
            part = _at_most_one(module, base)
        except TypeError as exc:
            raise RuleSetPackageError(f"{ADDED_BY.get(tag, tag)}: {exc}") from None
        if part is not None:
            out.append((tag, part))
    return tuple(out)


ACTOR_PARTS: tuple[tuple[str, type], ...] = _parts(ActorPart)
"""Each rule set's :class:`~protocol.v1.base.ActorPart` (the fields it adds to every actor), by tag."""
SCENE_PARTS: tuple[tuple[str, type], ...] = _parts(ScenePart)
"""Each rule set's :class:`~protocol.v1.base.ScenePart` (the fields it adds to every scene), by tag."""

WIRE_ORDER: dict[str, tuple[str, ...]] = {
    "actor": ("strain", "conditions", "taken_down", "wounds", "scratches", "facets", "wyrd", "game_changers"),
    "scene": ("complications", "facets", "lurking"),
}
"""The order the snapshot's actor and scene fields have on the wire since before the rule sets added their own:
the shipped ones in it, any other after them (the table's, then each rule set's, in the protocol's order)."""


def _fields_unique(parts: tuple[tuple[str, type], ...], what: str) -> None:
    """No two rule sets add a field of one name to an actor (or a scene): the snapshot's state is flat."""
    owner: dict[str, str] = {}
    for tag, part in parts:
        for name in part.__struct_fields__:  # type: ignore[attr-defined]
            if name in owner:
                raise RuleSetPackageError(
                    f"{ADDED_BY.get(tag, tag)} adds the field {name!r} to every {what}, which the rule set "
                    f"{owner[name]!r} adds already: a rule set's fields need names of their own"
                )
            owner[name] = tag


for _kinds, _what in (
    (CHECK_TYPES, "check"),
    (RESULT_TYPES, "result"),
    (ACTION_TYPES, "follow-up"),
    (ALL_ODDS_TYPES, "odds"),
):
    tags_unique(_kinds, _what)
_fields_unique(ACTOR_PARTS, "actor")
_fields_unique(SCENE_PARTS, "scene")

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
