"""Foundry as tables run it: Simple Worldbuilding's ApplicationV1 sheets, unlinked tokens of one base actor,
two worlds on one Foundry server, Dice So Nice, the hotbar, the combat tracker's defeated mark."""

from __future__ import annotations

import copy

import pytest

from .helpers import API, connected

pytestmark = pytest.mark.browser

GOB1, GOB2 = "Scene.scene1.Token.tokGob1", "Scene.scene1.Token.tokGob2"


def test_a_v1_sheet_has_the_roll_button_and_it_opens_the_dialog_for_its_actor(table):
    gm, ayla = table.open("gm1", "challenge"), table.open("p1", "challenge")
    connected(gm, ayla)

    def open_v1(page, actor: str):
        page.evaluate(f"new standin.SimpleActorSheet(game.actors.get('{actor}'), {{id: 'v1-{actor}'}}).render(true)")
        return page.locator(f"#v1-{actor}")

    # a button in the header of the user's own character's sheet, not on another's
    assert open_v1(ayla, "actorBram").locator(".header-button.verdict-roll").count() == 0
    button = open_v1(ayla, "actorAyla").locator(".header-button.verdict-roll")
    assert button.count() == 1
    assert "Verdict roll" in button.inner_text()
    button.click()
    dialog = ayla.locator(".verdict-roll-dialog")
    dialog.wait_for(timeout=15000)
    assert "Ayla Thorn" in dialog.locator(".window-title").inner_text()
    # the GM's V1 sheet of Bram rolls for Bram
    open_v1(gm, "actorBram").locator(".header-button.verdict-roll").click()
    gm_dialog = gm.locator(".verdict-roll-dialog")
    gm_dialog.wait_for(timeout=15000)
    assert "Bram Ashdown" in gm_dialog.locator(".window-title").inner_text()


@pytest.mark.generations(13, 14)
def test_two_unlinked_goblins_keep_their_own_strain_and_markers(table):
    gm = table.open("gm1", "challenge")
    ayla = table.open("p1", "challenge")
    connected(gm, ayla)
    # The token HUD of each goblin rolls for that goblin's synthetic actor (the token's uuid at the table).
    gm.evaluate(
        """() => {
          for (const id of ["tokGob1", "tokGob2"]) {
            const token = canvas.tokens.placeables.find((t) => t.id === id);
            const hud = document.createElement("div");
            hud.id = "hud-" + id;
            hud.style.cssText = `position: fixed; left: ${id === "tokGob1" ? 420 : 520}px; top: 320px; z-index: 10000`;
            hud.innerHTML = '<div class="col left"></div>';
            document.body.append(hud);
            Hooks.callAll("renderTokenHUD", {object: token, actor: token.actor}, hud);
          }
        }"""
    )
    gm.locator("#hud-tokGob1 [data-action='verdictRoll']").click()
    dialog = gm.locator(".verdict-roll-dialog")
    dialog.wait_for(timeout=15000)
    assert "Goblin Ears" in dialog.locator(".window-title").inner_text()
    dialog.locator(".window-header [data-action=close]").click()
    # the first goblin fails by two levels (+3 strain), then rolls a natural 1 (a condition); the second a success
    for actor, faces, label in ((GOB1, 5, "Ears holds"), (GOB1, 1, "Ears slips"), (GOB2, 19, "Nose holds")):
        gm.evaluate(
            f"{API}.client.roll({{check: {{system: 'challenge', cl: 3, modifier: 0, dice: [{faces}]}}, actor: '{actor}', label: '{label}'}})"
        )
    ears, nose = "#board .token[data-token='tokGob1']", "#board .token[data-token='tokGob2']"
    for page in (gm, ayla):
        page.wait_for_selector(f"{ears} .token-text[data-name='verdict-strain']:has-text('3')", timeout=15000)
        page.wait_for_selector(f"{ears} [data-status='verdict-condition']", timeout=15000)
        page.wait_for_selector(".verdict-card:has(.verdict-label:has-text('Nose holds'))", timeout=15000)
        assert page.locator(f"{nose} [data-status]").count() == 0
        assert page.locator(f"{nose} .token-text").count() == 0
        assert page.locator("#board .token[data-token='tokGob3'] [data-status]").count() == 0
    # the sidecar holds each goblin apart, and the base actor is untouched
    actors = gm.evaluate(f"{API}.client.snapshot.actors")
    assert actors[GOB1]["strain"] == 3 and actors[GOB1]["conditions"]
    assert GOB2 not in actors or (actors[GOB2]["strain"] == 0 and not actors[GOB2]["conditions"])
    assert "actorGoblin" not in actors
    assert gm.evaluate("game.actors.get('actorGoblin').statuses.size") == 0
    assert gm.evaluate("game.actors.get('actorGoblin').getFlag('verdict', 'strain') ?? 0") == 0
    # each goblin's card speaks as that goblin
    assert (
        gm.locator(".chat-message:has(.verdict-label:has-text('Nose holds')) .message-sender").inner_text()
        == "Goblin Nose"
    )


@pytest.mark.generations(13, 14)
def test_taken_down_is_foundrys_defeated_status(table):
    gm = table.open("gm1", "challenge")
    connected(gm)
    # four epic failures: the fourth condition takes Bram down
    for n in range(4):
        gm.evaluate(
            f"{API}.client.roll({{check: {{system: 'challenge', cl: 3, modifier: 0, dice: [1]}}, actor: 'actorBram', label: 'Fall {n}'}})"
        )
    gm.wait_for_selector("#board .token[data-actor='actorBram'] [data-status='dead']", timeout=15000)
    gm.wait_for_selector("#combatants .combatant[data-token='tokBram'].defeated", timeout=15000)


def test_two_worlds_on_one_server_keep_their_own_gm_keys(browser, standin, web, sidecar_process, generation, shot):
    """One GM browser, two campaigns on one Foundry server: each world has its own table and GM key, kept in
    that world's user setting; an old client-scope key is moved once, into one world, and shown nowhere."""
    from .conftest import Table

    sidecar_process.create_table()
    a = Table(browser, standin, web, copy.copy(sidecar_process), "local", generation)
    a_key = sidecar_process.gm_key
    sidecar_process.create_table()
    b = Table(browser, standin, web, sidecar_process, "local", generation)
    assert a.sidecar.table != b.sidecar.table
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    try:
        # world A: the key as an older version kept it, in this browser's storage for the whole server
        context.add_init_script(
            f"if (!localStorage.getItem('seeded')) {{ localStorage.setItem('seeded', '1'); localStorage.setItem('verdict.gmKey', JSON.stringify({a_key!r})); }}"
        )
        page_a = a.open("gm1", "facets", gm_key=False, context=context)
        connected(page_a)
        assert page_a.evaluate("localStorage.getItem('verdict.gmKey')") is None
        assert standin.call(lambda: a.world.settings.get("gm1:verdict.gmKey")) == a_key
        # world B on the same server, same browser: it does not pick up A's key
        page_b = b.open("gm1", "facets", gm_key=False, context=context)
        page_b.wait_for_selector("#verdict-status[data-state='offline']", timeout=15000)
        assert page_b.evaluate("game.settings.get('verdict', 'gmKey')") == ""
        # the GM enters B's key in its form: a password field, never filled with the key
        page_b.evaluate("standin.openSettingsMenu('verdict.gmKeyMenu')")
        form = page_b.locator("#verdict-gm-key")
        form.wait_for(timeout=15000)
        assert form.locator("input[name=key]").get_attribute("type") == "password"
        shot(page_b, "#verdict-gm-key", f"settings-gm-key-{generation}.png")
        form.locator("input[name=key]").fill(sidecar_process.gm_key)
        form.locator("button[type=submit]").click()
        connected(page_b)
        page_b.evaluate("standin.openSettingsMenu('verdict.gmKeyMenu')")
        form = page_b.locator("#verdict-gm-key")
        form.locator(".verdict-gm-key-state[data-set='true']").wait_for(timeout=15000)
        assert form.locator("input[name=key]").input_value() == ""
        assert sidecar_process.gm_key not in page_b.content()
        # both worlds connected at once with their own keys; A still has its own
        page_a.reload()
        page_a.wait_for_selector("body[data-ready='1']", timeout=15000)
        connected(page_a)
        assert page_a.evaluate("game.settings.get('verdict', 'gmKey')") == a_key
        # a player of world B never receives the GM's user setting
        bram = b.open("p2", "facets")
        bram.wait_for_selector("body[data-ready='1']")
        assert not [f for f in b.delivered("p2") if sidecar_process.gm_key in f or a_key in f]
    finally:
        for t in (a, b):
            for user, page in t.pages.items():
                t._check(user, page)
        for c in {id(c): c for t in (a, b) for c in t.contexts.values()}.values():
            c.close()


def test_a_sidecar_that_does_not_answer_is_explained_once(table):
    """Nothing listens at the sidecar URL: one notification says so and what to check (the same rule names
    Chrome's local-network prompt, its denial and mixed content, see tests/js/local-network.test.mjs)."""
    table.open("gm1")  # the world exists
    table.standin.call(table.world.settings.__setitem__, "verdict.url", "http://127.0.0.1:9")
    gm2 = table.open("gm2", gm_key=True)
    gm2.wait_for_function(
        "window.__notes.some((n) => n.text.includes('nothing answers at http://127.0.0.1:9'))", timeout=20000
    )
    gm2.wait_for_selector("#verdict-status .reason:has-text('nothing answers')", timeout=20000)
    # the connection keeps trying; the notification is not repeated
    gm2.wait_for_function(f"{API}.client.own.attempt >= 2", timeout=30000)
    assert gm2.evaluate("window.__notes.filter((n) => n.text.includes('nothing answers')).length") == 1


def test_a_players_cards_are_authored_by_the_player(table):
    """The relay writes a player's card as that player's (a GM may create a message for another author); a
    card only the GMs may read stays the relay's; every card is still drawn as verified."""
    gm, ayla, bram = table.open("gm1"), table.open("p1"), table.open("p2")
    connected(gm, ayla, bram)
    for mode, label in (("public", "Open hand"), ("gm", "Quiet hand"), ("blind", "Hidden hand")):
        ayla.evaluate(
            f"{API}.client.roll({{check: {{system: 'facets', pool: 2}}, actor: 'actorAyla', mode: '{mode}', label: '{label}'}})"
        )
    gm.wait_for_function(
        "document.querySelectorAll('#chat-log .verdict-card:not(.verdict-shell) .verdict-label').length === 3",
        timeout=20000,
    )
    # the blind roll's trace for its roller is a message of its own, written after the cards may be drawn
    table.wait(
        lambda: any("trace" in m["flags"].get("verdict", {}) for m in table.world.messages),
        "the relay wrote the blind roll's trace",
    )
    authors = {}
    for m in table.messages():
        flags = m["flags"].get("verdict", {})
        kind = "trace" if "trace" in flags else flags.get("card", {}).get("mode")
        authors[kind] = m["author"]
    assert authors == {"public": "p1", "gm": "p1", "blind": "gm1", "trace": "p1"}
    assert {m["creator"] for m in table.messages()} == {"gm1"}  # the relay wrote them all
    for page in (gm, ayla, bram):
        page.wait_for_selector("#chat-log .verdict-card .verdict-label:has-text('Open hand')", timeout=15000)
        assert page.locator(".verdict-card.unverified").count() == 0
    # a card Bram writes with the flags of Ayla's is no card of hers: marked unverified everywhere
    bram.evaluate(
        """() => { const real = game.messages.contents.find((m) => m.flags.verdict?.card?.mode === 'public');
          return ChatMessage.create({content: real.content, flags: {verdict: {card: {...real.flags.verdict.card, result: {...real.flags.verdict.card.result, outcome: 'triumph'}}}}}); }"""
    )
    for page in (gm, ayla):
        page.wait_for_selector("#chat-log .verdict-card.unverified", timeout=15000)
        assert page.locator("#chat-log .verdict-card.unverified").count() == 1


def test_the_trackers_extended_check_form_lays_out_in_rows(table, shot):
    """Each control keeps a control's height (not a flex basis turned into height), the numbers side by side."""
    gm = table.open("gm1", "boons")
    connected(gm)
    gm.click("#scene-controls [data-tool='verdict-tracker']")
    form = gm.locator(".verdict-tracker .verdict-extended-form")
    form.wait_for(timeout=15000)
    boxes = form.evaluate(
        "(f) => [...f.querySelectorAll('input, select')].map((e) => ({name: e.name, h: e.getBoundingClientRect().height, top: Math.round(e.getBoundingClientRect().top)}))"
    )
    for box in boxes:
        assert box["h"] < 40, box
    numbers = [b["top"] for b in boxes if b["name"] in ("threshold", "trial", "limit")]
    assert len(set(numbers)) == 1, boxes
    shot(gm, ".verdict-tracker", "tracker-extended-form.png")


def test_a_window_closed_while_it_renders_throws_nothing(table):
    """A render under way when its window closes (an odds reply landing as the GM closes the dialog) finds no
    element: as in Foundry, whose close does not wait for a render in flight. Each of the module's windows then
    draws nothing and throws nothing (the page's errors are checked when the world closes)."""
    gm = table.open("gm1", "challenge")
    connected(gm)
    raced = gm.evaluate(
        f"""async () => {{
          const api = {API};
          const dialog = await api.roll({{system: 'challenge', label: 'Raced'}});
          const request = await api.prepareRequest();
          const renders = [dialog, request].map((app) => app.render({{ force: true }}));
          await Promise.all([dialog.close(), request.close()]);
          const settled = await Promise.allSettled(renders);
          return [dialog.element, request.element, settled.map((r) => r.status === 'rejected' ? String(r.reason) : 'ok')];
        }}"""
    )
    assert raced == [None, None, ["ok", "ok"]]


def test_a_v2_sheets_header_controls_are_built_once_and_keep_the_verdict_roll(table):
    """A V2 frame builds its header controls at its first render (the `getHeaderControls` hooks run then), not
    each time the menu opens: the Verdict entry is there, once, however often the menu is opened, and after the
    sheet renders again."""
    gm, ayla = table.open("gm1", "challenge"), table.open("p1", "challenge")
    connected(gm, ayla)
    ayla.evaluate(
        """() => { window.__built = 0; Hooks.on('getHeaderControlsActorSheetV2', () => { window.__built += 1; });
          window.__sheet = new standin.ActorSheet({document: game.actors.get('actorAyla'), id: 'sheet-once'});
          return window.__sheet.render({force: true}); }"""
    )
    sheet = ayla.locator("#sheet-once")
    toggle = sheet.locator("[data-action=toggleControls]")
    for _ in range(3):  # open, close, open
        toggle.click()
    ayla.evaluate("window.__sheet.render()")
    assert ayla.evaluate("window.__built") == 1
    entry = sheet.locator(".controls-dropdown [data-action='verdictRoll']")
    assert entry.count() == 1 and entry.is_visible()
    entry.click()
    ayla.locator(".verdict-roll-dialog").wait_for(timeout=15000)
