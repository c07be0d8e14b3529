"""Every `facets` rule from docs/rules/facets.md (the rule and its rulings), from given faces."""

from __future__ import annotations

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
