"""`facets`: a d6 pool read by its highest die (docs/rules/facets.md)."""

from __future__ import annotations

from typing import Literal

import msgspec

from .base import Check, Result

FacetsKind = Literal["obstacle", "opposition", "interpersonal", "mystical"]
FacetsDomain = Literal["physical", "mental", "social", "mystical"]
FacetsOutcome = Literal["triumph", "success", "costly_success", "failure", "catastrophe"]
FacetsHarmKind = Literal["wound", "scratch", "condition"]


class FacetsCheck(Check, tag="facets"):
    """A `facets` check. The pool is ``pool + helping - hindering``; zero or less is desperate."""

    pool: int = 0
    helping: int = 0
    hindering: int = 0
    kind: FacetsKind = "obstacle"
    domain: FacetsDomain = "physical"
    dice: list[int] | None = None


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
