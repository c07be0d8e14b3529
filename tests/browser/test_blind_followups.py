"""A blind roll's follow-ups are the GM's to make: the roller may not see the result, so what would be theirs to
choose (a devil's bargain, a challenge choice) is drawn on the GM's card, and taking it there updates the GM's
card with nothing marked unverified and no error; the roller's trace shows neither the result nor a control."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .helpers import API, connected, marker_card
from .test_followups import VERIFIED

pytestmark = pytest.mark.browser

FOLLOW = "[data-verdict-follow], .verdict-bargain, .verdict-choose, .verdict-followups button"


def _errors(page) -> list[str]:
    return page.evaluate("(window.__notes ?? []).filter((n) => n.level === 'error').map((n) => n.text)")


def _roll_blind(roller, check: str, label: str) -> None:
    roller.evaluate(
        f"{API}.client.roll({{check: {check}, actor: 'actorAyla', scene: 'scene1', mode: 'blind', label: {label!r}}})"
    )


def _settled_and_honest(gm, sel: str) -> None:
    """The GM's page has heard the ledger's word on the card (every verify answered, then a round trip):
    nothing marked unverified, no error shown."""
    gm.evaluate(VERIFIED)
    marker_card(gm)
    gm.evaluate(VERIFIED)
    card = gm.locator(sel)
    assert card.count() == 1
    assert "unverified" not in (card.get_attribute("class") or "")
    assert card.locator(".verdict-unverified").count() == 0
    assert _errors(gm) == []


def _roller_sees_nothing(roller, label: str) -> None:
    """The roller's page: the trace of the roll with its label, no card, no result and no control."""
    trace = roller.locator(f".chat-message:has(.verdict-trace-label:has-text({label!r}))")
    trace.wait_for(timeout=15000)
    marker_card(roller)
    assert roller.locator(f".verdict-card:has(.verdict-label:has-text({label!r}))").count() == 0
    assert trace.locator(".verdict-dice .die").count() == 0
    assert not "".join(trace.locator(".verdict-outcome").all_inner_texts()).strip()
    assert trace.locator(FOLLOW).count() == 0
    assert roller.locator(f"#chat-log .chat-message:not(:has-text('Marker roll')) :is({FOLLOW})").count() == 0
    assert _errors(roller) == []


def test_the_gm_takes_the_bargain_on_a_blind_flairs_failure(table):
    gm, ayla = table.open("gm1", "flairs"), table.open("p1", "flairs")
    connected(gm, ayla)
    label = "Pick the sealed lock"
    _roll_blind(ayla, "{system: 'flairs', rank: 2, dice: [3, 2]}", label)
    sel = f".verdict-card[data-system='flairs']:has(.verdict-label:has-text({label!r}))"
    card = gm.locator(sel)
    card.wait_for(timeout=15000)
    assert card.get_attribute("data-outcome") == "failure"
    bargain = card.locator(".verdict-bargain")
    bargain.wait_for(timeout=15000)
    _roller_sees_nothing(ayla, label)
    bargain.locator("select[name=bargain-trial]").select_option("costly")
    bargain.locator("[data-verdict-bargain]").click()
    gm.wait_for_selector(f"{sel} dd:has-text('Costly')", timeout=15000)
    card = gm.locator(sel)
    # the bargain's die joins the kept ones, and it is taken once
    assert card.locator(".verdict-dice .die").count() == 3
    assert card.locator(".verdict-bargain").count() == 0
    _settled_and_honest(gm, sel)
    _roller_sees_nothing(ayla, label)


def test_the_gm_makes_the_choice_on_a_blind_challenge_roll(table):
    gm, ayla = table.open("gm1", "challenge"), table.open("p1", "challenge")
    connected(gm, ayla)
    label = "Vault the hidden wall"
    # 19 (level 4) against CL 2: beaten by 2, a Game Changer or less Strain to choose.
    _roll_blind(ayla, "{system: 'challenge', cl: 2, modifier: 0, dice: [19]}", label)
    sel = f".verdict-card[data-system='challenge']:has(.verdict-label:has-text({label!r}))"
    gm.locator(sel).wait_for(timeout=15000)
    choice = gm.locator(f"{sel} [data-verdict-follow*='challenge_choice']")
    choice.first.wait_for(timeout=15000)
    assert choice.count() >= 2
    _roller_sees_nothing(ayla, label)
    before = gm.locator(sel).inner_text()
    choice.first.click()
    expect(choice).to_have_count(0, timeout=15000)
    assert gm.locator(sel).inner_text() != before
    _settled_and_honest(gm, sel)
    _roller_sees_nothing(ayla, label)
