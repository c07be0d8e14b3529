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
  ``too_many_*`` code naming the bound. A roll the sidecar rolls is refused when its rules *could* add one (a
  `facets` roll may triumph, a `challenge` roll may fail epically), whatever its dice, so the refusal tells
  nothing of them; a roll of given faces, when those faces add one. A running value that an action would carry
  past its bound is refused with ``over_limit`` (a Wyrd grant, an extended check's attempts); one a roll moves
  a step at a time (strain, harm, game changers) is held at its bound.

With every bound held, a table's snapshot is bounded too: :data:`SNAPSHOT_BYTES`.
"""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

# --- one request ------------------------------------------------------------------------------------------------
NAME_CHARS = 128
"""Longest name a request gives: an actor, a target, a scene, a participant, an extended check's name and time
unit (Foundry's ids are 16 characters)."""
LABEL_CHARS = 1024
"""Longest label of a roll (what the card shows above it): kept with the roll in the ledger, never in the
table's state, so it does not grow what a welcome carries."""
NOTE_CHARS = 256
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
ACTORS_PER_USER = 32
"""Of those, actors one player's rolls may have brought to the table (made tracked) at most: one player cannot
take the whole table's room from the others (the GM's rolls and operations count against :data:`ACTORS`
alone)."""
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
EXTENDED = 16
"""Extended checks in progress on a table at most."""
GATHERS = 16
"""Gathered checks waiting for parts on a table at most."""
ENDED_KEPT = 16
"""Extended checks ended (complete or failed), and gathered checks resolved, a table's state keeps: the newest.
An older one leaves the state (its events stay in the ledger); a roll that names it is told there is none."""

# --- the snapshot's bound -----------------------------------------------------------------------------------------
SNAPSHOT_BYTES = 4 * 1024 * 1024
"""Bytes a table's snapshot takes at most (what a ``welcome`` or a ``state`` reply carries) with every bound above
held. The worst case, every count at its bound, every text at its longest and every character one JSON escapes
(six bytes), is some 3.3 MB in JSON and 0.7 MB in MessagePack; with plain text, a sixth of that
(``tests/adversarial/test_unbounded_state.py`` builds it)."""

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
