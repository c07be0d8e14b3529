"""Figure: the module's load time in Chromium, the plain files against the bundle the release zip ships.

A player's page on a hosted Foundry: Chromium (Playwright) opens the browser suite's Foundry stand-in, the
network emulated through the DevTools protocol (``Network.emulateNetworkConditions``: 100 ms latency each way
of a request, 10 Mbit/s down and up), the HTTP cache off and a fresh browser context each load. The time is
from the page's start (its navigation, ``performance.timeOrigin``) to the module's ``ready``: the stand-in
marks ``body[data-ready]`` once Foundry's ``ready`` hook has run the module's handler and the chat log's first
batch is drawn. Both forms load the same page and the same stand-in; what differs is what ``/modules/verdict/``
serves: the checkout's ``vtt-module/`` (module.json's ES module importing the others, each found as its
importer arrives) or the module as the release zip holds it (one minified ES module, one stylesheet). The
server compresses what it sends, as Foundry's does by default (``compressStatic``). Loads alternate between
the forms; each form's value is the median of its loads. The world has no sidecar: the module's connection
is no part of its load (``ready`` starts it and does not wait).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlencode

from sidecar.server.module import CHECKOUT_DIR, bundled_tree

from .common import ROOT, Row

STANDIN = ROOT / "tests" / "browser" / "standin"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
LATENCY_MS = 100
MBIT_S = 10
NETWORK = {
    "offline": False,
    "latency": LATENCY_MS,
    "downloadThroughput": MBIT_S * 1_000_000 / 8,
    "uploadThroughput": MBIT_S * 1_000_000 / 8,
}
"""``Network.emulateNetworkConditions``: latency in ms, throughputs in bytes per second."""
RUNS = {"smallest": 1, "quick": 5, "full": 11}
USER = "p1"
"""A player: in a world in local mode only the GM's browser connects to a sidecar, so nothing else is loaded."""

# When the stand-in marks the module ready, on the page's own clock (set before any of the page's scripts).
READY_MARK = """
new MutationObserver((_, seen) => {
  if (document.body?.dataset.ready === "1") { window.__verdictReadyAt = performance.now(); seen.disconnect(); }
}).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-ready"] });
"""
MODULE_REQUESTS = """() => performance.getEntriesByType("resource")
  .filter((e) => new URL(e.name).pathname.startsWith("/modules/verdict/"))
  .map((e) => ({ path: new URL(e.name).pathname, bytes: e.encodedBodySize }))"""


def _standin_module() -> ModuleType:
    """The browser suite's stand-in server (tests/browser/standin/server.py), loaded from its file."""
    if str(STANDIN) not in sys.path:
        sys.path.insert(0, str(STANDIN))  # it imports its sibling sanitiser
    spec = importlib.util.spec_from_file_location("verdict_standin_server", STANDIN / "server.py")
    if spec is None or spec.loader is None:
        raise RuntimeError(f"the stand-in's server is missing: {STANDIN / 'server.py'}")
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = loaded  # its dataclasses look their module up there
    spec.loader.exec_module(loaded)
    return loaded


def _compressing(server_class: Any) -> Any:
    """The stand-in's server, compressing each file it answers with (gzip or deflate, as the browser asks)."""

    class Compressing(server_class):  # type: ignore[misc]
        def _file(self, path: Path, request: Any) -> Any:
            response = super()._file(path, request)
            if response.status == 200:
                response.enable_compression()
            return response

    return Compressing


@contextmanager
def _forms() -> Iterator[dict[str, Path]]:
    """The module's folder in each form: the checkout's plain files, and the bundled module built now."""
    with tempfile.TemporaryDirectory(prefix="verdict-bundle-") as tmp:
        bundled = Path(tmp)
        for name, body in bundled_tree(CHECKOUT_DIR):
            (bundled / name).parent.mkdir(parents=True, exist_ok=True)
            (bundled / name).write_bytes(body)
        yield {"plain files": CHECKOUT_DIR, "bundle": bundled}


def _load(browser: Any, url: str) -> tuple[float, list[dict[str, Any]]]:
    """One cold load of ``url`` on the emulated network: (ms from the page's start to ready, module requests)."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    try:
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
        cdp.send("Network.emulateNetworkConditions", NETWORK)
        page.add_init_script(READY_MARK)
        page.goto(url)
        page.wait_for_function("window.__verdictReadyAt !== undefined", timeout=120_000)
        errors = page.evaluate("window.__errors ?? []")
        if errors:
            raise RuntimeError(f"the page had errors: {errors}")
        ready = float(page.evaluate("window.__verdictReadyAt"))
        requests: list[dict[str, Any]] = page.evaluate(MODULE_REQUESTS)
        return ready, requests
    finally:
        context.close()


def measure(runs: int) -> dict[str, dict[str, Any]]:
    """Each form's load times (``runs`` of each, alternating) and the module's requests in its last load."""
    from playwright.sync_api import sync_playwright

    standin = _standin_module()
    executable = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    if executable is None:
        raise RuntimeError("Chromium is missing: `apt-get install -y chromium`")
    settings = {
        "verdict.url": "http://127.0.0.1:9",  # no sidecar: its connection is no part of the load
        "verdict.table": "bench",
        "verdict.playerKey": "",
        "verdict.mode": "local",
        "verdict.system": "facets",
    }
    found: dict[str, dict[str, Any]] = {}
    with _forms() as forms, sync_playwright() as pw:
        servers = {}
        try:
            for form, folder in forms.items():
                routes = {
                    "/modules/verdict/": folder,
                    "/standin/": STANDIN,
                    "/node_modules/": ROOT / "node_modules",
                }
                server = _compressing(standin.StandinServer)(routes, STANDIN / "index.html")
                server.start()
                servers[form] = server
            browser = pw.chromium.launch(
                executable_path=executable,
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
            )
            try:
                for server in servers.values():  # one load of each first: the disk's caches warm for both
                    world = server.world(settings)
                    _load(browser, f"http://127.0.0.1:{server.port}/?{urlencode({'world': world.id, 'user': USER})}")
                for _ in range(runs):
                    for form, server in servers.items():
                        world = server.world(settings)
                        url = f"http://127.0.0.1:{server.port}/?{urlencode({'world': world.id, 'user': USER})}"
                        ready, requests = _load(browser, url)
                        entry = found.setdefault(form, {"ready": [], "requests": requests})
                        entry["ready"].append(ready)
                        entry["requests"] = requests
            finally:
                browser.close()
        finally:
            for server in servers.values():
                server.stop()
    return found


def rows_of(found: dict[str, dict[str, Any]]) -> list[Row]:
    plain, bundle = found["plain files"], found["bundle"]
    runs = len(bundle["ready"])
    network = f"{LATENCY_MS} ms latency, {MBIT_S} Mbit/s"

    def scripts(form: dict[str, Any]) -> int:
        return sum(1 for r in form["requests"] if r["path"].endswith((".mjs", ".css")))

    def kib(form: dict[str, Any]) -> float:
        return float(sum(r["bytes"] for r in form["requests"])) / 1024

    return [
        Row(
            "browser load",
            f"page start to the module's ready, {network} (median of {runs})",
            statistics.median(bundle["ready"]),
            "plain files",
            statistics.median(plain["ready"]),
            "ms",
            higher_is_better=False,
            note=f"bundle {min(bundle['ready']):.0f}-{max(bundle['ready']):.0f} ms, "
            f"plain {min(plain['ready']):.0f}-{max(plain['ready']):.0f} ms",
        ),
        Row(
            "browser load",
            "the module's scripts and stylesheets requested",
            scripts(bundle),
            "plain files",
            scripts(plain),
            "requests",
            higher_is_better=False,
            note=f"all of the module's files, compressed: bundle {kib(bundle):.0f} KiB, plain {kib(plain):.0f} KiB",
        ),
    ]


def run(full: bool = False) -> list[Row]:
    return rows_of(measure(RUNS["full" if full else "quick"]))


def smallest() -> list[Row]:
    return rows_of(measure(RUNS["smallest"]))


if __name__ == "__main__":
    started = time.monotonic()
    for row in run(full="--full" in sys.argv):
        print(row)
    print(f"({time.monotonic() - started:.0f} s)")
