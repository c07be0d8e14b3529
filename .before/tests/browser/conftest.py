"""Browser end-to-end fixtures: a real sidecar, the Foundry stand-in page, headless Chromium.

The stand-in (``standin/``) provides only the Foundry globals the module uses; the module's own files
are served unchanged under ``/modules/verdict/``, as Foundry serves an installed module.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlencode

import pytest

ROOT = Path(__file__).resolve().parents[2]
VERDICT = ROOT / ".venv" / "bin" / "verdict"
OUTPUT = ROOT / "test-output"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ROUTES = {
    "/modules/verdict/": ROOT / "vtt-module",
    "/standin/": ROOT / "tests" / "browser" / "standin",
    "/node_modules/": ROOT / "node_modules",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Handler(SimpleHTTPRequestHandler):
    """Serves the stand-in page, the module and the npm packages it needs; nothing else."""

    def translate_path(self, path: str) -> str:
        path = path.split("?", 1)[0].split("#", 1)[0]
        if path in ("/", "/index.html"):
            return str(ROUTES["/standin/"] / "index.html")
        for prefix, base in ROUTES.items():
            if path.startswith(prefix):
                target = (base / path[len(prefix):]).resolve()
                if base.resolve() in target.parents or target == base.resolve():
                    return str(target)
        return str(ROOT / "does-not-exist")

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *args) -> None:  # quiet
        pass


_Handler.extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".mjs": "text/javascript", ".hbs": "text/plain"}


@pytest.fixture(scope="session")
def web() -> str:
    """The stand-in's origin."""
    if not (ROOT / "node_modules" / "handlebars").exists():
        pytest.fail("npm packages are missing: run `make test-browser` (it installs them)")
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@dataclass
class Sidecar:
    """A real sidecar in a subprocess, with one table created through the CLI."""

    data: Path
    origin: str
    port: int = field(default_factory=free_port)
    table: str = ""
    gm_key: str = ""
    player_key: str = ""
    proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def create_table(self) -> None:
        out = subprocess.run([str(VERDICT), "table", "--data", str(self.data), "create", "browser"],
                             check=True, capture_output=True, text=True).stdout
        self.table = re.search(r"table id\s+(\S+)", out).group(1)
        self.gm_key = re.search(r"GM key\s+(\S+)", out).group(1)
        self.player_key = re.search(r"player key\s+(\S+)", out).group(1)

    def start(self) -> None:
        log = open(self.data / "sidecar.log", "a")
        self.proc = subprocess.Popen(
            [str(VERDICT), "serve", "--port", str(self.port), "--data", str(self.data), "--allow-origin", self.origin,
             "--log-format", "json"],
            stdout=log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"the sidecar did not start; log: {(self.data / 'sidecar.log').read_text()[-2000:]}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None


@pytest.fixture
def sidecar(tmp_path: Path, web: str):
    if not VERDICT.exists():
        pytest.fail(f"{VERDICT} is missing: install the project (`make test` does)")
    s = Sidecar(data=tmp_path / "data", origin=web)
    s.data.mkdir()
    s.create_table()
    s.start()
    yield s
    s.stop()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        pytest.fail("Chromium is missing: `apt-get install -y chromium` (make test-browser does it)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(
            executable_path=CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium"),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run"],
        )
        yield b
        b.close()


class Table:
    """Pages of one browser context (one "world"): they share chat and the module socket."""

    def __init__(self, context, web: str, sidecar: Sidecar, mode: str) -> None:
        self.context = context
        self.web = web
        self.sidecar = sidecar
        self.mode = mode
        self.pages = {}
        self.frames: dict[str, list[str]] = {}
        self.sent: dict[str, list[str]] = {}

    def open(self, user: str, system: str = "facets"):
        s = self.sidecar
        query = {"user": user, "url": s.url, "table": s.table, "playerKey": s.player_key, "mode": self.mode, "system": system}
        if user == "gm1":
            query["gmKey"] = s.gm_key
        page = self.context.new_page()
        page.set_viewport_size({"width": 1280, "height": 860})
        page.on("console", lambda msg, u=user: msg.type == "error" and print(f"[{u} console] {msg.text}"))
        # Every websocket frame this page receives, to check secrecy on the wire.
        frames, sent = self.frames.setdefault(user, []), self.sent.setdefault(user, [])
        text = lambda p: p if isinstance(p, str) else p.decode("utf-8", "replace")  # noqa: E731

        def watch(ws, f=frames, s=sent):
            ws.on("framereceived", lambda p: f.append(text(p)))
            ws.on("framesent", lambda p: s.append(text(p)))

        page.on("websocket", watch)
        page.goto(f"{self.web}/?{urlencode(query)}")
        page.wait_for_selector("body[data-ready='1']", timeout=10000)
        self.pages[user] = page
        return page


def _table(browser, web, sidecar, mode: str):
    context = browser.new_context()
    t = Table(context, web, sidecar, mode=mode)
    yield t
    for user, page in t.pages.items():
        errors = page.evaluate("window.__errors")
        assert not errors, f"{user}'s page had errors: {errors}"
    context.close()


@pytest.fixture
def table(browser, web, sidecar):
    """A table in local mode: only the active GM's page holds sockets."""
    yield from _table(browser, web, sidecar, "local")


@pytest.fixture
def server_table(browser, web, sidecar):
    """A table in server mode: every page connects to the sidecar with its role's key."""
    yield from _table(browser, web, sidecar, "server")


@pytest.fixture(scope="session")
def shots() -> Path:
    OUTPUT.mkdir(exist_ok=True)
    return OUTPUT


@pytest.fixture(scope="session")
def shot(shots: Path):
    """Screenshot one element into test-output/, after its fonts and transitions settle."""

    def take(page, locator: str, name: str) -> Path:
        page.wait_for_timeout(250)
        path = shots / name
        page.locator(locator).first.screenshot(path=str(path))
        return path

    return take
