"""The *Sidecar URL* setting as a GM pastes it: what `verdict serve` printed without its scheme, the manifest
URL, the websocket URL — saved as the sidecar's address, and connected; what cannot be one, refused with a warning and the last address put back."""

from __future__ import annotations

import pytest

from .helpers import connected

pytestmark = pytest.mark.browser


def _paste(page, value: str) -> None:
    page.evaluate("(v) => game.settings.set('verdict', 'url', v)", value)


def test_what_a_gm_pastes_is_saved_as_the_sidecars_address_and_connects(table):
    gm = table.open("gm1")
    connected(gm)
    base = table.sidecar.url  # http://127.0.0.1:PORT, as the banner prints it
    for pasted in (
        base.removeprefix("http://"),
        f"{base}/module/module.json",
        base.replace("http://", "ws://") + "/ws",
    ):
        _paste(gm, pasted)
        gm.wait_for_function("(b) => game.settings.get('verdict', 'url') === b", arg=base, timeout=15000)
        connected(gm)
    before = gm.evaluate("window.__notes.length")
    _paste(gm, "ftp://127.0.0.1:21")
    gm.wait_for_function(
        "(n) => window.__notes.slice(n).some((x) => x.level === 'warning' && (x.text.includes('Settings.url.refused')"
        " || x.text.includes('ftp://127.0.0.1:21')))",
        arg=before,
        timeout=15000,
    )
    # not saved: the last address that was one is put back, and the module stays connected to it
    gm.wait_for_function("(b) => game.settings.get('verdict', 'url') === b", arg=base, timeout=15000)
    connected(gm)
