"""A request for gm or blind rolls: its card never holds an outcome, since Foundry hands every chat message and
every module socket frame to every client. Who rolled shows to all the card's readers; the outcome only to
those who may see the roll (the GMs; the roller of a gm roll), drawn by their own browsers."""

from __future__ import annotations

import json

import pytest

from .helpers import API, connected, marker_card

pytestmark = pytest.mark.browser


def _post(gm, mode: str, label: str) -> None:
    gm.evaluate(
        f"{API}.postRequest({{system: 'facets', values: {{pool: 2}}, mode: {mode!r}, label: {label!r}, users: ['p1', 'p2']}})"
    )


def _roll_request(page, label: str, faces: str, mode: str | None = None) -> None:
    card = page.locator(f".verdict-request:has(.verdict-label:has-text('{label}'))")
    card.wait_for(timeout=15000)
    card.locator("[data-verdict-request-roll]").click()
    dialog = page.locator(".verdict-roll-dialog")
    dialog.wait_for()
    dialog.locator("[name='dice']").fill(faces)
    if mode:
        dialog.locator("[name='mode']").select_option(mode)
    dialog.locator("button[type=submit]").click()
    dialog.wait_for(state="detached")


def _chip(page, label: str, user: str):
    return page.locator(
        f".verdict-request:has(.verdict-label:has-text('{label}')) li[data-user='{user}'] .verdict-outcome-chip"
    )


def _shows_triumph(page) -> None:
    """Ayla's chip on this page's request card reads her outcome (drawn by this page from its own view)."""
    page.wait_for_function(
        "document.querySelector(\".verdict-request li[data-user='p1'] .verdict-outcome-chip\")?.textContent"
        " === 'Triumph'",
        timeout=15000,
    )


def _check_of(gm, label: str) -> str:
    gm.wait_for_function(
        f"game.messages.contents.some((m) => m.flags?.verdict?.request?.label === {label!r} && m.flags.verdict.request.rolls?.p1)",
        timeout=15000,
    )
    return gm.evaluate(
        f"game.messages.contents.find((m) => m.flags?.verdict?.request?.label === {label!r}).flags.verdict.request.rolls.p1.check"
    )


def _no_outcome_for(table, user: str, check: str) -> None:
    """No frame ``user``'s browser received pairs the check with an outcome (documents, socket frames, queries)."""
    for frame in table.delivered(user):
        if check not in frame:
            continue
        assert '"outcome":"triumph"' not in frame.replace(" ", "") and "Triumph" not in frame, (
            f"{user}'s browser received the outcome of {check}: {frame[:400]}"
        )


def _only_rolled(table, gm, page, user: str, label: str, check: str) -> None:
    """On ``page`` (``user``'s), Ayla's chip says only that she rolled, and no frame held how it went, still after
    a roll of ``gm``'s made later has been drawn there."""
    chip = _chip(page, label, "p1")
    chip.wait_for(timeout=15000)
    marker_card(gm, page)
    assert chip.inner_text().strip() == "rolled", user
    _no_outcome_for(table, user, check)


def test_a_gm_request_shows_each_outcome_only_to_who_may_see_it(table):
    gm, ayla, bram = table.open("gm1"), table.open("p1"), table.open("p2")
    connected(gm, ayla, bram)
    label = "Sense the lie"
    _post(gm, "gm", label)
    _roll_request(ayla, label, "6,6")  # a triumph
    check = _check_of(gm, label)
    # the document: who rolled and the check, no outcome
    stored = next(m for m in table.messages() if label in json.dumps(m))
    assert stored["flags"]["verdict"]["request"]["rolls"]["p1"]["outcome"] is None
    assert "Triumph" not in json.dumps(stored)
    # the GM and the roller see the outcome, drawn by their own browsers
    for page in (gm, ayla):
        _shows_triumph(page)
    # the other player sees that Ayla rolled, and nothing of how it went, in any frame
    _only_rolled(table, gm, bram, "p2", label, check)
    # after a reload the GM's browser asks the sidecar, and draws it again
    gm.reload()
    gm.wait_for_selector("body[data-ready='1']", timeout=15000)
    connected(gm)
    _shows_triumph(gm)


def test_a_blind_request_keeps_the_outcome_from_the_roller(table):
    gm, ayla, bram = table.open("gm1"), table.open("p1"), table.open("p2")
    connected(gm, ayla, bram)
    label = "Search the wreck"
    _post(gm, "blind", label)
    _roll_request(ayla, label, "6,6")
    check = _check_of(gm, label)
    _shows_triumph(gm)
    for page, user in ((ayla, "p1"), (bram, "p2")):
        _only_rolled(table, gm, page, user, label, check)


def test_a_public_request_rolled_in_secret_keeps_the_outcome_off_the_card(table):
    """The roller picks the gm mode in the request's dialog: the card is public, the roll is not."""
    gm, ayla, bram = table.open("gm1"), table.open("p1"), table.open("p2")
    connected(gm, ayla, bram)
    label = "Haggle with the smuggler"
    _post(gm, "public", label)
    _roll_request(ayla, label, "6,6", mode="gm")
    check = _check_of(gm, label)
    _shows_triumph(gm)
    _shows_triumph(ayla)
    _only_rolled(table, gm, bram, "p2", label, check)


def test_a_gathered_request_in_gm_mode_keeps_parts_and_the_whole_off_the_card(table):
    """A group check asked for in the gm mode: each part is the GM's (and its roller's) to see, and so is the
    whole check, which tells every part's faces. The card says who rolled; no frame a bystander gets more."""
    gm, ayla, bram = table.open("gm1", "flairs"), table.open("p1", "flairs"), table.open("p2", "flairs")
    connected(gm, ayla, bram)
    label = "Slip past the sentries"
    gm.evaluate(
        f"{API}.postRequest({{system: 'flairs', values: {{}}, group: true, mode: 'gm', label: {label!r},"
        " participants: [{name: 'Ayla Thorn', user: 'p1', rank: 3}, {name: 'Bram Ashdown', user: 'p2', rank: 1}]})"
    )
    for page, faces in ((ayla, "6, 5, 4"), (bram, "2")):
        page.wait_for_selector(".verdict-request[data-gather] [data-verdict-part-roll]", timeout=15000)
        page.locator(".verdict-request [data-verdict-part-roll]").click()
        dialog = page.locator(".verdict-roll-dialog")
        dialog.wait_for()
        dialog.locator("[name='dice']").fill(faces)
        dialog.locator("button[type=submit]").click()
        dialog.wait_for(state="detached")
        for viewer in (gm, ayla, bram):
            viewer.wait_for_selector(
                f".verdict-request li[data-part='{'Ayla Thorn' if page is ayla else 'Bram Ashdown'}'].rolled",
                timeout=15000,
            )
    gid = gm.evaluate(
        "game.messages.contents.find((m) => m.flags?.verdict?.request?.gather).flags.verdict.request.gather"
    )
    gm.wait_for_function(f"{API}.client.snapshot?.gathers?.['{gid}']?.result != null", timeout=15000)
    marker_card(gm, ayla, bram)
    request = next(m for m in table.messages() if label in json.dumps(m))["flags"]["verdict"]["request"]
    assert request["result"] is None
    for part in ("Ayla Thorn", "Bram Ashdown"):
        assert request["partRolls"][part]["dice"] == [] and request["partRolls"][part]["outcome"] is None
    for page in (gm, ayla, bram):
        assert page.locator(".verdict-request .verdict-outcome").count() == 0
        assert page.locator(".verdict-request li[data-part='Ayla Thorn'] .die").count() == 0
    for frame in table.delivered("p2"):
        squeezed = frame.replace(" ", "")
        assert "[6,5,4]" not in squeezed, f"Bram's browser received Ayla's faces: {frame[:400]}"
        assert "gather_resolved" not in squeezed, f"Bram's browser received the whole check: {frame[:400]}"
