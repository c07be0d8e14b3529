"""`facets`: a d6 pool read by its highest die (docs/rules/facets.md)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from .base import ActorPart, Check, Event, Op, Result, ScenePart
from .limits import Count, Faces, Name, Note

FacetsKind = Literal["obstacle", "opposition", "interpersonal", "mystical"]
FacetsDomain = Literal["physical", "mental", "social", "mystical"]
FacetsOutcome = Literal["triumph", "success", "costly_success", "failure", "catastrophe"]
FacetsHarmKind = Literal["wound", "scratch", "condition"]


class FacetsCheck(Check, tag="facets"):
    """A `facets` check. The pool is ``pool + helping - hindering``; zero or less is desperate."""

    pool: Annotated[
        Count,
        Meta(
            title="Dice pool",
            description="The d6 the character brings (attribute and skill). With the facets, zero or less is "
            "desperate: 2d6, the lowest read.",
        ),
    ] = 0
    helping: Annotated[
        Count, Meta(title="Helping facets", description="Facets in the character's favour: one die more each.")
    ] = 0
    hindering: Annotated[
        Count, Meta(title="Hindering facets", description="Facets against the character: one die fewer each.")
    ] = 0
    kind: Annotated[
        FacetsKind,
        Meta(
            title="Challenge",
            description="What stands in the way: an obstacle, an opposition or an interpersonal conflict (harm on "
            "both sides), or the mystical (discord on a failure).",
        ),
    ] = "obstacle"
    domain: Annotated[
        FacetsDomain,
        Meta(title="Domain", description="Where the check is made: the lists a suggested facet or cost comes from."),
    ] = "physical"
    dice: Annotated[
        Faces | None,
        Meta(description="The faces rolled at the table, one per die of the pool (none: the sidecar rolls)."),
    ] = None


class FacetsHarm(msgspec.Struct, gc=False):
    """Harm in conflict, by side. Empty lists outside `opposition` and `interpersonal`."""

    opponent: list[FacetsHarmKind] = []
    character: list[FacetsHarmKind] = []


class FacetsResult(Result, tag="facets"):
    outcome: FacetsOutcome
    dice: list[int]
    pool: int
    """The effective pool: pool + helping - hindering (may be zero or negative)."""
    desperate: bool
    """True when the effective pool was zero or less: 2d6, the lowest kept."""
    highest: int
    """The die that was read: the highest, or the lowest of two on a desperate roll."""
    kind: FacetsKind
    domain: FacetsDomain
    harm: FacetsHarm
    facet: Literal["beneficial", "detrimental"] | None
    cost: bool
    discord: Literal["backlash", "discord", "severe_discord"] | None
    suggestion: str | None
    """A facet (triumph, catastrophe) or cost (costly success) from the text's lists for the domain."""


# --- the table's state: facets (of actors and scenes), wounds, scratches --------------------------


class FacetAdd(Op, tag="facet_add"):
    """The GM writes a facet of their own (docs/rules/facets.md: the GM has the final say and may write their own), on an
    actor, or a scene (the active scene when neither is named)."""

    facet: Note
    nature: Literal["beneficial", "detrimental"]
    actor: Name | None = None
    scene: Name | None = None


class FacetRename(Op, tag="facet_rename"):
    """Name a facet (say, the suggestion a triumph stored) or rename it, by its id."""

    facet: Name
    text: Note


class FacetRemove(Op, tag="facet_remove"):
    facet: Name


class HarmHeal(Op, tag="harm_heal"):
    """Heal (remove) ``count`` wounds or scratches of an actor."""

    actor: Name
    harm: Literal["wound", "scratch"]
    count: Count = 1


class HarmTaken(Event, tag="harm"):
    """A wound or a scratch (`facets`)."""

    actor: str
    harm: Literal["wound", "scratch"]
    cause: int = 0


class FacetCreated(Event, tag="facet_created"):
    facet: str
    nature: Literal["beneficial", "detrimental"]
    actor: str | None = None
    scene: str | None = None
    cause: int = 0
    id: str = ""
    """The facet's id, which `facet_rename` and `facet_remove` name (``f<seq>`` for a facet recorded without one)."""


class FacetRenamed(Event, tag="facet_renamed"):
    facet: str
    """The facet's id."""
    text: str
    cause: int = 0


class FacetRemoved(Event, tag="facet_removed"):
    facet: str
    cause: int = 0


class HarmHealed(Event, tag="harm_healed"):
    """Wounds or scratches healed (removed) by the GM."""

    actor: str
    harm: Literal["wound", "scratch"]
    count: int = 1
    cause: int = 0


class Facet(msgspec.Struct, gc=False):
    facet: str
    nature: str
    id: str = ""
    """What `facet_rename` and `facet_remove` name."""


class FacetsActor(ActorPart):
    wounds: int = 0
    scratches: int = 0
    facets: list[Facet] = []


class FacetsScene(ScenePart):
    facets: list[Facet] = []
