"""Token markers are world data every player's client loads (status effects, actor flags), written by the active
GM's client: they show what every player may see, never the GM's view. A GM-only and a blind roll that bring
strain and a condition leave the tokens and the actors' flags and statuses untouched on every page; a public
change shows at once. The GM's own view, and the roller's, still hold what their rolls changed."""

from __future__ import annotations

import pytest

from .helpers import API, connected
from .test_stateful_ruleset import AYLA as FORTUNE_AYLA
from .test_stateful_ruleset import fortune_module, fortune_standin, fortune_table  # noqa: F401  (fixtures)

pytestmark = pytest.mark.browser

AYLA = "#board .token[data-actor='actorAyla']"
BRAM = "#board .token[data-actor='actorBram']"

WORLD = """(id) => { const a = game.actors.get(id);
  return {strain: a.getFlag('verdict', 'strain') ?? 0, statuses: [...a.statuses].filter((s) => s.startsWith('verdict-')).sort()}; }"""


def _roll(page, dice: list[int], actor: str, mode: str, label: str) -> None:
    page.evaluate(
        f"{API}.client.roll({{check: {{system: 'challenge', cl: 3, modifier: 0, dice: {dice}}}, actor: '{actor}', "
        f"scene: 'scene1', mode: '{mode}', label: '{label}'}})"
    )


def _gm_strain(gm, actor: str, strain: int) -> None:
    gm.wait_for_function(f"{API}.client.snapshot?.actors?.{actor}?.strain === {strain}", timeout=15000)


@pytest.mark.generations(13, 14)
def test_gm_only_and_blind_rolls_leave_the_token_markers_as_every_player_sees_them(table):
    gm, player = table.open("gm1", "challenge"), table.open("p1", "challenge")
    connected(gm, player)
    gm.wait_for_selector(AYLA, timeout=15000)

    # Ayla's player rolls an epic failure for the GM's eyes (a condition and strain), then a blind failure by two
    # levels (+3 strain); the GM rolls a GM-only epic failure for Bram.
    _roll(player, [1], "actorAyla", "gm", "Behind the screen")
    _roll(player, [5], "actorAyla", "blind", "In the dark")
    _roll(gm, [1], "actorBram", "gm", "Secret of the GM")
    gm.wait_for_function(f"{API}.client.snapshot?.actors?.actorAyla?.conditions?.length === 1", timeout=15000)
    gm.wait_for_function(f"{API}.client.snapshot?.actors?.actorBram?.conditions?.length === 1", timeout=15000)
    _gm_strain(gm, "actorAyla", 3)  # the blind roll's (an epic failure brings a condition, no strain)
    hidden = 3
    # A public failure by two levels: +3 strain, everyone's. The tokens show it, and only it.
    _roll(player, [5], "actorAyla", "public", "In the open")
    _gm_strain(gm, "actorAyla", hidden + 3)
    for page in (gm, player):
        page.wait_for_selector(f"{AYLA} .token-text[data-name='verdict-strain']:has-text('Strain 3')", timeout=15000)
        assert page.locator(f"{AYLA} [data-status]").count() == 0
        assert page.locator(f"{BRAM} [data-status]").count() == 0
        assert page.locator(f"{BRAM} .token-text").count() == 0
        # the world data every player's client loads
        assert page.evaluate(WORLD, "actorAyla") == {"strain": 3, "statuses": []}
        assert page.evaluate(WORLD, "actorBram") == {"strain": 0, "statuses": []}
    assert not any(w["what"] == "status verdict-condition on" for w in gm.evaluate("window.__writes"))

    # A public epic failure for Bram: his condition shows, the GM-only one still does not count.
    _roll(gm, [1], "actorBram", "public", "For all to see")
    gm.wait_for_function(f"{API}.client.snapshot?.actors?.actorBram?.conditions?.length === 2", timeout=15000)
    for page in (gm, player):
        page.wait_for_selector(f"{BRAM} [data-status='verdict-condition']", timeout=15000)
        assert page.locator(f"{AYLA} [data-status]").count() == 0
        assert page.evaluate(WORLD, "actorAyla") == {"strain": 3, "statuses": []}

    # "Apply" on the GM's card of a hidden roll brings the token in line with what every player sees, no more.
    gm.locator(".verdict-card:has(.verdict-label:has-text('Behind the screen')) [data-verdict-apply]").click()
    gm.evaluate(f"{API}.client.refreshSnapshot()")
    _gm_strain(gm, "actorAyla", hidden + 3)
    player.wait_for_selector(f"{AYLA} .token-text[data-name='verdict-strain']:has-text('Strain 3')", timeout=15000)
    assert player.evaluate(WORLD, "actorAyla") == {"strain": 3, "statuses": []}


def _fortune(page, value: int) -> None:
    page.wait_for_function(f"{API}.client.snapshot?.actors?.actorAyla?.fortune === {value}", timeout=15000)


FORTUNE = "(id) => game.actors.get(id).getFlag('verdict', 'fortune') ?? 0"


@pytest.mark.generations(13, 14)
def test_a_gm_only_fortune_spend_leaves_the_badge_as_the_players_see_it(fortune_table):  # noqa: F811
    gm, ayla = fortune_table.open("gm1", system="fortune"), fortune_table.open("p1", system="fortune")
    connected(gm, ayla)
    gm.evaluate(f"{API}.client.gm({{op: 'fortune_grant', actor: 'actorAyla', amount: 2}})")
    for page in (gm, ayla):
        _fortune(page, 2)
        page.wait_for_selector(
            f"{FORTUNE_AYLA} .token-text[data-name='verdict-fortune']:has-text('Fortune 2')", timeout=15000
        )
    # A GM-only roll spends one; a public grant of one follows: every player sees 3, the GM 2.
    gm.evaluate(
        f"{API}.client.roll({{check: {{system: 'fortune', pool: 1, spend: 1, dice: [2, 6]}}, actor: 'actorAyla', scene: 'scene1', mode: 'gm', label: 'Behind the screen'}})"
    )
    _fortune(gm, 1)
    gm.evaluate(f"{API}.client.gm({{op: 'fortune_grant', actor: 'actorAyla', amount: 1}})")
    _fortune(gm, 2)
    _fortune(ayla, 3)
    for page in (gm, ayla):
        page.wait_for_selector(
            f"{FORTUNE_AYLA} .token-text[data-name='verdict-fortune']:has-text('Fortune 3')", timeout=15000
        )
        assert page.evaluate(FORTUNE, "actorAyla") == 3
