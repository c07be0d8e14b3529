"""`facets` (docs/rules/facets.md): a d6 pool read by its highest die.

Pool = dice brought + helping facets − hindering facets. The highest die reads
6 success, 4–5 costly success, 1–3 failure; two or more 6s are a triumph; a failure
with two or more 1s is a catastrophe. A pool of zero or less is desperate: 2d6, the
lowest kept, never a triumph (two 1s are still a catastrophe).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec

from protocol.v1.facets import FacetsCheck, FacetsHarm, FacetsOutcome, FacetsResult

from ...dice import Dice, check_faces
from ...errors import CheckError, ErrorCode


class FacetsRules(msgspec.Struct, frozen=True):
    """The numbers of `facets`, as data. Defaults are the rulings' (docs/rules/facets.md)."""

    sides: int = 6
    success_face: int = 6
    costly_face: int = 4
    """Highest die at or above this (and below ``success_face``) is a costly success."""
    triumph_count: int = 2
    """This many ``success_face`` dice (or more) make a triumph."""
    catastrophe_count: int = 2
    """A failure with this many 1s (or more) is a catastrophe."""
    desperate_dice: int = 2
    max_dice: int = 30


RULES = FacetsRules()

HARM_IN_CONFLICT: dict[str, FacetsHarm] = {
    "triumph": FacetsHarm(opponent=["wound", "condition"], character=[]),
    "success": FacetsHarm(opponent=["wound"], character=[]),
    "costly_success": FacetsHarm(opponent=["scratch"], character=["scratch"]),
    "failure": FacetsHarm(opponent=[], character=["wound"]),
    "catastrophe": FacetsHarm(opponent=[], character=["wound", "condition"]),
}
CONFLICT_KINDS = frozenset({"opposition", "interpersonal"})
MYSTICAL_DISCORD: dict[str, Literal["backlash", "discord", "severe_discord"]] = {
    "costly_success": "backlash",
    "failure": "discord",
    "catastrophe": "severe_discord",
}

# The text's example lists, by domain ("Facets for … Challenges", "Costs for … Challenges").
FACETS_BY_DOMAIN: dict[str, tuple[str, ...]] = {
    "physical": (
        "Exhausted Limbs",
        "Slippery Ground",
        "Broken Weapon",
        "Obstructing Debris",
        "Bitter Cold",
    ),
    "mental": (
        "Overwhelming Thoughts",
        "Cryptic Message",
        "Sudden Realization",
        "Lingering Suspicion",
        "Blurred Memory",
    ),
    "social": (
        "Murmurs of Doubt",
        "Unwanted Attention",
        "Reputation Tarnished",
        "Tense Atmosphere",
        "Lingering Insult",
    ),
    "mystical": (
        "Arcane Resonance",
        "Disturbance in the Veil",
        "Disruptive Aura",
        "Mystical Backlash",
        "Cryptic Visions",
    ),
}
COSTS_BY_DOMAIN: dict[str, tuple[str, ...]] = {
    "physical": (
        "Falls to the ground",
        "Drops an object",
        "Makes more noise than necessary",
        "Alerts opponents nearby",
    ),
    "mental": (
        "Becomes seemingly distracted, nervous, or annoyed",
        "Drops a lead or evidence",
        "Accidental sharing of something hidden",
        "Misunderstood details",
    ),
    "social": (
        "Accidental disrespect (using wrong titles, etc)",
        "Thoughtless mumbling (seems undecisive)",
        "Incoherent talking (seems uncertain)",
        "Unclear or miscommunicated details",
    ),
    "mystical": (
        "Gives away clues of known spells or secrets",
        "Gives a lead of hidden intent",
        "Accidentally down-plays or up-plays danger or safety",
        "Misunderstood important details",
    ),
}


def effective_pool(check: FacetsCheck) -> int:
    return check.pool + check.helping - check.hindering


def validate(check: FacetsCheck, rules: FacetsRules = RULES) -> None:
    for name in ("pool", "helping", "hindering"):
        value = getattr(check, name)
        if value < 0:
            raise CheckError(
                ErrorCode.INVALID_CHECK,
                f"facets: {name} cannot be negative (got {value}); a pool of zero or less is rolled desperate",
            )
    n = effective_pool(check)
    if n > rules.max_dice:
        raise CheckError(
            ErrorCode.TOO_MANY_DICE, f"facets: a pool of {n} dice is more than the limit of {rules.max_dice}"
        )


def sizes(check: FacetsCheck, rules: FacetsRules = RULES) -> list[int]:
    """The dice to roll: the pool, or 2d6 for a desperate pool."""
    n = effective_pool(check)
    return [rules.sides] * (n if n > 0 else rules.desperate_dice)


def roll(check: FacetsCheck, rng: Dice, rules: FacetsRules = RULES) -> list[int]:
    validate(check, rules)
    return rng.roll_sizes(sizes(check, rules))


def outcome_of(faces: Sequence[int], desperate: bool, rules: FacetsRules = RULES) -> tuple[FacetsOutcome, int]:
    """The outcome band and the die that was read, for valid faces."""
    read_die = min(faces) if desperate else max(faces)
    ones = sum(1 for f in faces if f == 1)
    if read_die >= rules.success_face:
        sixes = sum(1 for f in faces if f >= rules.success_face)
        if not desperate and sixes >= rules.triumph_count:
            return "triumph", read_die
        return "success", read_die
    if read_die >= rules.costly_face:
        return "costly_success", read_die
    if ones >= rules.catastrophe_count:
        return "catastrophe", read_die
    return "failure", read_die


def _pick(options: Sequence[str], faces: Sequence[int]) -> str:
    # Deterministic in the faces, so reading the same faces always suggests the same thing.
    return options[sum(faces) % len(options)]


def read(check: FacetsCheck, faces: Sequence[int], rules: FacetsRules = RULES) -> FacetsResult:
    validate(check, rules)
    faces = check_faces(faces, sizes(check, rules), "this facets pool")
    n = effective_pool(check)
    desperate = n <= 0
    outcome, read_die = outcome_of(faces, desperate, rules)
    harm = HARM_IN_CONFLICT[outcome] if check.kind in CONFLICT_KINDS else FacetsHarm()
    facets: dict[str, Literal["beneficial", "detrimental"]] = {"triumph": "beneficial", "catastrophe": "detrimental"}
    facet = facets.get(outcome)
    cost = outcome == "costly_success"
    discord = MYSTICAL_DISCORD.get(outcome) if check.kind == "mystical" else None
    if facet is not None:
        suggestion: str | None = _pick(FACETS_BY_DOMAIN[check.domain], faces)
    elif cost:
        suggestion = _pick(COSTS_BY_DOMAIN[check.domain], faces)
    else:
        suggestion = None
    return FacetsResult(
        outcome=outcome,
        dice=faces,
        pool=n,
        desperate=desperate,
        highest=read_die,
        kind=check.kind,
        domain=check.domain,
        harm=FacetsHarm(opponent=list(harm.opponent), character=list(harm.character)),
        facet=facet,
        cost=cost,
        discord=discord,
        suggestion=suggestion,
    )


def describe(result: FacetsResult) -> str:
    """A short human answer for the terminal."""
    words = result.outcome.replace("_", " ")
    lines = [f"facets  dice {result.dice}{' (desperate: lowest kept)' if result.desperate else ''}  →  {words}"]
    if result.harm.opponent or result.harm.character:
        lines.append(
            f"harm: opponent {', '.join(result.harm.opponent) or 'none'}; character {', '.join(result.harm.character) or 'none'}"
        )
    if result.discord:
        lines.append(f"discord: {result.discord.replace('_', ' ')}")
    if result.facet:
        lines.append(f"{result.facet} facet, e.g. {result.suggestion}")
    elif result.cost:
        lines.append(f"cost, e.g. {result.suggestion}")
    return "\n".join(lines)
