"""Cards survive F5 and a late join. Foundry draws the chat messages it holds before `ready` (the stand-in
does so too): every card drawn then, and every element of it (v14's notifications pane, a popped-out log),
is drawn again from its viewer's own copy once the client is connected."""

from __future__ import annotations

import json

import pytest

from .helpers import API, connected

pytestmark = pytest.mark.browser

# What a viewer sees of each Verdict message in a list of messages: content, dice, outcome and controls.
FINGERPRINT = """(sel) => [...document.querySelectorAll(sel + ' .chat-message')].map((li) => {
  const c = li.querySelector('.verdict-card, .verdict-trace');
  if (!c) return null;
  return {
    trace: c.classList.contains('verdict-trace'),
    shell: c.classList.contains('verdict-shell'),
    label: c.querySelector('.verdict-label, .verdict-trace-label')?.textContent.trim() ?? null,
    dice: c.querySelectorAll('.verdict-dice .die').length,
    outcome: c.querySelector('.verdict-outcome')?.textContent.trim() ?? null,
    controls: [...c.querySelectorAll('button, select')].map((b) => b.dataset.verdictFollow ?? (b.name || Object.keys(b.dataset).join(','))).sort(),
    unverified: c.classList.contains('unverified'),
  };
})"""


def fingerprint(page, sel: str = "#chat-log") -> list:
    return page.evaluate(FINGERPRINT, sel)


def wait_same(page, expected: list, sel: str = "#chat-log") -> None:
    """Wait until the page draws its messages exactly as ``expected``."""
    want = json.dumps(expected, separators=(",", ":"), ensure_ascii=False)
    try:
        page.wait_for_function(
            f"(want) => JSON.stringify(({FINGERPRINT})({json.dumps(sel)})) === want", arg=want, timeout=20000
        )
    except Exception:
        assert fingerprint(page, sel) == expected


def _roll_four(ayla) -> None:
    """Ayla rolls a public failure (a devil's bargain is hers to take), a gm, a blind and a self roll."""
    for mode, label, dice in (
        ("public", "Pick the lock", [3, 2]),
        ("gm", "Whisper to the guard", [6, 4]),
        ("blind", "Listen at the door", [5, 1]),
        ("self", "Count the coins", [2, 2]),
    ):
        ayla.evaluate(
            f"{API}.client.roll({{check: {{system: 'flairs', rank: 2, dice: {dice}}}, actor: 'actorAyla', mode: '{mode}', label: '{label}'}})"
        )


def _settled(gm, ayla, bram) -> None:
    """Every card drawn whole for its viewers."""
    gm.wait_for_function(
        "document.querySelectorAll('#chat-log .verdict-card:not(.verdict-shell) .verdict-dice .die').length >= 6",
        timeout=20000,
    )
    ayla.wait_for_function(
        "document.querySelectorAll('#chat-log .verdict-card:not(.verdict-shell) .verdict-label').length === 3"
        " && document.querySelector('#chat-log .verdict-trace-label') !== null",
        timeout=20000,
    )
    bram.wait_for_selector("#chat-log .verdict-card[data-system='flairs'] .verdict-dice .die", timeout=20000)


def _reload(page) -> None:
    page.reload()
    page.wait_for_selector("body[data-ready='1']", timeout=15000)


@pytest.mark.parametrize("mode", ["local", "server"])
def test_f5_restores_every_card_for_gm_roller_and_other_players(request, generation, mode):
    table = request.getfixturevalue("table" if mode == "local" else "server_table")
    gm, ayla, bram = table.open("gm1", "flairs"), table.open("p1", "flairs"), table.open("p2", "flairs")
    connected(gm, ayla, bram)
    _roll_four(ayla)
    _settled(gm, ayla, bram)
    before = {name: fingerprint(page) for name, page in (("gm", gm), ("ayla", ayla), ("bram", bram))}
    # the roller's bargain and the GM's own controls are on the cards before the reload
    assert any(
        "flairs_bargain" in " ".join(c["controls"]) or "bargain-trial" in c["controls"] for c in before["ayla"] if c
    )
    assert any(c and c["label"] == "Whisper to the guard" for c in before["gm"])
    for name, page in (("gm", gm), ("ayla", ayla), ("bram", bram)):
        _reload(page)
        # drawn before `ready`: the old messages are on the page before the client is up
        assert page.locator("#chat-log .chat-message").count() == len(before[name])
    connected(gm, ayla, bram)
    for name, page in (("gm", gm), ("ayla", ayla), ("bram", bram)):
        wait_same(page, before[name])


def test_a_late_joining_roller_sees_every_card_whole(table):
    gm, ayla, bram = table.open("gm1", "flairs"), table.open("p1", "flairs"), table.open("p2", "flairs")
    connected(gm, ayla, bram)
    _roll_four(ayla)
    _settled(gm, ayla, bram)
    before = fingerprint(ayla)
    gm_before = fingerprint(gm)
    # Ayla leaves and comes back in a browser that never saw the cards; a second GM joins late too.
    table.leave("p1")
    ayla = table.open("p1", "flairs")
    gm2 = table.open("gm2", "flairs", gm_key=True)
    connected(ayla, gm2)
    wait_same(ayla, before)
    # the blind roll's trace is the roller's (and its author's, the relay's): not the other GM's to see
    wait_same(gm2, [c for c in gm_before if c and not c["trace"]])


@pytest.mark.generations(13, 14)
def test_a_card_drawn_in_several_elements_keeps_every_copy_current(table):
    """The log, v14's notifications pane and a popped-out log each hold a copy; a follow-up updates them all,
    and F5 with the cards on screen draws each of them whole again."""
    gm, ayla = table.open("gm1", "flairs"), table.open("p1", "flairs")
    connected(gm, ayla)
    ayla.evaluate("standin.popoutChat(); standin.collapseSidebar()")
    ayla.evaluate(
        f"{API}.client.roll({{check: {{system: 'flairs', rank: 2, dice: [3, 2]}}, actor: 'actorAyla', mode: 'gm', label: 'Pick the lock'}})"
    )
    popout = (
        ayla.frame_locator("#chat-popout-window") if table.generation >= 14 else ayla.locator("#chat-popout-window")
    )
    lists = [ayla.locator("#chat-log"), popout.locator("#chat-popout-log")]
    if table.generation >= 14:
        lists.append(ayla.locator("#chat-notifications"))
    for where in lists:
        where.locator(".verdict-card:has(.verdict-label:has-text('Pick the lock')) .verdict-bargain").wait_for(
            timeout=20000
        )
    card = ayla.locator("#chat-log .verdict-card .verdict-bargain")
    card.locator("select[name=bargain-trial]").select_option("costly")
    card.locator("[data-verdict-bargain]").click()
    for where in lists:
        copy = where.locator(".verdict-card:has(.verdict-label:has-text('Pick the lock'))")
        copy.locator("dd:has-text('Costly')").first.wait_for(timeout=20000)
        assert copy.locator(".verdict-dice .die").count() == 3
        assert copy.locator(".verdict-bargain").count() == 0
