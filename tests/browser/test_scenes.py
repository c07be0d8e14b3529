"""A player's roll is in the table's active scene, which follows Foundry's active scene.

The sidecar refuses a player's roll naming any scene but the table's active one. The module sends none from a
player (the sidecar fills in the active scene), and the relay keeps the table's active scene on the one the GM
activated in Foundry. A player who views another scene (pulled there, or looking around) still rolls in the
active one; the GM's roll is in the scene the GM views.
"""

from __future__ import annotations

import pytest

from .helpers import API, connected

pytestmark = pytest.mark.browser


def _table_scene(page, scene: str) -> None:
    page.wait_for_function(f"{API}.client.snapshot?.scene === {scene!r}", timeout=15000)


def _card_in(page, label: str, scene: str) -> bool:
    """The public card of the roll labelled ``label`` is drawn, and is in ``scene`` as the sidecar put it."""
    page.locator(f".verdict-card:has(.verdict-label:has-text('{label}'))").wait_for(timeout=15000)
    found = page.evaluate(
        "(label) => game.messages.contents.map((m) => m.flags?.verdict?.card).find((c) => c?.label === label)?.scene",
        label,
    )
    return found == scene


@pytest.mark.parametrize("mode", ["local", "server"])
def test_a_player_rolls_in_the_active_scene_whatever_scene_they_view(request, generation, mode):
    table = request.getfixturevalue("table" if mode == "local" else "server_table")
    gm, ayla = table.open("gm1"), table.open("p1")
    connected(gm, ayla)
    _table_scene(gm, "scene1")  # the relay set the table's active scene from Foundry's

    # Ayla looks at the crypt; the mill is the active scene. Her rolls, from the API and the dialog, are in the mill.
    ayla.evaluate("standin.viewScene('scene2')")
    rolled = ayla.evaluate(
        f"{API}.roll({{dialog: false, actor: 'actorAyla', system: 'facets', label: 'Peer into the dark'}})"
        ".then((r) => r.scene)"
    )
    assert rolled == "scene1"
    ayla.evaluate(f"{API}.roll({{actor: 'actorAyla', system: 'facets', label: 'Light a torch'}})")
    dialog = ayla.locator(".verdict-roll-dialog")
    dialog.wait_for()
    dialog.locator("button[type=submit]").click()
    dialog.wait_for(state="detached")
    assert not ayla.locator(".notification.error").count()
    for label in ("Peer into the dark", "Light a torch"):
        assert _card_in(gm, label, "scene1"), label

    # The GM activates the crypt: the table follows, and so do the players' rolls.
    gm.evaluate("standin.activateScene('scene2')")
    _table_scene(gm, "scene2")
    ayla.evaluate("standin.viewScene('scene1')")
    rolled = ayla.evaluate(
        f"{API}.roll({{dialog: false, actor: 'actorAyla', system: 'facets', label: 'Open the tomb'}})"
        ".then((r) => r.scene)"
    )
    assert rolled == "scene2"
    # The GM's own roll is in the scene the GM views, whichever it is.
    gm.evaluate("standin.viewScene('scene1')")
    rolled = gm.evaluate(
        f"{API}.roll({{dialog: false, system: 'facets', label: 'The mill wheel turns'}}).then((r) => r.scene)"
    )
    assert rolled == "scene1"
    # What Ayla's browser sent never named a scene, in server mode straight to the sidecar.
    if mode == "server":
        rolls = [f for f in table.sent["p1"] if '"type":"roll"' in f.replace(" ", "")]
        assert rolls and all('"scene":null' in f.replace(" ", "") for f in rolls), rolls
