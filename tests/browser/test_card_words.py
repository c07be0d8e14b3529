"""Chat cards in the rule texts' words: "apply" only where the result changes what the tokens mark, the
boons dice's letters with a legend, facts that say what they mean, roll modes as Foundry names them."""

from __future__ import annotations

import pytest

from .helpers import API, connected
from .test_accessibility import AXE, violations

pytestmark = pytest.mark.browser


def roll(page, check: str, label: str, mode: str = "public", actor: str = "actorAyla") -> None:
    page.evaluate(f"{API}.client.roll({{check: {check}, actor: '{actor}', mode: '{mode}', label: '{label}'}})")


def card(page, label: str):
    c = page.locator(f".chat-message:has(.verdict-label:has-text('{label}')) .verdict-card")
    c.wait_for(timeout=15000)
    return c


def test_apply_shows_only_where_the_result_marks_the_tokens(table, shot):
    gm, player = table.open("gm1", system="challenge"), table.open("p1", system="challenge")
    connected(gm, player)
    roll(player, "{system: 'challenge', cl: 1, modifier: 0, dice: [8]}", "Clean climb")
    roll(player, "{system: 'challenge', cl: 3, modifier: 0, dice: [9]}", "Slipping climb")
    clean, slipping = card(gm, "Clean climb"), card(gm, "Slipping climb")
    gm.wait_for_selector(".verdict-card:has-text('Slipping climb') .verdict-outcome", timeout=15000)
    # A success that beats the CL by one changes no marker: nothing to apply.
    assert clean.locator("[data-verdict-apply]").count() == 0
    # Missing the CL costs strain: the button says what it marks.
    apply = slipping.locator("[data-verdict-apply]")
    assert apply.is_visible()
    assert "strain" in apply.inner_text().lower()
    text = slipping.inner_text()
    assert "Level reached / CL" in text and "Strain" in text
    shot(gm, ".chat-message:has(.verdict-label:has-text('Slipping climb'))", "card-words-challenge-gm.png")


def test_an_epic_failure_says_what_it_adds(table):
    gm, player = table.open("gm1", system="challenge"), table.open("p1", system="challenge")
    connected(gm, player)
    roll(player, "{system: 'challenge', cl: 3, modifier: 0, dice: [1]}", "Fall from the ledge")
    c = card(player, "Fall from the ledge")
    player.wait_for_selector(
        ".verdict-card:has-text('Fall from the ledge') dt:has-text('New Condition')", timeout=15000
    )
    facts = dict(zip(c.locator("dt").all_inner_texts(), c.locator("dd").all_inner_texts(), strict=True))
    assert facts["New Condition"] == "one more Condition (the GM names it)"
    assert facts["Natural roll"] == "1"
    assert "yes" not in facts.values()
    assert not any(k.startswith("Die read") for k in facts)


def test_boons_dice_come_with_a_legend_in_words(table, shot):
    gm, player = table.open("gm1", system="boons"), table.open("p1", system="boons")
    connected(gm, player)
    roll(
        player,
        "{system: 'boons', ability: 2, boon: 1, bane: 0, trial: 1, crisis: 0, upgrade: 0, dice: [8, 4, 4, 8]}",
        "Pick the lock",
    )
    c = card(player, "Pick the lock")
    player.wait_for_selector(".verdict-card:has-text('Pick the lock') dt:has-text('Symbols')", timeout=15000)
    legend = c.locator("dt:has-text('Symbols') + dd").inner_text()
    assert "Breakthrough" in legend and "Success" in legend, legend
    titles = c.locator(".verdict-dice .die").evaluate_all("(ds) => ds.map((d) => d.dataset.tooltip)")
    assert titles[0].startswith("Ability die: "), titles
    for scheme in ("dark", "light"):
        player.evaluate(
            "(name) => { for (const el of document.querySelectorAll('.theme-dark, .theme-light')) "
            "{ el.classList.remove('theme-dark', 'theme-light'); el.classList.add(`theme-${name}`); } }",
            scheme,
        )
        shot(
            player,
            ".chat-message:has(.verdict-label:has-text('Pick the lock'))",
            f"card-words-boons-player-{scheme}.png",
        )
        if AXE.exists():
            assert violations(player, "#chat-log .chat-message:last-child") == [], scheme


def test_secret_cards_name_the_roll_mode_as_foundry_does(table):
    gm, player = table.open("gm1"), table.open("p1")
    connected(gm, player)
    roll(player, "{system: 'facets', pool: 2, dice: [5, 3]}", "Private look", mode="gm")
    c = card(gm, "Private look")
    assert c.locator(".verdict-mode").inner_text().strip() == "Private GM Roll"
