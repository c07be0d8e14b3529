"""The unions over the five rule sets: every check, result and follow-up action.

Written out by hand, so type checkers see them (the protocol imports nothing of the engine; a test holds
these unions and the engine's registry of rule sets in agreement). A new rule set adds its Structs here.
"""

from __future__ import annotations

from typing import Union, get_args

from .boons import BoonsCheck, BoonsResult
from .challenge import ChallengeCheck, ChallengeChoice, ChallengeRemoveComplication, ChallengeResult
from .facets import FacetsCheck, FacetsResult
from .feats import FeatsCheck, FeatsResult
from .flairs import FlairsBargain, FlairsCheck, FlairsChoose, FlairsNameTrials, FlairsResult, FlairsReveal, FlairsSetLurking

SYSTEMS: tuple[str, ...] = ("facets", "challenge", "flairs", "feats", "boons")
"""The rule sets' tags (``check.system``), in this order throughout the protocol."""

AnyCheck = Union[FacetsCheck, ChallengeCheck, FlairsCheck, FeatsCheck, BoonsCheck]
AnyResult = Union[FacetsResult, ChallengeResult, FlairsResult, FeatsResult, BoonsResult]
AnyAction = Union[
    ChallengeChoice, ChallengeRemoveComplication,
    FlairsBargain, FlairsChoose, FlairsReveal, FlairsSetLurking, FlairsNameTrials,
]

CHECK_TYPES: tuple[type, ...] = get_args(AnyCheck)
RESULT_TYPES: tuple[type, ...] = get_args(AnyResult)
ACTION_TYPES: tuple[type, ...] = get_args(AnyAction)
