"""The bounds of what a request may carry and of what a table may hold, declared once.

Two kinds, both part of the wire contract:

- **What one request carries** (the Structs' ``msgspec.Meta``: ``ge``/``le`` on numbers, ``max_length`` on
  names, labels, texts and lists). A number is bounded by what the rules can mean, with room to spare: the rule
  sets' own refusals (``too_many_dice``, ``invalid_cl``, ``negative_dice``, …) still answer within these bounds,
  which exist so that no sum the rules make of them (a Feat level, a total, a pool) leaves a signed 64-bit
  integer. A value beyond one is refused at decoding (``invalid_message`` for a number, ``text_too_long`` for a
  text), naming the field and the bound.
- **What a table holds** (the counts below): what requesters' actions may add to the state every ``welcome``
  carries. An action that would add one item too many is refused whole, before anything is recorded, with a
  ``too_many_*`` code naming the bound (a roll whose rules *could* add one — a `facets` roll may triumph, a
  `challenge` roll may fail epically — is refused at the bound whatever its dice, so the refusal tells nothing
  of them). A running value (Wyrd, strain, harm, game changers, an extended check's attempts) that an action
  would carry past its bound is refused with ``over_limit``.

With every bound held, a table's snapshot is bounded too: :data:`SNAPSHOT_BYTES` (what a ``welcome`` or a
``state`` reply carries, in the worst case of every text at its longest and every character escaped).
"""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

# --- one request ------------------------------------------------------------------------------------------------
NAME_CHARS = 128
"""Longest name a request gives: an actor, a target, a scene, a participant, an extended check's name and time
unit (Foundry's ids are 16 characters)."""
LABEL_CHARS = 1024
"""Longest label of a roll (what the card shows above it)."""
NOTE_CHARS = 1024
"""Longest text the GM writes into the state: a complication's, a condition's, a facet's name."""
COUNT = 1000
"""Largest count a check or an operation names, either sign: dice, ranks, edges, cuts, lurking trials, 8s bought,
an extended check's threshold and attempt limit, wounds healed, actions undone."""
LEVEL = 1000
"""Largest level or modifier, either sign: a Feat level and what makes it, a Challenge Level and a modifier."""
FACE = 1000
"""Largest face a supplied die may show (the rules then check it against the die)."""
ITEMS = 100
"""Most items in a list a request gives: supplied faces, assistants' and participants' ranks, a group's members,
dice bought, trials named."""
RUNNING = 10 * COUNT
"""Largest running count a check carries from the table (an extended check's progress and attempts so far)."""

# --- what one actor holds -----------------------------------------------------------------------------------------
WYRD = 1000
"""Wyrd Points an actor holds at most; a grant is at most this much, either sign."""
STRAIN = 1000
"""Strain an actor carries at most (the GM sets it at most this high)."""
HARM = 1000
"""Wounds, and scratches, an actor carries at most."""
GAME_CHANGERS = 1000
"""Game changers an actor holds at most."""
CONDITIONS_PER_ACTOR = 16
"""Conditions one actor carries at most (a fourth takes a hero down; the rest is the GM's to clear)."""

# --- what one table holds -----------------------------------------------------------------------------------------
ACTORS = 200
"""Actors a table tracks at most (those with any state: strain, harm, conditions, facets, Wyrd)."""
SCENES = 64
"""Scenes a table holds state in at most (complications, facets, lurking trials)."""
FACETS_PER_HOLDER = 32
"""Facets on one actor, or in one scene, at most."""
FACETS = 256
"""Facets on a table at most, actors' and scenes' together."""
COMPLICATIONS_PER_SCENE = 64
"""Open complications in one scene at most."""
COMPLICATIONS = 256
"""Open complications on a table at most."""
CONDITIONS = 256
"""Conditions on a table at most, every actor's together."""
LURKING = 64
"""Sets of lurking trials waiting on a table at most."""
EXTENDED = 64
"""Extended checks on a table at most (in progress or ended: the GM's undo clears them)."""
GATHERS = 64
"""Gathered checks on a table at most (open or resolved)."""

# --- the snapshot's bound -----------------------------------------------------------------------------------------
ESCAPED = 6
"""Bytes a character takes at most in a JSON text (``\\u001f``); in MessagePack, 4 (UTF-8)."""
_ITEM = 160
"""Bytes of an item's fixed part at most (its keys, ids, flags and numbers as JSON writes them)."""
SNAPSHOT_BYTES = (
    ACTORS * (NAME_CHARS * ESCAPED + 4 * _ITEM)
    + SCENES * (NAME_CHARS * ESCAPED + _ITEM)
    + FACETS * (NOTE_CHARS * ESCAPED + _ITEM)
    + CONDITIONS * (NOTE_CHARS * ESCAPED + _ITEM)
    + COMPLICATIONS * (NOTE_CHARS * ESCAPED + NAME_CHARS * ESCAPED + _ITEM)
    + LURKING * (NAME_CHARS * ESCAPED * 2 + 12 * 16 + _ITEM)
    + EXTENDED * (NAME_CHARS * ESCAPED * 4 + 2 * _ITEM)
    + GATHERS * (NAME_CHARS * ESCAPED * (2 + 2 * 12) + ITEMS * 8 + 12 * _ITEM)
)
"""Bytes a table's snapshot takes at most, in JSON with every text at its longest and every character escaped
(some 3.6 MiB; a table of plain names and texts at their longest takes a sixth of it)."""

# --- the annotations the Structs use --------------------------------------------------------------------------
Name = Annotated[str, Meta(max_length=NAME_CHARS)]
Label = Annotated[str, Meta(max_length=LABEL_CHARS)]
Note = Annotated[str, Meta(max_length=NOTE_CHARS)]
Face = Annotated[int, Meta(ge=-FACE, le=FACE)]
Faces = Annotated[list[Face], Meta(max_length=ITEMS)]
Count = Annotated[int, Meta(ge=-COUNT, le=COUNT)]
"""A count (:data:`COUNT`, either sign)."""
Counts = Annotated[list[Count], Meta(max_length=ITEMS)]
"""A list of counts (ranks)."""
Level = Annotated[int, Meta(ge=-LEVEL, le=LEVEL)]
"""A level or a modifier (:data:`LEVEL`, either sign)."""
Running = Annotated[int, Meta(ge=-RUNNING, le=RUNNING)]
"""A running count a check carries from the table (:data:`RUNNING`, either sign)."""
