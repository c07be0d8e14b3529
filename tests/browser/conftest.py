"""Browser end-to-end fixtures: a real sidecar, the strict Foundry stand-in, headless Chromium.

The stand-in (``standin/``) is a small Foundry: a server (``standin/server.py``) that keeps each world's
documents and relays between clients, and a page (``standin/foundry.js``) with the Foundry globals the
module uses. Each user's page runs in a browser context of its own (its own localStorage, like its own
browser), lent from a pool and emptied when given back (``Browsers``). The module's files are served
unchanged under ``/modules/verdict/``, as Foundry serves an installed module: the checkout's plain files,
or with ``VERDICT_MODULE=bundle`` the module as the release zip holds it (one bundled, minified ES module
and one stylesheet, built from the checkout's files when the run starts; ``module_tree``). A test runs in a
generation-13 or a generation-14 world, in both where its pages reach a difference between them
(``generations_of``). Under ``pytest -n`` each worker has its own stand-in server,
sidecar and Chromium.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import pytest

from sidecar.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent / "standin"))
from server import StandinServer, World  # noqa: E402

VERDICT = ROOT / ".venv" / "bin" / "verdict"
OUTPUT = ROOT / "test-output"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ROUTES = {
    "/modules/verdict/": ROOT / "vtt-module",
    "/standin/": ROOT / "tests" / "browser" / "standin",
    "/node_modules/": ROOT / "node_modules",
}
MODULE_FORMS = ("plain", "bundle")
MODULE_FORM = os.environ.get("VERDICT_MODULE", "plain")
GENERATIONS = (13, 14)
# The module's waits in the test worlds (CONFIG.verdict.timings, set as a world's script would; the shipped
# values are in vtt-module/scripts/lib/timings.mjs and tests/js/timings.test.mjs holds them): a new relay
# writes what the old one left after 100 ms instead of 1.2 s (the old relay's page is closed by then in every
# test), and a dropped socket tries again from 50 ms, doubling to 1 s at most, instead of from 500 ms to 30 s
# (a sidecar restarted on a loaded machine is back within seconds, and a page then waited as long again).
# The pairing wait stays as shipped: shorter, a loaded machine would send public cards down the ledger's path
# instead of the broadcast's.
TEST_TIMINGS = {"takeover": 100, "reconnectBase": 50, "reconnectMax": 1000}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def module_tree(tmp_path_factory) -> Path:
    """The module's folder the stand-in serves as the installed module: the checkout's ``vtt-module/``, or
    (``VERDICT_MODULE=bundle``) the bundled module as a release zip unpacks, built now from the checkout."""
    if MODULE_FORM not in MODULE_FORMS:
        raise pytest.UsageError(f"VERDICT_MODULE={MODULE_FORM!r}: one of {', '.join(MODULE_FORMS)}")
    if MODULE_FORM == "plain":
        return ROUTES["/modules/verdict/"]
    from sidecar.server.module import BUNDLE_SCRIPT, BundleError, bundled_tree

    out = tmp_path_factory.mktemp("module-bundle")
    try:
        for name, body in bundled_tree(ROUTES["/modules/verdict/"]):
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            (out / name).write_bytes(body)
    except BundleError as exc:
        pytest.fail(f"VERDICT_MODULE=bundle: {exc}")
    assert (out / BUNDLE_SCRIPT).is_file() and not (out / "scripts" / "verdict.mjs").exists()
    return out


@pytest.fixture(scope="session")
def standin(module_tree: Path) -> StandinServer:
    """The stand-in's Foundry server (pages, module files, the world relay)."""
    if not (ROOT / "node_modules" / "handlebars").exists():
        pytest.fail("npm packages are missing: run `make test-browser` (it installs them)")
    server = StandinServer({**ROUTES, "/modules/verdict/": module_tree}, ROUTES["/standin/"] / "index.html")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def web(standin: StandinServer) -> str:
    """The stand-in's origin."""
    return f"http://127.0.0.1:{standin.port}"


def generations_of(test) -> tuple[int, ...]:
    """The Foundry generations a test's worlds run in. Both, for a test marked ``@pytest.mark.generations(13,
    14)`` (its pages reach a place where the two differ: the status list's shape, the notifications pane, a
    window popped out into a document of its own) or when ``VERDICT_GENERATIONS=all``. Else one: the module
    never asks which generation it runs in, so a test that reaches no such place runs the same code in both.
    Which one comes from the test's name, the same every run, so each generation carries about half of them.
    A test that opens a popped-out window or the notifications pane without the mark fails
    (``_generations_reached``); the tests that set markers on tokens carry it by hand (any roll whose random
    dice set a condition reaches the status list, so it cannot be told apart from a test about it)."""
    marker = test.get_closest_marker("generations")
    if marker is not None:
        unknown = set(marker.args) - set(GENERATIONS)
        if unknown or not marker.args:
            raise pytest.UsageError(f"{test.name}: generations({marker.args}) names none or unknown ones")
        return tuple(marker.args)
    if os.environ.get("VERDICT_GENERATIONS") == "all":
        return GENERATIONS
    return (GENERATIONS[zlib.crc32(test.name.encode()) % len(GENERATIONS)],)


def pytest_generate_tests(metafunc) -> None:
    """``generation``: Foundry's `game.release.generation` of the world under test, as ``generations_of`` says."""
    if "generation" in metafunc.fixturenames:
        gens = generations_of(metafunc.definition)
        metafunc.parametrize("generation", gens, ids=[f"v{g}" for g in gens])


@pytest.fixture(autouse=True)
def _generations_reached(request):
    """A test run in one generation must not reach a place where the generations differ: the stand-in's pages
    say when they do (``World.reached``), and the test is then to be marked to run in both."""
    Table.made.clear()
    yield
    made, Table.made = Table.made, []
    if "generation" not in request.fixturenames or request.node.stash.get(FAILED, False):
        return
    if len(generations_of(request.node)) == len(GENERATIONS):
        return
    reached = set()
    for t in made:
        if t.world is not None:
            reached |= t.standin.call(lambda w=t.world: set(w.reached))
    if reached:
        pytest.fail(
            f"its pages reached {', '.join(sorted(reached))}, where Foundry 13 and 14 differ: mark the test "
            "@pytest.mark.generations(13, 14)",
            pytrace=False,
        )


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
    tables_made: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _verdict(self, *args: str) -> str:
        """``verdict table --data DIR ARGS`` run in this process, as a GM runs it beside the serving sidecar (it
        only opens the ledger that sidecar serves; a child process per test cost a Python start and every import
        of the sidecar, and proved nothing the browser does not)."""
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = cli_main(["table", "--data", str(self.data), *args])
        if code != 0:
            raise RuntimeError(f"verdict table {' '.join(args)} exited {code}: {out.getvalue()}")
        return out.getvalue()

    def create_table(self) -> None:
        # Each test's table has a name of its own: a data folder holds one table of a name.
        self.tables_made += 1
        out = self._verdict("create", f"browser-{self.tables_made}")
        self.table = re.search(r"table id\s+(\S+)", out).group(1)
        self.gm_key = re.search(r"GM key\s+(\S+)", out).group(1)
        self.player_key = re.search(r"player key\s+(\S+)", out).group(1)

    def user_key(self, user: str) -> str:
        """``user``'s own player key for this table, as the CLI prints it."""
        return self._verdict("user-key", self.table, user).split()[-1]

    def start(self) -> None:
        """Start `verdict serve` and return once it says it is listening. It prints that line once its socket is
        bound; a port another process took meanwhile makes it exit instead, and it starts again on another
        (asking /healthz alone could be answered by that other process)."""
        for _ in range(5):
            log_path = self.data / "sidecar.log"
            start = log_path.stat().st_size if log_path.exists() else 0
            with open(log_path, "ab") as log:
                self.proc = subprocess.Popen(
                    [
                        str(VERDICT),
                        "serve",
                        "--port",
                        str(self.port),
                        "--data",
                        str(self.data),
                        "--allow-origin",
                        self.origin,
                        "--log-format",
                        "json",
                    ],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    env={**os.environ, "PYTHONUNBUFFERED": "1"},
                )
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                said = log_path.read_bytes()[start:]
                if b" listening on " in said:
                    return
                if self.proc.poll() is not None:
                    break
                time.sleep(0.02)
            else:
                self.stop()
                raise RuntimeError(f"the sidecar did not start within 30 s; log: {said[-2000:].decode()}")
            if b"choose another with --port" not in said:
                raise RuntimeError(f"the sidecar exited {self.proc.returncode}; log: {said[-2000:].decode()}")
            self.port = free_port()
        raise RuntimeError("the sidecar found no free port in 5 tries")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None


@pytest.fixture(scope="session")
def sidecar_process(tmp_path_factory, web: str):
    """One sidecar process for the whole run (each test gets a table of its own on it)."""
    if not VERDICT.exists():
        pytest.fail(f"{VERDICT} is missing: install the project (`make test` does)")
    s = Sidecar(data=tmp_path_factory.mktemp("sidecar"), origin=web)
    s.start()
    yield s
    s.stop()


@pytest.fixture
def sidecar(sidecar_process: Sidecar):
    """The shared sidecar with a fresh table (restarted first if an earlier test stopped it)."""
    s = sidecar_process
    if s.proc is None or s.proc.poll() is not None:
        s.start()
    s.create_table()
    yield s


VIEWPORT = {"width": 1280, "height": 860}


class Browsers:
    """Headless Chromium and its users' browsers: a browser context with one page each, lent to one user of one
    test and taken back when that user leaves. A page taken back is navigated away (its sockets close: the
    servers see its user leave) and every storage of the origins it visited is cleared, so the next user starts
    as in a new browser; a new context and page cost a renderer process each, a third of a page's load."""

    def __init__(self, browser) -> None:
        self.browser = browser
        self.idle: list[tuple[object, object, object]] = []

    def new_context(self, **kw):
        """A browser context of a test's own (closed by that test), as ``Browser.new_context``."""
        return self.browser.new_context(**kw)

    def take(self):
        """A context and its page, on about:blank with empty storage."""
        if self.idle:
            context, page, _ = self.idle.pop()
            return context, page
        context = self.browser.new_context(viewport=VIEWPORT)
        return context, context.new_page()

    def give_back(self, context, page, origins: set[str]) -> None:
        try:
            for other in context.pages:
                if other is not page:
                    other.close()
            if not page.is_closed() and page.url.startswith("http"):
                page.evaluate("sessionStorage.clear()")
            page.goto("about:blank")
            cdp = context.new_cdp_session(page)
            for origin in origins:
                cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
            cdp.detach()
            context.clear_cookies()
            context.clear_permissions()
        except Exception:
            context.close()
            return
        self.idle.append((context, page, None))

    def close(self) -> None:
        for context, _, _ in self.idle:
            context.close()
        self.idle.clear()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        pytest.fail("Chromium is missing: `apt-get install -y chromium` (make test-browser does it)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(
            executable_path=CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium"),
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                # a page navigated away is gone, its scripts and sockets with it (never kept to come back to)
                "--disable-features=BackForwardCache",
            ],
        )
        browsers = Browsers(b)
        yield browsers
        browsers.close()
        b.close()


MODULE_SCRIPTS = """() => performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname)
  .filter((p) => p.startsWith("/modules/verdict/scripts/") || p.startsWith("/modules/verdict/styles/"))"""


def _loaded_the_bundle_alone(page) -> None:
    """The page ran the module from its bundle: the one script and the one stylesheet, no plain file."""
    from sidecar.server.module import BUNDLE_SCRIPT, BUNDLE_STYLE

    loaded = set(page.evaluate(MODULE_SCRIPTS))
    expected = {f"/modules/verdict/{BUNDLE_SCRIPT}", f"/modules/verdict/{BUNDLE_STYLE}"}
    assert loaded == expected, (
        f"the page loaded {sorted(loaded)} of the module's scripts and styles, not the bundle alone"
    )


class Table:
    """One Foundry world on the stand-in server, its users' pages (one browser context each) and the sidecar."""

    # The tables made during the running test (``_generations_reached`` asks their worlds where they went).
    made: list[Table] = []

    def __init__(self, browser, standin: StandinServer, web: str, sidecar: Sidecar, mode: str, generation: int) -> None:
        Table.made.append(self)
        self.browser = browser
        self.standin = standin
        self.web = web
        self.sidecar = sidecar
        self.mode = mode
        self.generation = generation
        self.system = "rebuild"  # the test system rebuilds CONFIG.statusEffects on every canvasReady
        self.active_scene: str | None = "scene1"  # the scene active in the world (None: none), before the first page
        self.modules: list[str] = []  # other modules active in the world ("dice-so-nice": the stand-in's double)
        self.macro_script_role = 1  # the least role that may create script macros (Foundry's default: PLAYER)
        self.config: dict = {"verdict": {"timings": dict(TEST_TIMINGS)}}  # what the world's scripts set in CONFIG
        self.world: World | None = None
        self.contexts: dict[str, object] = {}
        self.pages = {}
        # Each open page's lease: whether ``browser`` lent it (given back on leaving) and the handlers it carries.
        self.leases: dict[int, tuple[bool, list[tuple[str, object]]]] = {}
        self.replaced: list[tuple[object, object]] = []  # a user's earlier browser when they logged in again
        self.frames: dict[str, list[str]] = {}
        self.sent: dict[str, list[str]] = {}
        log = sidecar.data / "sidecar.log"
        self.log_from = log.stat().st_size if log.exists() else 0  # where this test's part of the sidecar's log begins

    @property
    def serves_bundle(self) -> bool:
        """Whether the stand-in serves the module bundled (a test's own copy of the module may be plain)."""
        from sidecar.server.module import BUNDLE_SCRIPT

        return (Path(self.standin.routes["/modules/verdict/"]) / BUNDLE_SCRIPT).is_file()

    def _world(self, rules: str) -> World:
        if self.world is None:
            s = self.sidecar
            self.world = self.standin.world(
                {
                    "verdict.url": s.url,
                    "verdict.table": s.table,
                    "verdict.playerKey": s.player_key,
                    "verdict.mode": self.mode,
                    "verdict.system": rules,
                },
                generation=self.generation,
                system=self.system,
                active_scene=self.active_scene,
                modules=self.modules,
                macro_script_role=self.macro_script_role,
                config=self.config,
            )
        elif self.world.settings.get("verdict.system") != rules:
            self.standin.call(self.world.settings.__setitem__, "verdict.system", rules)
        return self.world

    def make_world(self, system: str = "facets") -> World:
        """The world, made before anyone logs in: a test sets its settings or documents first, as a GM set them
        before the session (a page reads them when it loads)."""
        return self._world(system)

    def open(self, user: str, system: str = "facets", *, gm_key: bool | None = None, context=None):
        """Log ``user`` in, in a browser of their own (or in ``context``, a browser already used). ``gm_key``: the
        GM key in the user's own setting of this world (default: the full GM ``gm1`` has it)."""
        world = self._world(system)
        if gm_key is None:
            gm_key = user == "gm1"
        if gm_key:
            # A user-scope setting: stored in the world, for that user only.
            self.standin.call(world.settings.__setitem__, f"{user}:verdict.gmKey", self.sidecar.gm_key)
        if user in self.pages:
            self.replaced.append((self.contexts.pop(user), self.pages.pop(user)))
        lent = context is None and isinstance(self.browser, Browsers)
        if lent:
            context, page = self.browser.take()
        else:
            context = context or self.browser.new_context(viewport=VIEWPORT)
            page = context.new_page()
        # Every websocket frame this page exchanges with the sidecar, to check secrecy on the wire.
        frames, sent = self.frames.setdefault(user, []), self.sent.setdefault(user, [])
        text = lambda p: p if isinstance(p, str) else p.decode("utf-8", "replace")  # noqa: E731

        def watch(ws, f=frames, s=sent):
            if f":{self.sidecar.port}/" not in ws.url:
                return
            ws.on("framereceived", lambda p: f.append(text(p)))
            ws.on("framesent", lambda p: s.append(text(p)))

        def console(msg, u=user):
            if msg.type in ("error", "warning"):
                print(f"[{u} console] {msg.text}")

        listeners = [("console", console), ("websocket", watch)]
        self.leases[id(page)] = (lent, listeners)
        for event, fn in listeners:
            page.on(event, fn)
        page.goto(f"{self.web}/?{urlencode({'world': world.id, 'user': user})}")
        page.wait_for_selector("body[data-ready='1']", timeout=15000)
        if self.serves_bundle:
            _loaded_the_bundle_alone(page)
        self.contexts[user] = context
        self.pages[user] = page
        return page

    def leave(self, user: str) -> None:
        """The user closes their browser: Foundry's server sees them disconnect."""
        page = self.pages.pop(user)
        try:
            self._check(user, page)
        finally:
            self._end(self.contexts.pop(user), page)

    def _end(self, context, page) -> None:
        """Close the user's browser, or give a lent one back (its page navigated away: its sockets close)."""
        lent, listeners = self.leases.pop(id(page), (False, []))
        for event, fn in listeners:
            page.remove_listener(event, fn)
        if lent:
            self.browser.give_back(context, page, {self.web})
        else:
            context.close()

    def stall(self, user: str) -> None:
        """The server stops delivering to ``user`` (their network stalls) until they leave."""
        self.standin.call(self.world.stalled.add, user)

    def messages(self) -> list[dict]:
        """The world's chat messages as the server stores them, each with ``creator``: the user who created it
        (its ``author`` may be another user: a GM may create a message for someone)."""
        return self.standin.call(
            lambda: [{**m, "creator": self.world.creators.get(m["_id"])} for m in self.world.messages]
        )

    def wait(self, condition, what: str, timeout: float = 15) -> None:
        """Wait until ``condition()``, run on the stand-in server's loop with the world's state, holds."""
        deadline = time.monotonic() + timeout
        while not self.standin.call(condition):
            if time.monotonic() > deadline:
                raise AssertionError(f"not within {timeout:g} s: {what}")
            time.sleep(0.02)

    def delivered(self, user: str) -> list[str]:
        """Every frame the server delivered to ``user``'s page (documents, module socket, queries)."""
        return self.standin.call(lambda: list(self.world.delivered.get(user, [])))

    def report(self) -> None:
        """What each open page said (notifications, errors, its status light, the requests its client still
        waits for the relay's answer to (whom it asked, when, what it last heard), the requests the relay is
        answering and what each waits for, and its users' connections), and the sidecar's log of the table with its
        warnings meanwhile, for a failed test's output."""
        for user, page in self.pages.items():
            try:
                said = page.evaluate(
                    """() => ({notes: (window.__notes ?? []).map((n) => `${n.level}: ${n.text}`),
                      errors: window.__errors ?? [], status: document.querySelector('#verdict-status')?.dataset.state ?? null,
                      statusText: document.querySelector('#verdict-status')?.textContent?.trim() ?? null,
                      relay: (() => { const c = game.modules.get('verdict')?.api?.client; if (!c) return null;
                        const ago = (t) => (t ? `${((Date.now() - t) / 1000).toFixed(1)} s ago` : "never");
                        return {isRelay: c.isRelay, relayId: c.relayId,
                          waiting: [...(c.relayed?.values() ?? [])].map((e) => `${e.msg.type} ${e.msg.id} sent to ${e.sentTo}`
                            + ` (try ${e.tries ?? 0}, asked ${ago(e.askedAt)}, last: ${e.last ?? "-"})`),
                          answering: [...(c.answering?.entries() ?? [])].map(([k, a]) => `${a.type} ${k}: waits for ${a.waits}, since ${ago(a.since)}`),
                          userConns: Object.fromEntries([...(c.userConns?.entries() ?? [])].map(([u, k]) => [u,
                            `${k.state}${k.reason ? ` (${k.reason})` : ""}, pending: [${[...(k.pending?.keys() ?? [])].join(", ")}]`])),
                          opening: [...(c._opening?.keys() ?? [])]}; })()})"""
                )
            except Exception as err:  # a page that broke says nothing more
                said = {"unreadable": str(err)[:200]}
            print(f"[{user} at the failure] {said}")
        log = self.sidecar.data / "sidecar.log"
        if log.exists():
            with open(log, "rb") as f:
                f.seek(self.log_from)
                tail = f.read().decode(errors="replace").splitlines()
            # The table's lines, and the sidecar's warnings and errors meanwhile: those that concern the whole
            # sidecar (its ledger down, a slow peer dropped, a socket without hello) name no table.
            lines = [
                line
                for line in tail
                if self.sidecar.table in line or '"level": "warning"' in line or '"level": "error"' in line
            ]
            print(
                f"[the sidecar's log during the test: table {self.sidecar.table} and every warning, "
                f"its last {min(len(lines), 40)} lines]"
            )
            print("\n".join(lines[-40:]))

    @staticmethod
    def _check(user: str, page) -> None:
        errors = page.evaluate("window.__errors")
        assert not errors, f"{user}'s page had errors: {errors}"

    def close(self) -> None:
        try:
            for user, page in list(self.pages.items()):
                self._check(user, page)
        finally:
            for context, page in [*self.replaced, *((self.contexts[u], self.pages[u]) for u in self.pages)]:
                self._end(context, page)
            self.replaced.clear()
            self.contexts.clear()
            self.pages.clear()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call" and report.failed:
        item.stash[FAILED] = True
    return report


FAILED = pytest.StashKey[bool]()


def _table(request, browser, standin, web, sidecar, mode: str, generation: int):
    t = Table(browser, standin, web, sidecar, mode=mode, generation=generation)
    yield t
    if request.node.stash.get(FAILED, False):
        t.report()
    t.close()


@pytest.fixture
def table(request, browser, standin, web, sidecar, generation):
    """A world in local mode: only the active GM's browser holds sockets."""
    yield from _table(request, browser, standin, web, sidecar, "local", generation)


@pytest.fixture
def server_table(request, browser, standin, web, sidecar, generation):
    """A world in server mode: every page connects to the sidecar with its role's key."""
    yield from _table(request, browser, standin, web, sidecar, "server", generation)


@pytest.fixture(scope="session")
def shots() -> Path:
    OUTPUT.mkdir(exist_ok=True)
    return OUTPUT


# Fonts loaded and every animation that ends (a transition, a fade) ended; an endless one (the status light's
# pulse) is left running.
SETTLED = """async () => {
  await document.fonts.ready;
  const ending = document.getAnimations().filter((a) => a.effect?.getComputedTiming().endTime !== Infinity);
  await Promise.all(ending.map((a) => a.finished.catch(() => null)));
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
}"""


@pytest.fixture(scope="session")
def shot(shots: Path):
    """Screenshot one element into test-output/, after its fonts and transitions settle."""

    def take(page, locator: str, name: str) -> Path:
        page.evaluate(SETTLED)
        path = shots / name
        page.locator(locator).first.screenshot(path=str(path))
        return path

    return take
