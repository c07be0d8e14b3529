"""What the browser tests share: the module's API handle, waiting for connections, the tracker."""

from __future__ import annotations

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
