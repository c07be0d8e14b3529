"""Every `facets` rule from docs/rules/facets.md (the rule and its rulings), from given faces."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.v1.facets import FacetsCheck
from sidecar.engine import CheckError, Dice, facets


def read(faces, **kw):
    kw.setdefault("pool", len(faces))
    return facets.read(FacetsCheck(**kw), faces)


@pytest.mark.parametrize(
    "faces, outcome",
    [
        ([6], "success"),
        ([6, 6], "triumph"),
        ([6, 6, 6, 1, 1], "triumph"),
        ([5], "costly_success"),
        ([4, 3, 2], "costly_success"),
        ([3], "failure"),
        ([1], "failure"),
        ([3, 2, 1], "failure"),
        ([1, 1], "catastrophe"),
        ([3, 1, 1, 1], "catastrophe"),
        # docs/rules/facets.md: a catastrophe is a failure with more than one 1.
        ([6, 1, 1], "success"),
        ([5, 1, 1], "costly_success"),
        ([6, 6, 1, 1], "triumph"),
    ],
)
def test_bands(faces, outcome):
    assert read(faces).outcome == outcome


def test_pool_counts_helping_and_hindering():
    c = FacetsCheck(pool=2, helping=2, hindering=1)
    assert facets.sizes(c) == [6, 6, 6]
    r = facets.read(c, [1, 2, 4])
    assert r.pool == 3 and r.outcome == "costly_success"


@pytest.mark.parametrize("pool, helping, hindering", [(0, 0, 0), (1, 0, 1), (2, 0, 5)])
def test_desperate_rolls_two_keeps_lowest(pool, helping, hindering):
    c = FacetsCheck(pool=pool, helping=helping, hindering=hindering)
    assert facets.sizes(c) == [6, 6]
    assert facets.read(c, [6, 6]).outcome == "success"  # never a triumph
    assert facets.read(c, [6, 2]).outcome == "failure"  # the lowest is read
    assert facets.read(c, [5, 6]).outcome == "costly_success"
    assert facets.read(c, [1, 1]).outcome == "catastrophe"  # two 1s still are
    r = facets.read(c, [6, 1])
    assert r.outcome == "failure" and r.desperate and r.highest == 1


@pytest.mark.parametrize("kind", ["opposition", "interpersonal"])
@pytest.mark.parametrize(
    "faces, opponent, character",
    [
        ([6, 6], ["wound", "condition"], []),
        ([6, 2], ["wound"], []),
        ([4, 2], ["scratch"], ["scratch"]),
        ([3, 2], [], ["wound"]),
        ([1, 1], [], ["wound", "condition"]),
    ],
)
def test_harm_in_conflict(kind, faces, opponent, character):
    r = read(faces, kind=kind)
    assert r.harm.opponent == opponent and r.harm.character == character


@pytest.mark.parametrize("kind", ["obstacle", "mystical"])
@pytest.mark.parametrize("faces", [[6, 6], [6], [5], [2], [1, 1]])
def test_no_harm_outside_conflict(kind, faces):
    r = read(faces, kind=kind)
    assert r.harm.opponent == [] and r.harm.character == []


@pytest.mark.parametrize(
    "faces, discord",
    [([6, 6], None), ([6], None), ([5], "backlash"), ([3], "discord"), ([1, 1], "severe_discord")],
)
def test_mystical_discord(faces, discord):
    assert read(faces, kind="mystical").discord == discord
    assert read(faces, kind="opposition").discord is None


@pytest.mark.parametrize("domain", ["physical", "mental", "social", "mystical"])
def test_facets_and_costs_come_from_the_domain_lists(domain):
    t = read([6, 6], domain=domain)
    assert t.facet == "beneficial" and t.suggestion in facets.FACETS_BY_DOMAIN[domain]
    c = read([1, 1], domain=domain)
    assert c.facet == "detrimental" and c.suggestion in facets.FACETS_BY_DOMAIN[domain]
    k = read([4], domain=domain)
    assert k.cost and k.facet is None and k.suggestion in facets.COSTS_BY_DOMAIN[domain]
    s = read([6], domain=domain)
    assert not s.cost and s.facet is None and s.suggestion is None


@pytest.mark.parametrize(
    "kw, faces, code",
    [
        ({"pool": -1}, [1], "invalid_check"),
        ({"pool": 2, "hindering": -1}, [1, 1], "invalid_check"),
        ({"pool": 31}, [1] * 31, "too_many_dice"),
        ({"pool": 3}, [1, 2], "invalid_dice"),
        ({"pool": 2}, [7, 1], "invalid_dice"),
        ({"pool": 2}, [0, 1], "invalid_dice"),
        ({"pool": 0}, [1], "invalid_dice"),
    ],
)
def test_refused(kw, faces, code):
    with pytest.raises(CheckError) as e:
        facets.read(FacetsCheck(**kw), faces)
    assert e.value.code == code


@given(st.lists(st.integers(1, 6), min_size=1, max_size=12), st.randoms())
def test_reading_does_not_depend_on_order(faces, rnd):
    shuffled = list(faces)
    rnd.shuffle(shuffled)
    a, b = read(faces), read(shuffled)
    assert (a.outcome, a.harm, a.facet, a.cost) == (b.outcome, b.harm, b.facet, b.cost)


@given(st.integers(0, 30), st.integers(0, 5), st.integers(0, 5))
def test_rolled_pool_size(pool, helping, hindering):
    n = pool + helping - hindering
    if n > 30:
        return
    faces = facets.roll(FacetsCheck(pool=pool, helping=helping, hindering=hindering), Dice())
    assert len(faces) == (n if n > 0 else 2)
    assert all(1 <= f <= 6 for f in faces)


@given(st.lists(st.integers(1, 6), min_size=1, max_size=10))
def test_adding_a_die_never_lowers_the_band(faces):
    order = ["catastrophe", "failure", "costly_success", "success", "triumph"]
    for extra in range(1, 7):
        assert order.index(read(faces + [extra]).outcome) >= order.index(read(faces).outcome) or (
            read(faces).outcome == "failure" and extra == 1
        )


# =====================================================================================================
# Cases worked out by hand from docs/rules/facets.md without looking at the engine's answer: faces in, the
# result fields the text and its rulings name out, with edge cases at every band boundary and ladder step.
# =====================================================================================================

# (pool, helping, hindering, faces) -> (outcome, desperate, highest)
FACETS_BANDS = [
    # The single highest die: 6 success, 4-5 costly, 1-3 failure.
    (1, 0, 0, [6], "success", False, 6),
    (1, 0, 0, [5], "costly_success", False, 5),
    (1, 0, 0, [4], "costly_success", False, 4),
    (1, 0, 0, [3], "failure", False, 3),
    (1, 0, 0, [1], "failure", False, 1),  # one 1 is only a failure
    (3, 0, 0, [3, 2, 1], "failure", False, 3),
    # More than one 6: triumph, whatever else shows.
    (2, 0, 0, [6, 6], "triumph", False, 6),
    (4, 0, 0, [6, 1, 6, 1], "triumph", False, 6),
    (3, 0, 0, [6, 6, 6], "triumph", False, 6),
    # A catastrophe is a failure with more than one 1 (docs/rules/facets.md: [6,1,1] success, [5,1,1] costly).
    (3, 0, 0, [6, 1, 1], "success", False, 6),
    (3, 0, 0, [5, 1, 1], "costly_success", False, 5),
    (3, 0, 0, [4, 1, 1], "costly_success", False, 4),
    (3, 0, 0, [3, 1, 1], "catastrophe", False, 3),
    (2, 0, 0, [1, 1], "catastrophe", False, 1),
    (4, 0, 0, [2, 1, 3, 1], "catastrophe", False, 3),
    # Pool = brought + helping - hindering.
    (1, 2, 0, [2, 6, 6], "triumph", False, 6),
    (3, 0, 1, [6, 6], "triumph", False, 6),
    # Zero or fewer dice: 2d6, the lowest kept; never a triumph; two 1s still a catastrophe.
    (0, 0, 0, [6, 6], "success", True, 6),
    (0, 0, 0, [6, 5], "costly_success", True, 5),
    (0, 0, 0, [4, 6], "costly_success", True, 4),
    (0, 0, 0, [6, 3], "failure", True, 3),
    (0, 0, 0, [1, 6], "failure", True, 1),
    (0, 0, 0, [1, 1], "catastrophe", True, 1),
    (1, 0, 1, [6, 6], "success", True, 6),  # 1 - 1 = 0 dice
    (1, 0, 3, [2, 5], "failure", True, 2),  # -2 dice
    (2, 1, 3, [1, 1], "catastrophe", True, 1),
]


@pytest.mark.parametrize("pool, helping, hindering, faces, outcome, desperate, highest", FACETS_BANDS)
def test_facets_bands(pool, helping, hindering, faces, outcome, desperate, highest):
    r = facets.read(FacetsCheck(pool=pool, helping=helping, hindering=hindering), faces)
    assert (r.outcome, r.desperate, r.highest, r.dice) == (outcome, desperate, highest, faces)
    assert r.pool == pool + helping - hindering


# The text's own examples: two sixes, a six, a five, a three, two ones.
@pytest.mark.parametrize(
    "pool, faces, outcome",
    [
        (2, [6, 6], "triumph"),
        (2, [6, 2], "success"),
        (2, [5, 3], "costly_success"),
        (1, [3], "failure"),
        (2, [1, 1], "catastrophe"),
    ],
)
def test_facets_text_examples(pool, faces, outcome):
    assert facets.read(FacetsCheck(pool=pool), faces).outcome == outcome


# kind, faces -> harm.opponent, harm.character, discord
FACETS_HARM = [
    ("opposition", [6, 6], ["wound", "condition"], [], None),
    ("opposition", [6, 2], ["wound"], [], None),
    ("opposition", [5, 2], ["scratch"], ["scratch"], None),
    ("opposition", [3, 2], [], ["wound"], None),
    ("opposition", [1, 1], [], ["wound", "condition"], None),
    ("interpersonal", [6, 6], ["wound", "condition"], [], None),
    ("interpersonal", [4, 1], ["scratch"], ["scratch"], None),
    ("interpersonal", [2, 1], [], ["wound"], None),
    ("interpersonal", [3, 1], [], ["wound"], None),
    ("obstacle", [6, 6], [], [], None),
    ("obstacle", [1, 1], [], [], None),
    ("mystical", [6, 6], [], [], None),
    ("mystical", [6, 1], [], [], None),
    ("mystical", [5, 1], [], [], "backlash"),
    ("mystical", [3, 1], [], [], "discord"),
    ("mystical", [1, 1], [], [], "severe_discord"),
]


@pytest.mark.parametrize("kind, faces, opponent, character, discord", FACETS_HARM)
def test_facets_harm_only_in_conflict_and_discord_only_mystical(kind, faces, opponent, character, discord):
    r = facets.read(FacetsCheck(pool=len(faces), kind=kind), faces)
    assert (r.harm.opponent, r.harm.character, r.discord) == (opponent, character, discord)


@pytest.mark.parametrize(
    "faces, facet, cost",
    [
        ([6, 6], "beneficial", False),
        ([6, 1], None, False),
        ([4, 1], None, True),
        ([3, 2], None, False),
        ([1, 1], "detrimental", False),
    ],
)
@pytest.mark.parametrize("domain", ["physical", "mental", "social", "mystical"])
def test_facets_facet_and_cost_with_a_suggestion_from_the_domain(faces, facet, cost, domain):
    r = facets.read(FacetsCheck(pool=2, domain=domain), faces)
    assert (r.facet, r.cost) == (facet, cost)
    if facet:
        assert r.suggestion in facets.FACETS_BY_DOMAIN[domain]
    elif cost:
        assert r.suggestion in facets.COSTS_BY_DOMAIN[domain]
    else:
        assert r.suggestion is None


def test_facets_desperate_double_six_is_no_triumph_nor_beneficial_facet():
    r = facets.read(FacetsCheck(pool=0, kind="opposition"), [6, 6])
    assert r.outcome == "success" and r.facet is None and r.harm.opponent == ["wound"]


# Every possible roll of small pools against a transcription of the rulings that shares no code with
# the engine.


def _ref_facets(n: int, faces: list[int]) -> str:
    read_die = min(faces) if n <= 0 else max(faces)
    if read_die == 6:
        return "triumph" if n > 0 and faces.count(6) >= 2 else "success"
    if read_die >= 4:
        return "costly_success"
    return "catastrophe" if faces.count(1) >= 2 else "failure"


@pytest.mark.parametrize("n", range(-2, 5))
def test_facets_every_roll(n):
    for faces in itertools.product(range(1, 7), repeat=n if n > 0 else 2):
        r = facets.read(FacetsCheck(pool=max(n, 0), hindering=max(-n, 0)), list(faces))
        assert r.outcome == _ref_facets(n, list(faces)), faces
