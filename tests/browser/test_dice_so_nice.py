"""Dice So Nice as its 5.x source behaves: a preset of a typed die needs a dice term registered under its
denomination, a throw of a type it has no preset for never settles, and messages wait for the dice by default.
A boons card shows its outcome once its dice land, and within a bounded time if Dice So Nice never answers."""

from __future__ import annotations

import pytest

from .helpers import API, connected

pytestmark = pytest.mark.browser

BOONS = {"system": "boons", "ability": 3, "boon": 1, "bane": 1, "trial": 2, "crisis": 0, "dice": [8, 5, 2, 4, 3, 7, 1]}
TYPED = ["dvboonsability", "dvboonsboon", "dvboonsbane", "dvboonstrial", "dvboonscrisis"]


def _card(page, label: str):
    return page.locator(f"#chat-log .verdict-card:has(.verdict-label:has-text('{label}'))")


@pytest.mark.generations(13, 14)
def test_a_boons_card_shows_its_outcome_once_dice_so_nice_lands_its_dice_on_every_page(table, generation):
    table.modules = ["dice-so-nice"]
    gm, ayla, bram = table.open("gm1", "boons"), table.open("p1", "boons"), table.open("p2", "boons")
    connected(gm, ayla, bram)
    for page in (gm, ayla, bram):
        # every typed die is a dice term Dice So Nice can name, and each has the module's preset
        types = page.evaluate("game.dice3d.presets.filter((p) => p.system === 'verdict').map((p) => [p.type, p.term])")
        assert sorted(t for t, _ in types) == sorted(TYPED)
        assert all(term and term.startswith("Verdict") for _, term in types)
        page.evaluate("window.__holdDice = true")
    ayla.evaluate(f"{API}.client.roll({{check: {BOONS!r}, actor: 'actorAyla', label: 'Boons thrown'}})")
    for page in (gm, ayla, bram):
        card = _card(page, "Boons thrown")
        card.locator(".verdict-dice .die").first.wait_for(timeout=15000)
        page.wait_for_function("window.__throws.length === 1", timeout=15000)
        assert card.locator(".verdict-outcome").count() == 0
        assert card.get_attribute("data-rolling") == "1"
    for page in (gm, ayla, bram):
        page.evaluate("standin.landDice()")
        _card(page, "Boons thrown").locator(".verdict-outcome").wait_for(timeout=15000)
        assert page.evaluate("window.__errors") == []


def test_when_dice_so_nice_never_answers_the_outcome_comes_within_the_bound_with_a_warning(table):
    table.modules = ["dice-so-nice"]
    table.config["verdict"]["timings"]["diceLanding"] = 1500
    gm, ayla = table.open("gm1", "boons"), table.open("p1", "boons")
    connected(gm, ayla)
    warnings: list[str] = []
    ayla.on("console", lambda msg: msg.type == "warning" and warnings.append(msg.text))
    for page in (gm, ayla):
        page.evaluate("window.__diceNeverLand = true")
    ayla.evaluate(f"{API}.client.roll({{check: {BOONS!r}, actor: 'actorAyla', label: 'Never lands'}})")
    for page in (gm, ayla):
        card = _card(page, "Never lands")
        card.locator(".verdict-dice .die").first.wait_for(timeout=15000)
        assert card.get_attribute("data-rolling") == "1"
    for page in (gm, ayla):
        _card(page, "Never lands").locator(".verdict-outcome").wait_for(timeout=15000)
    assert any("Dice So Nice did not say" in w for w in warnings), warnings


def test_a_die_type_without_a_preset_never_lands_in_dice_so_nice(table):
    """The double is as strict as Dice So Nice: a preset for an unregistered denomination throws, and a throw
    of a type without a preset never settles (what the module guards against)."""
    table.modules = ["dice-so-nice"]
    gm = table.open("gm1", "boons")
    connected(gm)
    said = gm.evaluate(
        """async () => {
          let refused = null;
          try { game.dice3d.addDicePreset({type: 'dnosuchterm', labels: ['a'], system: 'x'}, 'd6'); } catch (e) { refused = String(e); }
          const p = game.dice3d.show({throws: [{dice: [{type: 'dnosuchterm', result: 1}]}]});
          const settled = await Promise.race([p.then(() => 'settled'), new Promise((r) => setTimeout(() => r('pending'), 500))]);
          await new Promise((r) => setTimeout(r, 0));
          const errors = window.__errors.splice(0);
          return {refused, settled, errors};
        }"""
    )
    assert said["refused"] and said["settled"] == "pending"
    assert any("no preset" in e for e in said["errors"])


def test_a_follow_up_arriving_while_the_dice_land_is_drawn(table):
    """Bram's page draws slowly. His dice land (the module draws the card again) and the Judge's naming of the
    trials arrives before that draw would have ended: Foundry's update takes the card's element before its own
    render and puts the new one in that element's place, so the card must still be in that element then."""
    table.modules = ["dice-so-nice"]
    gm, ayla, bram = table.open("gm1", "flairs"), table.open("p1", "flairs"), table.open("p2", "flairs")
    connected(gm, ayla, bram)
    bram.evaluate("window.__holdDice = true")
    # A pair of 3s on a failure: one trial of the Judge's choice (a follow-up that throws no dice).
    ayla.evaluate(
        f"{API}.client.roll({{check: {{system: 'flairs', rank: 2, dice: [3, 3]}}, actor: 'actorAyla', scene: 'scene1', label: 'Ford the river'}})"
    )
    sel = "#chat-log .verdict-card[data-system='flairs']"
    name = gm.locator(f"{sel} [data-verdict-follow*='flairs_name_trials']")
    name.wait_for(timeout=15000)
    bram.locator(f"{sel}[data-rolling='1']").wait_for(timeout=15000)
    seq = bram.evaluate("game.messages.contents.find((m) => m.flags.verdict?.card).flags.verdict.card.seq")
    bram.evaluate("window.__renderDelay = 4000; standin.landDice()")
    name.click()
    # Bram's page has the update: its log is drawing it (slowly)
    bram.wait_for_function(
        "(seq) => game.messages.contents.find((m) => m.flags.verdict?.card).flags.verdict.card.seq > seq",
        arg=seq,
        timeout=15000,
    )
    bram.evaluate("window.__renderDelay = 0")
    for page in (gm, ayla, bram):
        page.locator(f"{sel} dt:has-text('Trials named')").wait_for(timeout=20000)
