"""What the browser tests share: the module's API handle, waiting for connections, the tracker."""

from __future__ import annotations

import itertools

API = "game.modules.get('verdict').api"


def connected(*pages) -> None:
    """Wait until each page's status light says the sidecar is connected, and the relay among them has set the
    table's active scene to Foundry's (a player's roll is in that scene)."""
    for page in pages:
        page.wait_for_selector("#verdict-status[data-state='open']", timeout=15000)
        page.wait_for_function(ACTIVE_SCENE_SET, timeout=15000)


ACTIVE_SCENE_SET = f"""() => {{
  const c = {API}.client, active = game.scenes.active;
  return !active || !c.isRelay || !c.own || c.gmBlocked() !== null || c.snapshot?.scene === active.id;
}}"""


def add_complications(gm, hidden: str, revealed: str):
    """From the GM's tracker: one hidden complication, then one revealed. Returns the tracker."""
    gm.click("#scene-controls [data-tool='verdict-tracker']")
    tracker = gm.locator(".verdict-tracker")
    tracker.wait_for()
    tracker.locator(".verdict-add [name=text]").fill(hidden)
    tracker.locator(".verdict-add [data-action=add]").click()
    tracker.locator(".verdict-complication.is-hidden").wait_for(timeout=15000)
    tracker.locator(".verdict-add [name=text]").fill(revealed)
    tracker.locator(".verdict-add [name=hidden]").uncheck()
    tracker.locator(".verdict-add [data-action=add]").click()
    gm.wait_for_function(
        "document.querySelectorAll('.verdict-tracker .verdict-complication').length === 2", timeout=15000
    )
    return tracker


# Every marker roll's label starts so (a card with it is a marker's, not the test's); each has its own number.
MARKER = "Marker roll #"
_markers = itertools.count(1)


def marker_card(roller, *watchers) -> str:
    """Prove an absence by a round trip instead of a time: ``roller`` makes a public roll after whatever must
    not show, and this returns once every page in ``watchers`` draws its card. Each page hears the sidecar, the
    relay and the Foundry server over sockets that keep order, so what was on its way before the marker has
    been handled by then. Returns the marker's label."""
    label = f"{MARKER}{next(_markers)} ends"
    roller.evaluate(f"{API}.client.roll({{check: {{system: 'facets', pool: 1}}, label: {label!r}}})")
    for page in (roller, *watchers):
        page.wait_for_selector(f".verdict-card .verdict-label:has-text({label!r})", timeout=15000)
    return label


def socket_marker(sender, *receivers, name: str = "marker") -> None:
    """The same on the module socket: ``sender`` emits a frame of a type the module ignores after the frames
    under test, and this returns once every page in ``receivers`` has heard it (Foundry relays a socket's
    frames in order, and each page's handlers run in the order they were registered: the module's first)."""
    for page in receivers:
        page.evaluate(
            """(name) => { window.__markers ??= [];
              game.socket.on("module.verdict", (data) => { if (data?.t === name) window.__markers.push(name); }); }""",
            name,
        )
    sender.evaluate("(name) => game.socket.emit('module.verdict', {v: 1, t: name})", name)
    for page in receivers:
        page.wait_for_function("(name) => (window.__markers ?? []).includes(name)", arg=name, timeout=15000)
