"""The card follow-ups beyond the challenge choice, each clicked in a real browser against a real sidecar:
the devil's bargain on a flairs failure, the next roll of an extended boons check the GM started in the
tracker, and Wyrd bought in the feats dialog before the roll."""

from __future__ import annotations

import pytest

from .helpers import API, connected, marker_card

pytestmark = pytest.mark.browser


def test_devils_bargain_on_a_flairs_failure(table, shot):
    gm, player = table.open("gm1", "flairs"), table.open("p1", "flairs")
    connected(gm, player)
    player.evaluate(
        f"{API}.client.roll({{check: {{system: 'flairs', rank: 2, dice: [3, 2]}}, actor: 'actorAyla', scene: 'scene1', label: 'Pick the lock'}})"
    )
    card = player.locator(".verdict-card[data-system='flairs']")
    card.wait_for(timeout=15000)
    assert card.get_attribute("data-outcome") == "failure"
    bargain = card.locator(".verdict-bargain")
    assert bargain.count() == 1
    # Only the roller may bargain.
    bram = table.open("p2", "flairs")
    connected(bram)
    bram.wait_for_selector(".verdict-card[data-system='flairs']", timeout=15000)
    assert bram.locator(".verdict-card .verdict-bargain").count() == 0
    shot(player, ".chat-message:last-child", "card-flairs-failure.png")
    bargain.locator("select[name=bargain-trial]").select_option("costly")
    bargain.locator("[data-verdict-bargain]").click()
    for page in (gm, player, bram):
        page.wait_for_selector(".verdict-card[data-system='flairs'] dd:has-text('Costly')", timeout=15000)
        c = page.locator(".verdict-card[data-system='flairs']")
        # The bargain adds a die to the kept ones; it can be taken only once.
        assert c.locator(".verdict-dice .die").count() == 3
        assert c.locator(".verdict-bargain").count() == 0
    card = gm.evaluate("game.messages.contents[0].flags.verdict.card")
    assert card["actions"] == [{"action": "flairs_bargain", "trial": "costly", "dice": None}]
    assert card["result"]["bargain"] == "costly" and len(card["result"]["dice"]) == 3
    shot(player, ".chat-message:last-child", "card-flairs-bargain.png")


def test_next_extended_roll_from_the_card(table, shot):
    gm, player = table.open("gm1", "boons"), table.open("p1", "boons")
    connected(gm, player)
    gm.click("#scene-controls [data-tool='verdict-tracker']")
    tracker = gm.locator(".verdict-tracker")
    tracker.wait_for()
    form = tracker.locator(".verdict-extended-form")
    form.locator("[name=name]").fill("Decipher the ledger")
    form.locator("[name=threshold]").fill("40")
    form.locator("[name=trial]").fill("1")
    form.locator("[data-action=extendedStart]").click()
    tracker.locator(".verdict-extended li:has-text('Decipher the ledger')").wait_for(timeout=15000)

    player.click("#scene-controls [data-tool='verdict-tracker']")
    ptracker = player.locator(".verdict-tracker")
    row = ptracker.locator(".verdict-extended li:has-text('Decipher the ledger')")
    row.wait_for(timeout=15000)
    row.locator("[data-action=extendedRoll]").click()
    dialog = player.locator(".verdict-roll-dialog")
    dialog.wait_for()
    assert dialog.locator("[name='field.trial']").is_disabled()
    assert dialog.locator("[name='field.trial']").input_value() == "1"
    dialog.locator(".verdict-odds-legend li").first.wait_for(timeout=15000)
    dialog.locator("button[type=submit]").click()
    dialog.wait_for(state="detached")

    card = player.locator(".verdict-card[data-system='boons']").last
    card.wait_for(timeout=15000)
    assert "/ 40" in card.inner_text()
    nxt = card.locator("[data-verdict-follow*='extended_next']")
    assert nxt.count() == 1
    assert gm.locator(".verdict-card[data-system='boons'] [data-verdict-follow*='extended_next']").count() == 1
    shot(player, ".chat-message:last-child", "card-boons-extended.png")
    nxt.click()
    dialog = player.locator(".verdict-roll-dialog")
    dialog.wait_for()
    assert dialog.locator("[name='label']").input_value() == "Decipher the ledger"
    dialog.locator("button[type=submit]").click()
    dialog.wait_for(state="detached")
    player.wait_for_function(
        "document.querySelectorAll('.verdict-card[data-system=\"boons\"]').length === 2", timeout=15000
    )
    xid = gm.evaluate(f"Object.keys({API}.client.snapshot.extended)[0]")
    gm.wait_for_function(f"{API}.client.snapshot.extended['{xid}'].attempts === 2", timeout=15000)
    cards = gm.evaluate("game.messages.contents.map(m => m.flags.verdict.card).filter(Boolean)")
    assert [c["extended"] for c in cards] == [xid, xid]
    assert [c["result"]["extended"]["attempts"] for c in cards] == [1, 2]


def test_wyrd_bought_in_the_dialog(table, shot):
    gm, player = table.open("gm1", "feats"), table.open("p1", "feats")
    connected(gm, player)
    gm.evaluate(f"{API}.client.gm({{op: 'wyrd_grant', actor: 'actorAyla', amount: 12}})")
    player.wait_for_function(f"{API}.client.snapshot?.actors?.actorAyla?.wyrd === 12", timeout=15000)
    player.evaluate(f"{API}.roll({{actor: 'actorAyla', system: 'feats', label: 'Outrun the hounds'}})")
    dialog = player.locator(".verdict-roll-dialog")
    dialog.wait_for()
    dialog.locator(".verdict-odds-legend li").first.wait_for(timeout=15000)
    # What the check spends, as the rule set's vocabulary names it: the actor's Wyrd, priced by the odds.
    assert dialog.locator(".verdict-odds-spend").inner_text().strip() == "Wyrd cost: 0 / available: 12"
    assert dialog.locator("[data-spend-have]").inner_text() == "12"
    assert dialog.locator("[data-spend-cost]").inner_text() == "0"
    # A feat three levels up: 1 in 16 without Wyrd.
    dialog.locator("[name='field.difficulty']").fill("13")
    player.wait_for_selector(
        ".verdict-roll-dialog .verdict-odds-legend li[data-outcome=success] .exact:text-is('1/16')", timeout=15000
    )
    before = dialog.locator(".verdict-odds-legend").inner_text()
    dialog.locator("[name='field.wyrd']").fill("1")
    dialog.locator("[name='field.wyrd_dice'][value=red]").check()
    # The sidecar prices the purchase and the odds change with it.
    player.wait_for_selector(".verdict-roll-dialog [data-spend-cost]:text-is('5')", timeout=15000)
    assert dialog.locator(".verdict-odds-legend").inner_text() != before
    assert dialog.locator(".verdict-odds-legend li[data-outcome=success] .exact").inner_text() == "1/4"
    shot(player, ".verdict-roll-dialog", "dialog-feats-wyrd.png")
    dialog.locator("button[type=submit]").click()
    dialog.wait_for(state="detached")
    card = player.locator(".verdict-card[data-system='feats']")
    card.wait_for(timeout=15000)
    text = card.inner_text()
    assert "Bought with Wyrd" in text and "red" in text
    assert card.locator("dd:right-of(dt:has-text('Wyrd spent'))").first.inner_text() == "5"
    red = card.locator(".die.feat-red")
    assert red.inner_text() == "8" and "bought" in red.get_attribute("class")
    gm.wait_for_function(f"{API}.client.snapshot?.actors?.actorAyla?.wyrd === 7", timeout=15000)
    shot(player, ".chat-message:last-child", "card-feats-wyrd.png")


def test_each_viewer_draws_what_the_sidecar_says_is_open_to_them(table):
    """The roller draws the roller's follow-ups, the GM the Judge's, another player none; the shared chat
    document holds no control at all. A roller who comes back later asks the ledger for their list."""
    gm, player, bram = table.open("gm1", "flairs"), table.open("p1", "flairs"), table.open("p2", "flairs")
    connected(gm, player, bram)
    # A pair of 3s on a failure: one trial of the Judge's choice, and a bargain open to the roller.
    player.evaluate(
        f"{API}.client.roll({{check: {{system: 'flairs', rank: 2, dice: [3, 3]}}, actor: 'actorAyla', scene: 'scene1', label: 'Ford the river'}})"
    )
    sel = ".verdict-card[data-system='flairs']"
    name = f"{sel} [data-verdict-follow*='flairs_name_trials']"
    player.locator(f"{sel} .verdict-bargain").wait_for(timeout=15000)
    gm.locator(name).wait_for(timeout=15000)
    bram.locator(sel).wait_for(timeout=15000)
    assert player.locator(name).count() == 0
    assert gm.locator(f"{sel} .verdict-bargain").count() == 0, "the bargain is the roller's, not the GM's"
    assert bram.locator(f"{sel} .verdict-bargain").count() == 0 and bram.locator(name).count() == 0
    content = [m["content"] for m in table.messages() if "verdict-card" in m.get("content", "")]
    assert content and not any("data-verdict-follow" in c or "verdict-bargain" in c for c in content)
    # The Judge names the trial: nothing left for the Judge; the roller may still bargain.
    gm.locator(name).click()
    gm.wait_for_selector(f"{sel} dt:has-text('Trials named')", timeout=15000)
    gm.wait_for_function(f'document.querySelectorAll("{name}").length === 0', timeout=15000)
    player.wait_for_selector(f"{sel} dt:has-text('Trials named')", timeout=15000)
    # the shared document is drawn first, then the roller's own copy over it, with the bargain
    player.locator(f"{sel} .verdict-bargain").wait_for(timeout=15000)
    assert player.locator(f"{sel} .verdict-bargain").count() == 1
    # The roller leaves and comes back: the list comes from the ledger, for them.
    table.leave("p1")
    player = table.open("p1", "flairs")
    connected(player)
    player.locator(f"{sel} .verdict-bargain").wait_for(timeout=15000)
    assert player.locator(name).count() == 0


# Every verify request a page's client has in flight, settled; then a turn for its answer to be drawn.
VERIFIED = f"""async () => {{
  const asked = [...({API}.client._verifying?.values() ?? [])].map((v) => v.p.catch(() => null));
  await Promise.all(asked);
  await new Promise((r) => setTimeout(r, 0));
}}"""


def _honest_after_followup(pages, selector: str) -> None:
    """Each page has drawn the followed-up card and heard the ledger's word on it (every verify asked has
    been answered): no page marks it unverified, and the roller's and the GM's controls stay."""
    for page in pages:
        page.evaluate(VERIFIED)
        marker_card(page)
        page.evaluate(VERIFIED)
    for page in pages:
        card = page.locator(selector)
        assert card.count() == 1
        assert "unverified" not in (card.get_attribute("class") or ""), page.evaluate("document.body.dataset.user")
        assert card.locator(".verdict-unverified").count() == 0


def test_an_honest_card_stays_verified_after_the_bargain_on_every_page(table):
    gm, ayla, bram = table.open("gm1", "flairs"), table.open("p1", "flairs"), table.open("p2", "flairs")
    connected(gm, ayla, bram)
    ayla.evaluate(
        f"{API}.client.roll({{check: {{system: 'flairs', rank: 2, dice: [3, 2]}}, actor: 'actorAyla', scene: 'scene1', label: 'Pick the lock'}})"
    )
    sel = ".verdict-card[data-system='flairs']"
    bargain = ayla.locator(f"{sel} .verdict-bargain")
    bargain.wait_for(timeout=15000)
    bargain.locator("select[name=bargain-trial]").select_option("costly")
    bargain.locator("[data-verdict-bargain]").click()
    for page in (gm, ayla, bram):
        page.wait_for_selector(f"{sel} dd:has-text('Costly')", timeout=15000)
    _honest_after_followup((gm, ayla, bram), sel)


def test_an_honest_card_stays_verified_after_the_challenge_choice_on_every_page(table):
    gm, ayla, bram = table.open("gm1", "challenge"), table.open("p1", "challenge"), table.open("p2", "challenge")
    connected(gm, ayla, bram)
    # 19 (level 4) against CL 2: beaten by 2, the roller chooses a Game Changer or less Strain.
    ayla.evaluate(
        f"{API}.client.roll({{check: {{system: 'challenge', cl: 2, modifier: 0, dice: [19]}}, actor: 'actorAyla', scene: 'scene1', label: 'Vault the wall'}})"
    )
    sel = ".verdict-card[data-system='challenge']"
    choice = ayla.locator(f"{sel} [data-verdict-follow*='challenge_choice']").first
    choice.wait_for(timeout=15000)
    before = ayla.locator(sel).inner_text()
    choice.click()
    ayla.wait_for_function(
        f"!document.querySelector(\"{sel} [data-verdict-follow*='challenge_choice']\")", timeout=15000
    )
    assert ayla.locator(sel).inner_text() != before
    for page in (gm, bram):
        page.wait_for_function(
            "(seq) => game.messages.contents.some((m) => m.flags.verdict?.card?.seq === seq)",
            arg=ayla.evaluate(
                "game.messages.contents.find((m) => m.flags.verdict?.card?.label === 'Vault the wall').flags.verdict.card.seq"
            ),
            timeout=15000,
        )
    _honest_after_followup((gm, ayla, bram), sel)


def test_an_honest_card_stays_verified_after_the_judge_names_its_trials_on_every_page(table):
    gm, ayla, bram = table.open("gm1", "flairs"), table.open("p1", "flairs"), table.open("p2", "flairs")
    connected(gm, ayla, bram)
    # A pair of 3s on a failure: one trial of the Judge's choice.
    ayla.evaluate(
        f"{API}.client.roll({{check: {{system: 'flairs', rank: 2, dice: [3, 3]}}, actor: 'actorAyla', scene: 'scene1', label: 'Ford the river'}})"
    )
    sel = ".verdict-card[data-system='flairs']"
    name = gm.locator(f"{sel} [data-verdict-follow*='flairs_name_trials']")
    name.wait_for(timeout=15000)
    name.click()
    for page in (gm, ayla, bram):
        page.wait_for_selector(f"{sel} dt:has-text('Trials named')", timeout=15000)
    _honest_after_followup((gm, ayla, bram), sel)
    # the roller's own control is still there
    assert ayla.locator(f"{sel} .verdict-bargain").count() == 1
