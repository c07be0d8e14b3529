"""How the Foundry module draws a rule set's part of the table's state: the drawing vocabulary.

A rule set that keeps state of its own on each actor and each scene (its ``ActorPart`` and ``ScenePart``,
flat in the client's snapshot) says here, field by field, how the tracker, the tokens and the actor sheet's
section draw it; :mod:`sidecar.vocabulary` writes it into the module's generated vocabulary and the module
draws from it alone, naming no rule set and no field of one. Presentation only: no rule is decided here.

- :class:`Number` — a whole number of an actor (strain, Wyrd Points): a badge in the tracker's actor row, a
  row of the sheet, a marker on the token;
- :class:`Flag` — a yes/no of an actor (taken down): the same three places;
- :class:`Items` — a list of entries on the actor or the scene (complications, facets, lurking trials):
  a section of the tracker with a row per entry (its text, badges, hidden mark, GM controls) and a form to
  add one, and a row of the sheet for an actor's;
- :class:`Control` — a GM control: the op it sends (by tag) with each argument bound from the row it is
  drawn on (the actor, the scene, a field of the entry, a value the GM typed, a constant);
- :class:`Marker` — what a token shows: a status icon while the value is set, non-zero or non-empty, or a
  numeric badge;
- :class:`DieColour` — how a card paints a die of each type or colour.

Every word is a :class:`Label`: an i18n key with its English text, so a rule set installed as a package of
its own needs no line in the module's ``lang/en.json`` (a language file may still translate the key).
"""

from __future__ import annotations

from typing import Literal

import msgspec


class Label(msgspec.Struct, frozen=True, gc=False):
    """A word the module shows: the i18n key it looks up, and the English text used where no language file
    has the key."""

    key: str
    text: str


class Option(msgspec.Struct, frozen=True, gc=False):
    """One value a choice offers, with its label."""

    value: str
    label: Label


Source = Literal["actor", "scene", "item", "input", "value", "owner_actor", "owner_scene"]
"""Where an argument of a control's op comes from:

- ``actor``: the actor of the row (an actor's number, flag or entry); ``scene``: the scene the tracker shows
  (the op is not sent while none is shown, unless the argument may be null);
- ``item``: a field of the entry (``field``, its id field when empty);
- ``input``: the value the GM entered in the control's (or the form's) input named ``field``;
- ``value``: the constant ``value``;
- ``owner_actor`` / ``owner_scene``: from the form's ``owner`` input: the actor chosen, or the scene shown
  when the GM chose the scene (each null in the other case)."""


class Arg(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    """One argument of a control's op, bound from the row the control is drawn on."""

    name: str
    """The op's field."""
    source: Source
    field: str = ""
    value: str | int | bool | None = None
    nullable: bool = False
    """The argument may be sent as null (``scene`` with no scene shown)."""


InputKind = Literal["text", "number", "flag", "choice", "choices", "owner"]
"""How the GM enters a value: a line of text (required, trimmed), a whole number (within bounds), a tick box,
one of ``options`` (a select), some of ``options`` (tick boxes, at least one), or whom the entry is written
on (the scene shown, or an actor: the table's and the world's)."""


class Input(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    """A value the GM enters beside a control or in a form."""

    name: str
    kind: InputKind
    label: Label
    """Its accessible name (a tick box's text)."""
    placeholder: Label | None = None
    default: str | int | bool | None = None
    prefill: str = ""
    """The entry's field whose value it starts with (the default when the entry has none)."""
    min: int | None = None
    max: int | None = None
    options: tuple[Option, ...] = ()
    keep: bool = False
    """Kept as it is once sent (a choice of kind or owner), where a typed text is cleared for the next."""


class Control(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    """A GM control on a row: the op it sends, each argument bound from the row."""

    action: str
    """Its name on the page (``data-action``): what a test or a user's macro finds it by."""
    op: str
    """The op's tag."""
    label: Label
    icon: str
    """A Font Awesome icon class (``fa-solid fa-trash``)."""
    args: tuple[Arg, ...] = ()
    inputs: tuple[Input, ...] = ()
    """Values entered beside it (a CL to address a complication with)."""
    edit: str = ""
    """An edit in place of this field of the entry: the control opens a text field holding it, Enter or save
    sends it (the argument bound from the input named ``edit``)."""
    edit_label: Label | None = None
    """The edit field's accessible name (the entry's text after it)."""
    when: str = ""
    """Shown only while this field of the row is set (true, non-zero, non-empty)."""
    unless: str = ""
    """Shown only while this field of the row is not set."""
    again: Label | None = None
    """Its label once the entry's ``again_when`` field is set (address again)."""
    again_when: str = ""
    choices: bool = False
    """Shown only where the world's checks choose among this list's entries (its card's ``choices``)."""
    labelled: bool = False
    """Drawn with its label written out, not as an icon with a tooltip."""


class Marker(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    """What a token shows of a value: a status effect while it is set, or a numeric badge."""

    kind: Literal["status", "badge"]
    label: Label
    """The status's name (the token HUD's and the combat tracker's); a badge's word before its value."""
    id: str = ""
    """The status's id (``verdict-wound``); a badge's name on the token."""
    icon: str = ""
    """A status's image: a file of the module's ``icons/`` folder, or a path of its own (with a ``/``)."""
    defeated: bool = False
    """The status the combat tracker marks defeated (Foundry's ``DEFEATED``, where the world has it)."""
    colour: str = "#ffd27a"
    """A badge's colour."""


Tone = Literal["good", "bad", "dire", "mixed", "great", "neutral", "resource", ""]
"""A badge's tone (the stylesheet's: ``resource`` for a stock of points)."""


class Number(msgspec.Struct, frozen=True, gc=False, omit_defaults=True, tag="number"):
    """A whole number of an actor's state."""

    field: str
    label: Label
    """On the sheet."""
    badge: Label | None = None
    """In the tracker's actor row (value after it), while non-zero; none: not in the tracker."""
    tone: Tone = ""
    data: bool = False
    """The tracker's badge carries the value as ``data-<field>``."""
    min: int | None = None
    max: int | None = None
    marker: Marker | None = None
    controls: tuple[Control, ...] = ()


class Flag(msgspec.Struct, frozen=True, gc=False, omit_defaults=True, tag="flag"):
    """A yes/no of an actor's state; drawn only while set."""

    field: str
    label: Label
    badge: Label | None = None
    tone: Tone = ""
    marker: Marker | None = None
    controls: tuple[Control, ...] = ()


class Badge(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    """A field of an entry shown as a badge on its row (where it is set)."""

    field: str
    label: Label | None = None
    """Written before the value (``CL 3``)."""
    values: tuple[Option, ...] = ()
    """The value's own label (an origin, a nature); the value itself where none."""
    tones: dict[str, str] = {}
    """The value's tone (the stylesheet's ``tone-<tone>``)."""
    css: str = ""
    """The badge's own class (``count``)."""
    data: bool = False
    """The row carries the value as ``data-<field>``."""
    lead: bool = False
    """Drawn before the text."""


class Form(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    """The GM's form to add an entry: its inputs and the control that sends them."""

    css: str
    """Its class on the page (``verdict-<css>``)."""
    label: Label
    """The group's accessible name."""
    control: Control
    inputs: tuple[Input, ...] = ()


class Items(msgspec.Struct, frozen=True, gc=False, omit_defaults=True, tag="items"):
    """A list of entries of the actor's or the scene's state (both: one section holds both kinds)."""

    field: str
    """The list's name in the snapshot's actor or scene state."""
    name: str
    """One entry's word on the page: its rows are ``verdict-<name>``."""
    section: str
    """The tracker's section's word: ``verdict-<section>``."""
    heading: Label
    """The tracker's section and the sheet's row."""
    on: tuple[Literal["actor", "scene"], ...] = ("scene",)
    text: str = "text"
    """The entry's field that is its text."""
    id: str = "id"
    """The entry's field that is its id (what the controls name)."""
    text_values: tuple[Option, ...] = ()
    """The labels of the text's values, where the text is one of them (or a list of them)."""
    secret: Label | None = None
    """What is shown where the text is not the viewer's to see (null in a player's snapshot)."""
    hidden: str = ""
    """The entry's field that marks it hidden from players (the GM sees it marked)."""
    hidden_badge: Label | None = None
    badges: tuple[Badge, ...] = ()
    owner: Label | None = None
    """Whose the entry is, as a badge: this label for the scene's, the actor's name for an actor's."""
    actor: str = ""
    """The entry's field naming an actor (shown by name after the text)."""
    controls: tuple[Control, ...] = ()
    add: Form | None = None
    every_world: bool = False
    """Drawn in every world (epic failures of any rule set's checks may add one), not only in a world of the
    rule set."""
    sheet: bool = True
    """An actor's entries are a row of the sheet."""


Part = Number | Flag | Items


class DieColour(msgspec.Struct, frozen=True, gc=False):
    """How a die of one type (or one colour) is painted on a card: its face's background and its text's colour
    (``#rrggbb``)."""

    background: str
    colour: str


class Drawing(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    """How the module draws a rule set's part of the table's state."""

    parts: tuple[Part, ...] = ()
    """Its numbers and flags (an actor's), and its lists (an actor's, a scene's or both), in drawing order."""
    conditions: bool = False
    """The rule set's results add conditions (the table's own): a world of it shows them on the sheet."""
    marks: tuple[str, ...] = ()
    """The fields of its result that change what the tokens mark: a card whose result sets one offers the GM
    its "apply" (the tokens brought in line with the table)."""
    dice: dict[str, DieColour] = {}
    """How each die type (or each die colour) of its checks is painted, for rule sets whose dice come in types
    or colours."""

    def fields(self) -> list[str]:
        """Every state field it draws, once each."""
        out: list[str] = []
        for part in self.parts:
            if part.field not in out:
                out.append(part.field)
        return out
