"""The unions over the rule sets: every check, result, follow-up action and odds answer.

Every rule set names the module of its Structs under the entry point group ``verdict.protocol`` (the entry
point's name is its tag, ``check.system``): the five shipped here through Verdict's own distribution
(``verdict-vtt``, in the protocol's order, ``WIRE_ORDER["systems"]``), any other through the package
that installs it. The unions below hold each one's Structs: the
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
from importlib.metadata import EntryPoint, PackageNotFoundError, distribution, distributions, entry_points
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Union

from . import odds as _odds
from .base import Action, ActorPart, Check, Event, Op, Result, ScenePart
from .odds import CheckOdds

PROTOCOL_ENTRY_POINTS = "verdict.protocol"
"""The entry point group naming each rule set's Structs' module (Verdict's own, and each installed package's)."""


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


VERDICT_DISTRIBUTION = "verdict-vtt"
"""The distribution whose entry points are the rule sets shipped with Verdict."""


WIRE_ORDER: dict[str, tuple[str, ...]] = {
    "systems": ("facets", "challenge", "flairs", "feats", "boons"),
    "actor": ("strain", "conditions", "taken_down", "wounds", "scratches", "facets", "wyrd", "game_changers"),
    "scene": ("complications", "facets", "lurking"),
}
"""The order the protocol has had since before the rule sets came through entry points (which an installer
lists by name): of the shipped rule sets in its unions, schema and vocabulary, and of the snapshot's actor and
scene fields. It orders, it loads nothing: what loads is what Verdict's metadata lists, those named here in
this order, any other after them (a shipped rule set by name, then the installed ones by tag; the table's
fields, then each rule set's, in the protocol's order)."""


class RuleSetPackageError(ImportError):
    """An installed rule set package that cannot be used as it stands: which one, and why."""


def _is_verdict(ep: EntryPoint) -> bool:
    return ep.dist is not None and _normal(ep.dist.name) == _normal(VERDICT_DISTRIBUTION)


def _normal(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def installed_by(ep: EntryPoint) -> str:
    """The distribution and the entry point, as an error names them: ``verdict-omen 0.1 (verdict.protocol:
    omen = verdict_omen.protocol)``."""
    dist = ep.dist
    who = f"{dist.name} {dist.version}" if dist is not None else "an installed package"
    return f"{who} ({ep.group}: {ep.name} = {ep.value})"


def _where(ep: EntryPoint) -> str:
    """Where an entry point's metadata lies, when its distribution says (a stale ``*.egg-info`` is found so)."""
    path = getattr(ep.dist, "_path", None)
    return f" (its metadata: {path})" if path is not None else ""


def _verdict_entry_points(group: str) -> list[EntryPoint]:
    """Verdict's own entry points of ``group``: those of the first of
    its distributions on the path that lists any (a stale ``*.egg-info`` left in a checkout's root, found
    first, lists none; reading only one keeps a second copy of the metadata from doubling them)."""
    for dist in distributions():
        if _normal(dist.metadata["Name"] or "") == _normal(VERDICT_DISTRIBUTION):
            eps = list(dist.entry_points.select(group=group))
            if eps:
                return eps
    return []


def shipped_names(group: str) -> tuple[str, ...]:
    """The names Verdict's own distribution gives in ``group``; none
    (a checkout whose metadata predates them) raises :class:`RuleSetPackageError` saying how to install it."""
    names = tuple(dict.fromkeys(ep.name for ep in _verdict_entry_points(group)))
    if not names:
        try:
            where = f" ({Path(distribution(VERDICT_DISTRIBUTION)._path).resolve()})"  # type: ignore[attr-defined]
        except (PackageNotFoundError, AttributeError):
            where = " (none is installed)"
        raise RuleSetPackageError(
            f"the metadata of {VERDICT_DISTRIBUTION}{where} names none of Verdict's own rule sets in the entry "
            f"point group {group}: install the checkout (`make`, or `pip install -e .` in it) so they are listed"
        )
    return names


def load_installed(group: str) -> list[tuple[EntryPoint, Any]]:
    """The entry points of ``group``, each loaded: Verdict's own first in the protocol's order
    (``WIRE_ORDER["systems"]``), then the others by name. A shipped name another distribution gives, a name
    two distributions give, or an entry point that fails to load raises :class:`RuleSetPackageError`."""
    shipped = shipped_names(group)
    rank = {name: i for i, name in enumerate(WIRE_ORDER["systems"])}
    ours = sorted(_verdict_entry_points(group), key=lambda e: (rank.get(e.name, len(rank)), e.name))
    others = (ep for ep in entry_points(group=group) if not _is_verdict(ep))
    theirs = sorted(others, key=lambda e: (e.name, installed_by(e)))
    for ep in theirs:
        if ep.name in shipped:
            raise RuleSetPackageError(
                f"{installed_by(ep)}{_where(ep)} names the rule set {ep.name!r}, which is shipped with Verdict: a "
                "package adds a rule set under a name of its own and cannot replace one"
            )
    for ep, after in zip(theirs, theirs[1:]):
        if ep.name == after.name:
            raise RuleSetPackageError(
                f"two packages install the rule set {ep.name!r}: {installed_by(ep)} and {installed_by(after)}; "
                "uninstall one"
            )
    out = []
    for ep in (*ours, *theirs):
        try:
            out.append((ep, ep.load()))
        except Exception as exc:  # whatever its import raises, the package is the one to name
            raise RuleSetPackageError(
                f"{installed_by(ep)} cannot be loaded: {type(exc).__name__}: {exc}".rstrip(": ")
            ) from exc
    return out


def _modules() -> tuple[tuple[str, ModuleType], ...]:
    """Every rule set's Structs' module by tag, in the protocol's order (the shipped, then the added by tag)."""
    out: list[tuple[str, ModuleType]] = []
    for ep, module in load_installed(PROTOCOL_ENTRY_POINTS):
        if not isinstance(module, ModuleType):
            raise RuleSetPackageError(f"{installed_by(ep)} names {module!r}, not a module")
        try:
            tag = _one(module, Check).__struct_config__.tag
        except TypeError as exc:
            raise RuleSetPackageError(f"{installed_by(ep)}: {exc}") from None
        if tag != ep.name:
            raise RuleSetPackageError(f"{installed_by(ep)} names {module.__name__}, whose check is tagged {tag!r}")
        out.append((ep.name, module))
        if not _is_verdict(ep):
            ADDED_BY[ep.name] = installed_by(ep)
    return tuple(out)


def _odds_of(tag: str, module: ModuleType) -> Any:
    """A rule set's odds answer: the one its module defines, or for a shipped one the one ``odds.py`` writes
    under its tag (the shipped rule sets' odds are written there, beside the distributions they share)."""
    if _defined(module, CheckOdds) or tag not in SHIPPED:
        try:
            return _one(module, CheckOdds)
        except TypeError as exc:
            raise RuleSetPackageError(f"{ADDED_BY.get(tag, tag)}: {exc}") from None
    kinds = [k for k in _odds.ODDS_TYPES if k.__struct_config__.tag == tag]  # type: ignore[attr-defined]
    if len(kinds) != 1:
        raise TypeError(f"protocol/v1/odds.py writes {len(kinds)} odds answers tagged {tag!r}, not one")
    return kinds[0]


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
MODULES: tuple[tuple[str, ModuleType], ...] = _modules()
"""Every rule set's Structs' module by tag, in the protocol's order: where its Structs are found."""
SHIPPED: tuple[str, ...] = tuple(tag for tag, _ in MODULES if tag not in ADDED_BY)
"""The rule sets shipped with Verdict (its own distribution's entry points), in the protocol's order."""
ADDED: tuple[tuple[str, ModuleType], ...] = tuple((tag, m) for tag, m in MODULES if tag in ADDED_BY)
"""The rule sets installed beside the shipped ones, with the modules of their Structs."""

SYSTEMS: tuple[str, ...] = tuple(tag for tag, _ in MODULES)
"""The rule sets' tags (``check.system``), in this order throughout the protocol: the shipped ones, then the
installed ones by tag."""

CHECK_TYPES: tuple[type, ...] = tuple(_one(m, Check) for _, m in MODULES)
RESULT_TYPES: tuple[type, ...] = tuple(_one(m, Result) for _, m in MODULES)
ACTION_TYPES: tuple[type, ...] = tuple(a for _, m in MODULES for a in _defined(m, Action))
ALL_ODDS_TYPES: tuple[type, ...] = tuple(_odds_of(tag, m) for tag, m in MODULES)

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
    # The unions are assembled at run time from the entry points. A type checker sees the shipped rule sets'
    # Structs here because the bases declare no fields (a check's ``dice``, a result's ``outcome`` and ``dice``
    # are each rule set's own, typed its way) and callers read them on the union; nothing is imported at run time.
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
    from .odds import AnyOdds as AnyOdds

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
else:
    AnyCheck = Union[CHECK_TYPES]
    AnyResult = Union[RESULT_TYPES]
    AnyAction = Union[ACTION_TYPES]
    AnyOdds = Union[ALL_ODDS_TYPES]
