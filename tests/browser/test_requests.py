"""GM roll requests that gather several people's rolls into one check, in local mode: the GM's request
card starts the check on the table, each participant's Roll button rolls their part (a prefilled,
locked dialog), and the card shows every part as it arrives and the whole check's outcome."""

from __future__ import annotations

import pytest

from .helpers import API, connected

pytestmark = pytest.mark.browser


def roll_part(page, faces: str) -> None:
    """Click this user's Roll button on the request card and roll with dice from the table."""
    buttons = page.locator(".verdict-request [data-verdict-part-roll]")
    assert buttons.count() == 1
    buttons.click()
    dialog = page.locator(".verdict-roll-dialog")
    dialog.wait_for()
    dialog.locator(".verdict-odds-legend li").first.wait_for(timeout=15000)
    # The part is the GM's: the dialog is prefilled and every field of the check is locked.
    assert dialog.locator("[name='system']").is_disabled()
    for field in dialog.locator("[name^='field.']").all():
        assert field.is_disabled()
    dialog.locator("[name='dice']").fill(faces)
    dialog.locator("button[type=submit]").click()
    dialog.wait_for(state="detached")


def test_a_group_check_gathers_every_participants_roll(table, shot):
    gm, ayla, bram = table.open("gm1", "flairs"), table.open("p1", "flairs"), table.open("p2", "flairs")
    connected(gm, ayla, bram)
    gm.click("#scene-controls [data-tool='verdict-request']")
    dialog = gm.locator(".verdict-roll-dialog")
    dialog.wait_for()
    dialog.locator("input[name=group]").check()
    rows = dialog.locator(".verdict-group-rows")
    rows.wait_for(timeout=15000)
    rows.locator("[data-player=p1] [name=rank]").fill("2")
    rows.locator("[data-player=p2] [name=rank]").fill("1")
    rows.locator("[data-player=p2] [name=edges]").fill("1")
    dialog.locator("input[name=trap]").check()
    dialog.locator("[name=label]").fill("Cross the trapped hall")
    # The odds are the whole group check's, asked of the sidecar.
    gm.wait_for_function(
        "document.querySelectorAll('.verdict-roll-dialog .verdict-odds-legend li').length === 2", timeout=15000
    )
    shot(gm, ".verdict-roll-dialog", "dialog-request-group.png")
    dialog.locator("button[type=submit]").click()
    dialog.wait_for(state="detached")

    for page in (gm, ayla, bram):
        page.wait_for_selector(".verdict-request[data-gather] li[data-part='Bram Ashdown']", timeout=15000)
    gid = gm.evaluate("game.messages.contents[0].flags.verdict.request.gather")
    snap = gm.evaluate(f"{API}.client.request({{type: 'state'}}).then(r => r.snapshot.gathers)")
    assert snap[gid]["parts"] == ["Ayla Thorn", "Bram Ashdown"]
    assert snap[gid]["check"]["group"][1] == {"name": "Bram Ashdown", "rank": 1, "edges": 1, "cuts": 0}
    assert snap[gid]["check"]["trap"] is True
    # Each player sees the Roll button of their own part only; the GM rolls none.
    assert gm.locator(".verdict-request [data-verdict-part-roll]").count() == 0
    assert ayla.get_attribute(".verdict-request [data-verdict-part-roll]", "data-verdict-part-roll") == "Ayla Thorn"
    assert bram.get_attribute(".verdict-request [data-verdict-part-roll]", "data-verdict-part-roll") == "Bram Ashdown"

    roll_part(ayla, "3, 2")
    for page in (gm, ayla, bram):
        row = page.locator(".verdict-request li[data-part='Ayla Thorn'].rolled")
        row.wait_for(timeout=15000)
        assert "Failure" in row.inner_text()
        assert page.locator(".verdict-request li[data-part='Bram Ashdown'] .waiting").count() == 1
        assert page.locator(".verdict-request .verdict-outcome").count() == 0
    assert ayla.locator(".verdict-request [data-verdict-part-roll]").count() == 0

    roll_part(bram, "2, 1")
    for page in (gm, ayla, bram):
        page.wait_for_selector(".verdict-request .verdict-outcome:has-text('Failure')", timeout=15000)
        assert page.locator(".verdict-request [data-springs-all]").inner_text() == "Bram Ashdown"
        assert page.locator(".verdict-request li.springs").count() == 1
        assert page.locator(".verdict-request li[data-part='Bram Ashdown'].springs [data-springs]").count() == 1
        assert page.locator(".verdict-request .verdict-dice .die").count() == 4
    # The parts are drawn on the request card, not as cards of their own; the GM wrote it.
    messages = [{"author": m["author"], "request": m["flags"]["verdict"]["request"]} for m in table.messages()]
    assert len(messages) == 1 and messages[0]["author"] == "gm1"
    request = messages[0]["request"]
    assert request["result"]["outcome"] == "failure" and request["result"]["springs"] == ["Bram Ashdown"]
    assert request["partRolls"]["Ayla Thorn"]["user"] == "p1"
    gm.wait_for_function(f"{API}.client.snapshot?.gathers?.['{gid}']?.result?.outcome === 'failure'", timeout=15000)
    shot(bram, ".chat-message:last-child", "card-request-group.png")


def test_an_opposed_check_gathers_both_sides(table, shot):
    gm, ayla = table.open("gm1", "boons"), table.open("p1", "boons")
    connected(gm, ayla)
    gm.click("#scene-controls [data-tool='verdict-request']")
    dialog = gm.locator(".verdict-roll-dialog")
    dialog.wait_for()
    dialog.locator("[name='field.check_type']").select_option("opposed")
    dialog.locator("[name='field.opponent_ability']").wait_for(timeout=15000)
    dialog.locator("[name='field.ability']").fill("1")
    dialog.locator("[name='field.trial']").fill("0")
    dialog.locator("[name='field.opponent_ability']").fill("1")
    dialog.locator("input[name=group]").check()
    dialog.locator("select[data-side=defender]").wait_for(timeout=15000)
    # By default the first player rolls the actor's side and the GM the defender's.
    assert dialog.locator("select[data-side=actor]").input_value() == "p1"
    assert dialog.locator("select[data-side=defender]").input_value() == "gm1"
    dialog.locator("[name=label]").fill("Arm wrestle")
    shot(gm, ".verdict-roll-dialog", "dialog-request-opposed.png")
    dialog.locator("button[type=submit]").click()
    dialog.wait_for(state="detached")

    for page in (gm, ayla):
        page.wait_for_selector(".verdict-request[data-gather] li[data-part='defender']", timeout=15000)
    assert gm.get_attribute(".verdict-request [data-verdict-part-roll]", "data-verdict-part-roll") == "defender"
    assert ayla.get_attribute(".verdict-request [data-verdict-part-roll]", "data-verdict-part-roll") == "actor"
    roll_part(ayla, "2")
    gm.wait_for_selector(".verdict-request li[data-part='actor'].rolled", timeout=15000)
    roll_part(gm, "2")
    for page in (gm, ayla):
        page.wait_for_selector(".verdict-request .verdict-outcome:has-text('Failure')", timeout=15000)
        # A tie goes to the defender.
        assert "the defender" in page.locator(".verdict-request .verdict-facts").last.inner_text()
    request = gm.evaluate("game.messages.contents[0].flags.verdict.request")
    assert request["result"]["winner"] == "defender"
    assert set(request["partRolls"]) == {"actor", "defender"}
    shot(ayla, ".chat-message:last-child", "card-request-opposed.png")
