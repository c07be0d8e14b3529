"""A seventh rule set with state of its own (`fortune`, tests/added_ruleset/site), installed as a package of its
own, drawn by the module's unchanged scripts from its drawing in the regenerated vocabulary: the GM grants
fortune points from the tracker, a player's roll spends them, and the tracker, the token and the sheet show
them; a player's page never shows the GM's controls, nor what a GM-only roll spent."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from .conftest import ROOT, ROUTES, Sidecar, StandinServer, Table
from .helpers import API, connected

pytestmark = pytest.mark.browser

SITE = ROOT / "tests" / "added_ruleset" / "site"
AYLA = "#board .token[data-actor='actorAyla']"
SHEET = "new standin.SimpleActorSheet(game.actors.get('actorAyla'), {id: 'sheet-ayla'}).render(true)"


def _path() -> str:
    return os.pathsep.join(p for p in (str(SITE), os.environ.get("PYTHONPATH", "")) if p)


@pytest.fixture(scope="module")
def fortune_module(tmp_path_factory):
    """The module's files as they are, its vocabulary regenerated with the package installed."""
    module = tmp_path_factory.mktemp("fortune") / "vtt-module"
    shutil.copytree(ROOT / "vtt-module", module)
    out = module / "scripts" / "generated" / "vocabulary.mjs"
    subprocess.run(
        [sys.executable, "-m", "sidecar.vocabulary", "--out", str(out)],
        env={**os.environ, "PYTHONPATH": _path()},
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    assert '"fortune_grant"' in out.read_text()
    # Only the vocabulary differs from the module as shipped.
    for path in (ROOT / "vtt-module").rglob("*"):
        if path.is_file() and path != ROOT / "vtt-module" / "scripts" / "generated" / "vocabulary.mjs":
            assert (module / path.relative_to(ROOT / "vtt-module")).read_bytes() == path.read_bytes(), path
    return module


@pytest.fixture(scope="module")
def fortune_standin(fortune_module):
    server = StandinServer({**ROUTES, "/modules/verdict/": fortune_module}, ROUTES["/standin/"] / "index.html")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def fortune_table(browser, fortune_standin, tmp_path, monkeypatch, generation):
    """A world in local mode whose sidecar has the package installed."""
    web = f"http://127.0.0.1:{fortune_standin.port}"
    monkeypatch.setenv("PYTHONPATH", _path())
    sidecar = Sidecar(data=tmp_path, origin=web)
    sidecar.start()
    try:
        sidecar.create_table()
        table = Table(browser, fortune_standin, web, sidecar, mode="local", generation=generation)
        yield table
        table.close()
    finally:
        sidecar.stop()


def _tracker(page):
    page.click("#scene-controls [data-tool='verdict-tracker']")
    tracker = page.locator(".verdict-tracker")
    tracker.wait_for()
    return tracker


def _fortune(page, value: int) -> None:
    page.wait_for_function(f"{API}.client.snapshot?.actors?.actorAyla?.fortune === {value}", timeout=15000)


@pytest.mark.generations(13, 14)
def test_fortune_is_granted_spent_and_drawn_on_tracker_token_and_sheet(fortune_table):
    gm, ayla = fortune_table.open("gm1", system="fortune"), fortune_table.open("p1", system="fortune")
    connected(gm, ayla)
    tracker, ptracker = _tracker(gm), _tracker(ayla)

    # The GM grants Ayla three points from her row of the tracker, though the table holds nothing of her yet.
    grant = tracker.get_by_role("group", name="Grant fortune points: Ayla Thorn")
    grant.get_by_label("Fortune points to grant").fill("3")
    grant.get_by_role("button", name="Grant fortune points").click()
    for page in (gm, ayla):
        _fortune(page, 3)
    row = ptracker.locator(".verdict-actor[data-actor='actorAyla']")
    row.locator("[data-fortune='3']").wait_for(timeout=15000)
    assert row.locator("[data-fortune]").inner_text().strip() == "Fortune 3"
    assert ptracker.locator("[data-action=fortuneGrant]").count() == 0, "a player's tracker has no GM control"
    assert "Grant fortune points" not in ptracker.inner_text()
    for page in (gm, ayla):
        page.wait_for_selector(f"{AYLA} .token-text[data-name='verdict-fortune']:has-text('Fortune 3')", timeout=15000)
    ayla.evaluate(SHEET)
    sheet = ayla.locator("#sheet-ayla .verdict-sheet")
    sheet.locator("dd[data-stat='fortune']").wait_for(timeout=15000)
    assert sheet.locator("dt:has(+ dd[data-stat='fortune'])").inner_text().strip() == "Fortune points"
    assert sheet.locator("dd[data-stat='fortune']").inner_text().strip() == "3"

    # Ayla's roll spends two of them from the dialog, which says the cost.
    ayla.evaluate(f"{API}.roll({{system: 'fortune', actor: 'actorAyla', label: 'Luck of the road'}})")
    dialog = ayla.locator(".verdict-roll-dialog")
    dialog.wait_for()
    dialog.locator("[name='field.spend']").fill("2")
    ayla.wait_for_selector(".verdict-roll-dialog [data-spend-cost]:text-is('2')", timeout=15000)
    dialog.locator("button[type=submit]").click()
    dialog.wait_for(state="detached")
    ayla.locator(".verdict-card[data-system='fortune']").wait_for(timeout=15000)
    for page in (gm, ayla):
        _fortune(page, 1)
        page.wait_for_selector(f"{AYLA} .token-text[data-name='verdict-fortune']:has-text('Fortune 1')", timeout=15000)
    row.locator("[data-fortune='1']").wait_for(timeout=15000)
    ayla.wait_for_selector("#sheet-ayla dd[data-stat='fortune']:text-is('1')", timeout=15000)
    tracker.locator(".verdict-actor[data-actor='actorAyla'] [data-fortune='1']").wait_for(timeout=15000)

    # A GM-only roll that spends Ayla's last point: the GM's tracker says so, the player's page never does.
    gm.evaluate(
        f"{API}.client.roll({{check: {{system: 'fortune', pool: 1, spend: 1, dice: [2, 6]}}, actor: 'actorAyla', scene: 'scene1', mode: 'gm', label: 'Behind the screen'}})"
    )
    _fortune(gm, 0)
    tracker.locator(".verdict-actor[data-actor='actorAyla'] [data-fortune]").wait_for(state="detached", timeout=15000)
    # One more public grant, heard by everyone, shows the player's page has not moved meanwhile.
    gm.evaluate(f"{API}.client.gm({{op: 'fortune_grant', actor: 'actorAyla', amount: 1}})")
    _fortune(gm, 1)
    _fortune(ayla, 2)
    row.locator("[data-fortune='2']").wait_for(timeout=15000)
    ayla.wait_for_selector("#sheet-ayla dd[data-stat='fortune']:text-is('2')", timeout=15000)
    assert "Behind the screen" not in ayla.content()
