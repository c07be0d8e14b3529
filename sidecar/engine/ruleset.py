"""What a rule set provides: the contract every rule set of the engine implements.

A rule set lives in its own package, ``sidecar/engine/rulesets/<name>/``:

- ``rules.py``: the numbers as data (an ``XRules`` struct whose defaults are the rulings') and the pure
  functions that validate a check, roll its dice, read faces and describe a result;
- ``odds.py``: the exact odds of a check, before anyone rolls;
- ``consequences.py``: what a result and a follow-up do to the table, as the events they produce: pure
  functions of the roll and of the little table state they need (a :class:`TableView`);
- ``followups.py`` (where it has follow-ups): which are open on a result as it stands, the list a card draws
  its buttons from (:meth:`RuleSet.open_on`), and what each does to the result (:meth:`RuleSet.follow`);
- ``__init__.py``: ``RULESET``, the one :class:`RuleSet` instance that ties them together.

- ``card.py`` (optional): ``CARD``, a :class:`Card`: how the Foundry module draws it (tones, the dialog's
  fields, dice, the facts under a result, how its checks gather and join an extended check). Presentation
  only; it reaches the module through the generated vocabulary, so the module's scripts never change.

To add a rule set, as a package of its own (nothing in this repository changes; the test
``tests/test_added_ruleset.py`` and ``tests/browser/test_added_ruleset.py`` add ``omen`` this way):

1. its Structs in one module: one :class:`~protocol.v1.base.Check` and one :class:`~protocol.v1.base.Result`
   subclass tagged with its name, its follow-up :class:`~protocol.v1.base.Action` subclasses and one
   :class:`~protocol.v1.odds.CheckOdds` subclass; each check field described once, with
   ``Annotated[..., msgspec.Meta(title=..., description=...)]`` (the schema, ``verdict roll <name> --help``
   and the dialog all say it from there; bound each number with ``protocol.v1.limits``). The module imports
   only ``protocol.v1.base``, ``protocol.v1.limits`` and ``protocol.v1.odds``; it is named by the entry point ``<name> = <module>`` of the group
   ``verdict.protocol``;
2. its rules and its :class:`RuleSet` subclass: implement every ``@abstractmethod`` (``roll``, ``read``,
   ``odds``; ``validate``, ``sizes`` and ``describe`` come from ``module`` by default) and override a hook
   only where it has something to say (follow-ups and which are open, consequences, redaction, gathered
   checks, extended checks). The instance is named by the entry point ``<name> = <module>:RULESET`` of the
   group ``verdict.rulesets``; the package's ``__init__`` imports nothing of the engine (the protocol loads
   the Structs while it builds its unions). Its name and its Structs' tags are its own: a package that
   names a shipped rule set, shares a name with another package or reuses a tag is refused at start,
   named in the error, as is one that fails to import;
3. ``card.py`` beside the :class:`RuleSet`'s module, as above (without it the card is plain);
4. its rules page: the rules and the decisions taken;
5. install it beside the sidecar. The module's zip the sidecar serves (and ``verdict module --zip`` writes)
   carries a vocabulary written from the rule sets installed, so a GM needs no checkout; in a checkout,
   ``make schema`` writes ``protocol/schema/v1.json`` and the module's
   ``vtt-module/scripts/generated/vocabulary.mjs`` as well. ``lang/<language>.json`` may add its names
   (``VERDICT.System.<name>``, ``VERDICT.Outcome.<name>.<outcome>``, ``VERDICT.Field.<name>.<field>``,
   ``VERDICT.Fact.<key>``); until then a card names it by its tag, its outcomes by their names and its
   facts and fields by their titles.

Its part of the table's state, where it keeps one (``table.py`` in the shipped packages): its Structs'
module adds its GM operations (``Op``), its events (``Event``) and the fields it adds to each actor and scene
(``ActorPart``, ``ScenePart``), and its :class:`RuleSet` names them in :attr:`RuleSet.ops` and
:attr:`RuleSet.table_part` (:mod:`sidecar.engine.table_part`: what it folds, keeps, shows and hides); see
``docs/rule-sets.md`` and the test package ``fortune``.

What stays closed to such a package: refusal codes (``ErrorCode`` in ``protocol/v1/errors.py``: a new one is
a protocol change; a rule set refuses with the existing codes), and the fields an open follow-up carries on the
wire (``OpenFollowup`` in ``protocol/v1/messages.py``: a new follow-up offers its parameters through them, or
takes none the card must choose).

A rule set shipped here takes the same files in ``protocol/v1/<name>.py`` and
``sidecar/engine/rulesets/<name>/`` (with ``drawing.py``, how the tracker, tokens and sheet draw its part of
the table), its page in ``docs/rules/<name>.md``, and comes through the same two entry points, listed in
``pyproject.toml``; its name has its place in ``WIRE_ORDER["systems"]`` of ``protocol/v1/systems.py`` (the
protocol's order) and in the type checkers' unions written out there and in ``protocol/v1/odds.py``.

What a rule set's consequences add to the table (an actor's state, a facet, a complication, a condition) is
bounded (``protocol/v1/limits.py``): its ``consequences`` checks there is room with :mod:`sidecar.engine.bounds`
first, for what its rules may add when the sidecar rolls (whatever the dice, so that a refusal tells nothing of a
hidden result) and for what given faces do add. Its check's numbers carry bounds on their Struct (the protocol's
``Count``, ``Level``, ``Faces``, …) so that nothing it computes from them leaves a signed 64-bit integer.

The state layer (``sidecar/state/``) knows no rule set by name: it asks the registry for the rule set of
a check and applies the events this contract hands back. Errors are raised as :class:`CheckError` (or
its subclasses) with a stable ``code``; the table turns them into refusals, nothing applied.
"""

from __future__ import annotations

import functools
import importlib
import secrets
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, Generic, Literal, NamedTuple, Protocol, TypeVar

import msgspec

from protocol.v1 import table as t
from protocol.v1.base import Action, Check, Result
from protocol.v1.messages import OpenFollowup
from protocol.v1.odds import AnyOdds

from .dice import Dice
from .errors import CheckError, ErrorCode

if TYPE_CHECKING:
    from .drawing import Drawing
    from .table_part import OpView, TablePart

C = TypeVar("C", bound=Check)
R = TypeVar("R", bound=Result)


class TableView(Protocol):
    """The table's state as a rule set may read it (never change it): what consequences depend on."""

    @property
    def scene(self) -> str | None:
        """The active scene, if the GM activated one."""
        ...

    def actor_state(self, actor: str) -> t.ActorState:
        """The actor's running state (a blank one for an actor the table has not met)."""
        ...

    @property
    def extended(self) -> Mapping[str, t.ExtendedState]:
        """The extended checks the GM started, by id, as they now stand."""
        ...

    # what the table holds, for the bounds of what an action may add (:mod:`sidecar.engine.bounds`)
    @property
    def actors(self) -> Mapping[str, t.ActorState]:
        """The actors the table tracks (those with any state), by name."""
        ...

    @property
    def scenes(self) -> Mapping[str, t.SceneState]:
        """The scenes the table holds state in, by name."""
        ...

    @property
    def gathers(self) -> Mapping[str, t.GatherState]:
        """The gathered checks, by id."""
        ...

    def brought_by(self, user: str) -> int:
        """How many of the tracked actors a roll of the player ``user`` made tracked."""
        ...

    def part(self, name: str) -> Any:
        """What the rule set ``name`` keeps of its own on the table (its :attr:`TablePart.state`), to read."""
        ...


@dataclass(frozen=True, slots=True)
class RollContext:
    """What the table knows of a roll before it is read: who rolls, where, and the check id it will get."""

    check_id: str
    actor: str | None
    scene: str | None
    by_gm: bool


@dataclass(frozen=True, slots=True)
class Prepared:
    """A check as the table's state completes it, and the events that record what it took from the table
    (appended right after the roll, seen as the roll is)."""

    check: Any
    events: tuple[object, ...] = ()


@dataclass(frozen=True, slots=True)
class Shown:
    """A consequence seen by other eyes than the roll's: ``to`` everyone (``all``) or the GM alone (``gm``).
    A consequence given as a bare event is seen by whoever sees the roll."""

    event: object
    to: Literal["all", "gm"]


class Seat(NamedTuple):
    """Who looks at a result, as far as its follow-ups go: the GM (the Judge), the one who rolled the check,
    both (a GM's own roll), or neither (another player, an observer: nothing is theirs to follow up)."""

    gm: bool = False
    roller: bool = False


EXTENDED_NEXT: Literal["extended_next"] = "extended_next"
"""The open follow-up that is a roll, not an action: the next roll of the extended check (the GM's or the
roller's to make, as anyone who may roll)."""


Consequence = object
"""An event (seen as the roll is) or a :class:`Shown` event."""


@dataclass(frozen=True, slots=True)
class Card:
    """How the Foundry module draws this rule set: presentation only (no rule), written into the generated
    vocabulary (``sidecar/vocabulary.py``) so that the module names no rule set. A rule set without one is
    drawn plainly: its fields as the Struct declares them, its dice as faces, no facts, neutral tones.

    ``tones``: per outcome, the stylesheet's tone (``great``, ``good``, ``mixed``, ``bad``, ``dire``).
    ``dialog``: the roll dialog's fields in order, each ``(check field, options)``; the options are ``preset``
    (the dialog's starting value, else the wire default), ``min``, ``max``, ``title`` (else the field's own),
    ``when`` (``{other field: [values]}``: shown and sent only then), ``group`` (a nested Struct's fields, drawn
    as ``<field>_<name>``). ``kinds``: a selector of the dialog (never sent) choosing which fields show:
    ``{"name", "title", "options": {kind: [fields shown]}}``.
    ``dice``: how its dice are marked: ``read`` (the result field holding the face that was read),
    ``read_max_of`` (or: the highest of this list), ``removed`` (the faces cut), ``extremes`` (mark the
    highest and lowest faces), ``types`` and ``symbols`` (per-die result lists), ``colours`` with ``bought``
    (a colour per die by position, its class ``colour_class`` with ``{colour}`` for it, and the colours bought).
    ``facts``: the lines under the outcome, in order: ``key`` (the ``VERDICT.Fact.<key>`` label, ``title`` where
    the language has none; or
    ``[key if positive, key if negative]`` with ``sign``: the path whose sign chooses), ``text`` (a template:
    ``{path}``, ``{path|signed}``, ``{path|abs}``, ``{path|@Label}`` for ``VERDICT.Label.<value>`` of each
    value, or a list of templates: the first whose paths all hold a value), ``value_key`` (an i18n key
    template for the value instead), ``when`` (a path that must hold a truthy value; ``equals`` to compare),
    ``tone`` (a tone, or ``{"of": path, "map": {value: tone, "*": tone}}``, or ``{"sign": path}``: good when
    positive, bad when negative, ``zero`` (a tone, else none) at 0; ``"invert": true`` the other way), ``each`` (a list path:
    one line per item, paths relative to it).
    """

    tones: Mapping[str, str] = field(default_factory=dict)
    dialog: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    kinds: Mapping[str, Any] | None = None
    dice: Mapping[str, Any] = field(default_factory=dict)
    facts: tuple[Mapping[str, Any], ...] = ()
    gather: Mapping[str, Any] | None = None
    """How a request gathers several people's rolls into one check (the parts :meth:`RuleSet.parts` names):
    ``kind`` ``group`` (``field``: the check's list of participants, each with the ``part`` fields and a
    ``name``; ``flag``: a check field the request may set; ``results``: the result's list of each one's
    outcome) or ``sides`` (``when`` the dialog's values hold these, ``values`` set on the whole check;
    ``sides``: each side's part, drawn from the whole check minus ``drop``, or ``from`` a nested pool with
    ``zero`` fields zeroed; ``net``: the result field each side's roll shows). ``part_values``: set on every
    part's dialog."""
    extended: Mapping[str, Any] | None = None
    """Only where the rule set is extended: the roll into an extended check (``values`` of the dialog,
    ``fill``: check field from the extended check's field) and the fields the GM starts one with (``start``)."""
    spends: Mapping[str, Any] | None = None
    """Where a check spends one of the actor's own resources: the dialog shows, beside the odds, what the check
    as set costs and what the actor has. ``resource``: the actor's field holding it (``ActorState`` in
    ``protocol/v1/table.py``); ``cost``: the field of the check's odds answer holding what the check costs;
    ``title``: what the cost is called (``VERDICT.Spend.<name>`` where the language has it)."""


@dataclass(frozen=True, slots=True)
class DiceCount:
    """A check field the CLI reads from the number of faces given when it is left out (``verdict read <name>
    --dice 6,6,2`` without it): ``value`` of the check's other fields as given and the number of faces, or
    ``None`` to keep the field's default; ``note`` says so in ``--help``."""

    field: str
    value: Callable[[Mapping[str, Any], int], int | None]
    note: str


def new_id(prefix: str) -> str:
    """A fresh id for something a consequence creates (a condition, a complication, a facet, …)."""
    return f"{prefix}{secrets.token_hex(4)}"


class RuleSet(ABC, Generic[C, R]):
    """One rule set: its Structs, its default numbers, and what it does with a check.

    Subclasses set the class attributes and implement the abstract methods; the hooks below them have
    defaults that say "nothing to add".
    """

    name: str
    """The rule set's tag on the wire (``check.system``)."""
    check_type: type[C]
    result_type: type[R]
    followups: tuple[type[Action], ...] = ()
    """The follow-up actions this rule set answers (none: its checks have no follow-ups)."""
    gm_followups: tuple[type[Action], ...] = ()
    """Those of :attr:`followups` that are the GM's (the Judge's) to make, not the roller's."""
    ops: tuple[type, ...] = ()
    """GM operations of its own (its protocol module's ``Op`` subclasses), prepared by :meth:`prepare_op`."""
    table_part: TablePart | None = None
    """Its part of the table's state (:class:`~sidecar.engine.table_part.TablePart`): the events it folds,
    what it keeps, shows and hides. ``None``: it keeps nothing at the table."""
    dice_count: DiceCount | None = None
    """A check field the CLI reads from the number of faces given, where there is one."""
    extended: bool = False
    """Whether its checks can be extended checks (a threshold of progress over several rolls)."""
    rules: Any
    """The default numbers (the rule set's ``XRules`` struct)."""
    module: ModuleType
    """The rules module (``rulesets/<name>/rules.py``): the numbers as data and the pure functions."""

    # --- what every rule set must provide -------------------------------------------------------

    def validate(self, check: C, rules: Any = None) -> None:
        """Refuse a check that cannot be made as asked (:class:`CheckError` with a stable code).

        By default the rules module's ``validate(check, rules)``, under the default numbers."""
        self.module.validate(check, self.rules if rules is None else rules)

    def sizes(self, check: C, rules: Any = None) -> list[int]:
        """The sizes of the dice the check rolls, in the order ``read`` expects their faces.

        By default the rules module's ``sizes(check, rules)``, under the default numbers."""
        sizes: list[int] = self.module.sizes(check, self.rules if rules is None else rules)
        return sizes

    @abstractmethod
    def roll(self, check: C, rng: Dice) -> list[int]:
        """Roll the dice the check needs."""

    @abstractmethod
    def read(self, check: C, faces: Sequence[int]) -> R:
        """Read faces, rolled or supplied (physical dice, replays, tests)."""

    def describe(self, result: R) -> str:
        """The short human answer the CLI prints (by default the rules module's ``describe``)."""
        text: str = self.module.describe(result)
        return text

    @abstractmethod
    def odds(self, check: C, rules: Any) -> AnyOdds:
        """The exact odds of a check under ``rules``; validates the check first (same refusals as a roll)."""

    # --- hooks: override where the rule set has something to say --------------------------------

    def resolve(self, check: C, rng: Dice) -> R:
        """Roll and read (a rule set may fuse the two steps)."""
        return self.read(check, self.roll(check, rng))

    def follow(self, check: C, result: R, action: Action, rng: Dice) -> R:
        """Apply a follow-up to the (unredacted) result; the new result, the old one untouched."""
        raise CheckError(ErrorCode.FORBIDDEN_FOLLOWUP, f"{self.name} checks have no follow-ups")

    def prepare(self, check: C, ctx: RollContext, view: TableView) -> Prepared:
        """The check as the table completes it before the roll (and refusals the table's state decides)."""
        return Prepared(check)

    def consequences(self, roll: t.RollEvent, view: TableView) -> Iterable[Consequence]:
        """The events a roll produces for the table, after the roll event. May refuse the roll (raise)."""
        return ()

    def open_on(self, roll: t.RollEvent, view: TableView) -> list[OpenFollowup]:
        """The follow-ups open on ``roll.result`` as it now stands (``roll`` is the table's record of the check:
        its check, where and by whom it was rolled, its current result), whoever they are for; ``view`` is the
        table as it stands for what the result alone does not say (an extended check ended by a later roll).

        It must agree with :meth:`before_follow`, :meth:`follow` and :meth:`follow_consequences`: each one listed
        is accepted from the one whose it is (given the parameters it still needs, chosen from what it carries),
        and a follow-up not listed is one those refuse (or one that would change nothing)."""
        return []

    def open_to(self, roll: t.RollEvent, seat: Seat, view: TableView) -> list[OpenFollowup]:
        """The follow-ups open to ``seat``: those of :meth:`open_on` that are theirs to make. The GM's
        (:attr:`gm_followups`) are the GM's alone, marked ``gm``; the others the roller's alone; the next roll
        of an extended check both's. The table refuses anyone else (``forbidden``, ``not_your_check``)."""
        if not (seat.gm or seat.roller):
            return []
        opened = self.open_on(roll, view)
        if not opened:
            return opened
        gm_tags = self.gm_tags
        out: list[OpenFollowup] = []
        for o in opened:
            if o.action in gm_tags:
                if seat.gm:
                    out.append(o if o.gm else msgspec.structs.replace(o, gm=True))
            elif o.action == EXTENDED_NEXT or seat.roller:
                out.append(o if not o.gm else msgspec.structs.replace(o, gm=False))
        return out

    @functools.cached_property
    def card(self) -> Card:
        """How the module draws it: ``CARD`` of the ``card`` module beside the rule set's class (its package's
        ``card.py``), else a plain :class:`Card`."""
        module = sys.modules[type(self).__module__]
        package = module.__name__ if hasattr(module, "__path__") else module.__name__.rpartition(".")[0]
        try:
            found = importlib.import_module(f"{package}.card")
        except ModuleNotFoundError as e:
            if e.name != f"{package}.card":
                raise
            return Card()
        card: Card = found.CARD
        return card

    @functools.cached_property
    def drawing(self) -> Drawing | None:
        """How the module draws its part of the table (:mod:`sidecar.engine.drawing`): ``DRAWING`` of the
        ``drawing`` module beside the rule set's class, else ``None`` (nothing of its own to draw)."""
        module = sys.modules[type(self).__module__]
        package = module.__name__ if hasattr(module, "__path__") else module.__name__.rpartition(".")[0]
        try:
            found = importlib.import_module(f"{package}.drawing")
        except ModuleNotFoundError as e:
            if e.name != f"{package}.drawing":
                raise
            return None
        drawing: Drawing | None = getattr(found, "DRAWING", None)
        return drawing

    @functools.cached_property
    def offers(self) -> bool:
        """Whether any result of this rule set can have a follow-up open (a follow-up action, or a next roll of
        an extended check): without, :meth:`open_to` is always empty."""
        return bool(self.followups) or self.extended

    @functools.cached_property
    def gm_tags(self) -> frozenset[str]:
        """The tags of :attr:`gm_followups`."""
        return frozenset(str(a.__struct_config__.tag) for a in self.gm_followups)

    def before_follow(self, roll: t.RollEvent, action: Action) -> None:
        """Refuse a follow-up the table's record of the roll forbids (before the rules read it)."""

    def follow_consequences(
        self, roll: t.RollEvent, action: Action, result: R, view: TableView
    ) -> Iterable[Consequence]:
        """The events a follow-up produces for the table, after the follow-up event (``roll`` holds the result
        before it). May refuse the follow-up (raise)."""
        return ()

    def on_condition(self, actor: str, scene: str | None, view: TableView) -> Iterable[object]:
        """What a new condition on ``actor`` sets off under this rule set (events after the condition)."""
        return ()

    def redact_check(self, check: C) -> C:
        """The check as a player may see it."""
        return check

    def redact(self, result: R) -> R:
        """The result as a player may see it."""
        return result

    def redact_action(self, action: Action) -> Action:
        """A follow-up action as a player may see it."""
        return action

    def parts(self, check: C) -> list[tuple[str, Any]] | None:
        """For a check several people roll: ``[(part name, the check that part rolls), …]`` in dice order,
        the faces of the parts concatenated being the faces the whole check reads. ``None``: not gathered."""
        return None

    def fill_extended(self, check: C, x: t.ExtendedState) -> C:
        """The roll as the extended check ``x`` has it (only where :attr:`extended`)."""
        raise CheckError(ErrorCode.INVALID_CHECK, f"{self.name} checks are never extended")

    def validate_extended(self, start: t.ExtendedStart) -> None:
        """Refuse an extended check whose rolls could never be made (only where :attr:`extended`): the GM
        hears it when starting it, not on every roll after."""

    def prepare_op(self, op: Any, view: OpView) -> list[object]:
        """The events of one of :attr:`ops`, a GM operation of this rule set's own: each a bare event (everyone
        hears it) or a :class:`~sidecar.engine.table_part.Told` one. Checks first that the table has room for
        what it adds (:mod:`sidecar.engine.bounds`); raises :class:`CheckError` to refuse it, nothing applied."""
        raise CheckError(ErrorCode.UNKNOWN_OP, f"{self.name} has no GM operation {type(op).__name__}")

    def op_reads(self, op: Any, view: OpView) -> tuple[str | None, ...]:
        """The players whose view of the table (:meth:`OpView.seen_by`) preparing ``op`` reads: the table puts
        their history in hand first when it does not hold their view."""
        return ()

    def private_refusal(self, check: C) -> str | None:
        """What a `self` roll of ``check`` may not be, as it moves something at the table (a roll that
        addresses an open item, say), for the refusal to name; ``None``: a `self` roll of it is a roll like any."""
        return None
