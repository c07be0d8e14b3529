"""A sixth rule set added as a package of its own (`omen`, tests/added_ruleset/site) is rolled from the GM's
dialog and drawn as a card, in a real browser, by the module's unchanged scripts: only its generated
vocabulary is regenerated, with the package installed, as `make schema` would. The sidecar runs with the
package on its path; every other test's sidecar and stand-in keep the five shipped rule sets.
"""

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


def _path() -> str:
    return os.pathsep.join(p for p in (str(SITE), os.environ.get("PYTHONPATH", "")) if p)


@pytest.fixture(scope="module")
def omen_module(tmp_path_factory):
    """The module's files as they are, its vocabulary regenerated with the package installed."""
    module = tmp_path_factory.mktemp("omen") / "vtt-module"
    shutil.copytree(ROOT / "vtt-module", module)
    out = module / "scripts" / "generated" / "vocabulary.mjs"
    subprocess.run(
        [sys.executable, "-m", "sidecar.vocabulary", "--out", str(out)],
        env={**os.environ, "PYTHONPATH": _path()},
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    assert '"omen"' in out.read_text()
    return module


@pytest.fixture(scope="module")
def omen_standin(omen_module):
    """A stand-in Foundry serving that copy of the module."""
    server = StandinServer({**ROUTES, "/modules/verdict/": omen_module}, ROUTES["/standin/"] / "index.html")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def omen_table(browser, omen_standin, tmp_path, monkeypatch, generation):
    """A world in local mode whose sidecar has the package installed."""
    web = f"http://127.0.0.1:{omen_standin.port}"
    monkeypatch.setenv("PYTHONPATH", _path())
    sidecar = Sidecar(data=tmp_path, origin=web)
    sidecar.start()
    try:
        sidecar.create_table()
        table = Table(browser, omen_standin, web, sidecar, mode="local", generation=generation)
        yield table
        table.close()
    finally:
        sidecar.stop()


def test_a_card_of_the_added_rule_set(omen_table):
    gm = omen_table.open("gm1", system="omen")
    connected(gm)
    gm.evaluate(f"{API}.roll({{system: 'omen', label: 'An omen'}})")
    dialog = gm.locator(".verdict-roll-dialog")
    dialog.wait_for()
    # the dialog's field, its preset and its odds come from the vocabulary and the sidecar
    assert dialog.locator("select[name=system] option[value=omen]").count() == 1
    assert dialog.locator("input[name='field.sign']").input_value() == "4"
    dialog.locator(".verdict-odds-legend li").first.wait_for(timeout=15000)
    assert dialog.locator(".verdict-odds-legend").inner_text().count("%") == 2
    dialog.locator("button[type=submit]").click()
    dialog.wait_for(state="detached")
    card = gm.locator(".verdict-card[data-system='omen']")
    card.wait_for(timeout=15000)
    assert card.get_attribute("data-outcome") in ("good", "ill")
    assert card.locator(".verdict-dice .die.d6").count() == 1

    gm.evaluate(f"{API}.client.roll({{check: {{system: 'omen', sign: 3, dice: [6]}}, label: 'Given'}})")
    given = gm.locator(".verdict-card[data-system='omen'][data-outcome='good']").filter(has_text="Given")
    given.wait_for(timeout=15000)
    assert "tone-good" in given.get_attribute("class")
    assert given.locator(".verdict-system").text_content().strip() == "omen"
    assert given.locator(".verdict-outcome").text_content().strip() == "good"
    assert given.locator(".die.max").inner_text().strip() == "6"
    assert given.locator(".verdict-facts dt").text_content().strip() == "Margin"
    assert given.locator(".verdict-facts dd").inner_text().strip() == "+3"
