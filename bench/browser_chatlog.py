"""A long campaign's chat log: a world of thousands of Verdict messages, loaded again (F5) as the GM and as a
player, in Chromium against the Foundry stand-in (tests/browser/standin/) and a real `verdict serve`.

The world's cards are real: every check is rolled over a websocket against the sidecar (every rule set, the
roll modes, follow-ups, an extended check), the relay's own writer in a GM's page writes their chat messages
(that page draws none of them, so seeding costs no rendering), and self rolls are rolled in the player's page.
The anchor is the same number of plain Foundry messages with a roll and no Verdict card.

Each F5 is measured from the page's navigation start: the time until the cards in the log are drawn (every
card this viewer may read drawn from its own copy, every blind roll's trace labelled), the main thread's time
in the module (Chromium's sampling profiler, 100 µs: a sample counts when a frame of the module's files is on
its stack) and in all, and the requests the page sent the sidecar. Then the log is drawn again (no request may
follow) and scrolled back to its top (the next batch: its requests, and the longest stretch of the module's
work without the main thread going idle).

The test tests/browser/test_long_chat_log.py asserts what is not a timing; this figure records the timings.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import msgspec

from protocol.v1 import messages as m
from protocol.v1.boons import BoonsCheck
from protocol.v1.challenge import ChallengeCheck
from protocol.v1.facets import FacetRemove, FacetsCheck
from protocol.v1.feats import FeatsCheck
from protocol.v1.flairs import FlairsCheck
from protocol.v1.systems import AnyAction
from protocol.v1.table import ExtendedStart
from sidecar.client import Client, RequestFailed

from .common import ROOT, Row

STANDIN = ROOT / "tests" / "browser" / "standin"
MODULE_URL = "/modules/verdict/"
# Who rolls in the seeded campaign (the GM client rolls on each player's behalf, as the relay does).
ROLLERS = ("p1", "p2", None)
MODES: tuple[Literal["public", "gm", "blind"], ...] = ("public", "public", "public", "gm", "blind")


def _checks() -> list[Any]:
    return [
        FacetsCheck(pool=3),
        ChallengeCheck(cl=3, modifier=2),
        FlairsCheck(rank=2),
        FeatsCheck(ability=4, difficulty=3),
        BoonsCheck(ability=3, boon=1, bane=0, trial=1),
    ]


@dataclass
class Campaign:
    """What the seeded log holds: its messages by kind."""

    rolled: int = 0
    traces: int = 0
    followed: int = 0
    extended: int = 0
    self_rolls: int = 0
    by_system: dict[str, int] = field(default_factory=dict)
    by_mode: dict[str, int] = field(default_factory=dict)

    @property
    def messages(self) -> int:
        """The chat messages the relay (and the roller of each self roll) writes for them."""
        return self.rolled + self.traces + self.self_rolls


def _action(open_: dict[str, Any]) -> Any | None:
    """A follow-up the viewer may send on a result, its parameters taken from what the sidecar offers."""
    data: dict[str, Any] = {"action": open_["action"]}
    if open_["action"] == "challenge_choice":
        if not open_.get("options"):
            return None
        data["option"] = open_["options"][0]
    elif open_["action"] == "flairs_choose":
        data["flairs"] = []
    elif open_["action"] not in ("flairs_reveal", "flairs_set_lurking", "flairs_name_trials"):
        return None
    try:
        return msgspec.convert(data, AnyAction)
    except msgspec.ValidationError:
        return None


async def roll_campaign(url: str, table: str, gm_key: str, count: int, concurrency: int = 8) -> Campaign:
    """``count`` checks rolled by a GM's client (user ``gm2``) on behalf of the players and itself: the rule sets
    in turn, mostly public, some whispered to the GM or blind, a follow-up on every result that offers one the
    GM may send, every tenth `boons` roll into one extended check."""
    campaign = Campaign()
    async with await Client.connect(url, table, gm_key, user="gm2") as gm:
        started = await gm.request(m.Gm(id=gm.new_id(), op=ExtendedStart(name="The long climb", threshold=1000)))
        extended = next(
            (
                e["event"]["extended"]
                for e in msgspec.to_builtins(started).get("events", [])
                if e["event"].get("kind") == "extended_started"
            ),
            None,
        )
        gate = asyncio.Semaphore(concurrency)
        counter = itertools.count()

        async def one(i: int) -> None:
            check = _checks()[i % 5]
            user = ROLLERS[i % len(ROLLERS)]
            mode = MODES[(i // 5) % len(MODES)]
            system = check.__struct_config__.tag
            ext = extended if system == "boons" and i % 10 == 4 and mode == "public" else None
            if ext is not None:
                check = BoonsCheck(ability=3, boon=1, bane=0, trial=0)  # the extended check's own difficulty
            async with gate:
                try:
                    rolled = await gm.request(
                        m.Roll(
                            id=gm.new_id(),
                            check=check,
                            mode=mode,
                            user=user,
                            label=f"Campaign check {i + 1}",
                            extended=ext,
                        )
                    )
                except RequestFailed as refused:
                    # The table full (the rules' bounds: facets, complications): this roll is not made.
                    if not refused.code.startswith("too_many"):
                        raise
                    return
                # The scene moves on: the GM clears the facets a roll made (a table holds 256 at most).
                for e in msgspec.to_builtins(rolled).get("events", []):
                    if e["event"].get("kind") == "facet_created":
                        made = e["event"].get("id") or e["event"]["facet"]
                        with contextlib.suppress(RequestFailed):
                            await gm.request(m.Gm(id=gm.new_id(), op=FacetRemove(facet=made)))
                campaign.rolled += 1
                campaign.extended += ext is not None
                campaign.by_system[system] = campaign.by_system.get(system, 0) + 1
                campaign.by_mode[mode] = campaign.by_mode.get(mode, 0) + 1
                campaign.traces += mode == "blind" and user is not None
                offered = msgspec.to_builtins(rolled).get("open") or []
                action = next((a for a in map(_action, offered) if a is not None), None)
                if action is not None and next(counter) % 2 == 0:
                    try:
                        await gm.request(m.Follow(id=gm.new_id(), check=rolled.check, action=action, user=user))
                        campaign.followed += 1
                    except RequestFailed:
                        pass

        await asyncio.gather(*(one(i) for i in range(count)))
    return campaign


def roll_campaign_in_thread(url: str, table: str, gm_key: str, count: int) -> Campaign:
    """:func:`roll_campaign` from synchronous code (Playwright's sync API holds the caller's event loop)."""
    out: list[Campaign | BaseException] = []

    def run() -> None:
        try:
            out.append(asyncio.run(roll_campaign(url, table, gm_key, count)))
        except BaseException as err:  # handed to the caller
            out.append(err)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    if isinstance(out[0], BaseException):
        raise out[0]
    return out[0]


def self_rolls(page: Any, count: int) -> int:
    """The player rolls ``count`` self rolls in their own page (the roller's browser writes a self roll's card)."""
    page.evaluate(
        """async (n) => { const c = game.modules.get('verdict').api.client;
          for (let i = 0; i < n; i++) await c.roll({check: {system: 'facets', pool: 2}, mode: 'self', label: `Private note ${i + 1}`}); }""",
        count,
    )
    return count


def plain_messages(count: int) -> list[dict[str, Any]]:
    """``count`` plain Foundry chat messages with a roll (a d20 check's roll card, no Verdict flags)."""
    out = []
    for i in range(count):
        total = 1 + (i * 7) % 20
        out.append(
            {
                "content": f'<div class="dice-roll"><div class="dice-result"><div class="dice-formula">1d20 + 2</div>'
                f'<h4 class="dice-total">{total + 2}</h4></div></div>',
                "speaker": {"alias": ("Ayla Thorn", "Bram Ashdown", "Gamemaster")[i % 3]},
                "rolls": [json.dumps({"class": "Roll", "formula": "1d20 + 2", "total": total + 2})],
                "flavor": f"Plain check {i + 1}",
            }
        )
    return out


def put_messages(standin: Any, world: Any, datas: list[dict[str, Any]], authors: list[str]) -> None:
    """Write chat messages into a world directly, as its server stores them (ids, authors, order, cleaned
    content), before anyone loads it."""
    sys.path.insert(0, str(STANDIN))
    from sanitiser import clean_html  # type: ignore[import-not-found]

    def put() -> None:
        for data, author in zip(datas, authors, strict=True):
            d = dict(data)
            d.update(_id=f"m{len(world.messages) + 1:07d}", author=author, timestamp=len(world.messages) + 1)
            d.setdefault("whisper", [])
            d.setdefault("blind", False)
            d.setdefault("flags", {})
            d["content"] = clean_html(str(d.get("content") or ""))
            world.creators[d["_id"]] = author
            world.messages.append(d)

    standin.call(put)


# --- in the page ------------------------------------------------------------------------------------------

# Every long task of the page, from its start (registered before the page's own scripts run).
# Every long task of the page, and each script that ran in a long animation frame (Chromium's attribution: the
# file of the function the task entered, its duration), from the page's start.
LONG_TASKS = """(() => { window.__longTasks = []; window.__longScripts = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push({start: e.startTime, duration: e.duration}); })
    .observe({type: 'longtask', buffered: true});
  new PerformanceObserver((l) => { for (const e of l.getEntries()) for (const s of e.scripts ?? [])
      window.__longScripts.push({url: s.sourceURL, fn: s.sourceFunctionName, invoker: s.invoker, duration: s.duration}); })
    .observe({type: 'long-animation-frame', buffered: true}); })();"""

# The longest script of the module's files in a long animation frame, and how many such scripts ran over 50 ms.
MODULE_SCRIPTS = """() => { const mine = (window.__longScripts ?? []).filter((s) => (s.url ?? '').includes('/modules/verdict/'));
  return {longest: Math.max(0, ...mine.map((s) => s.duration)), over50: mine.filter((s) => s.duration > 50).length,
    worst: mine.sort((a, b) => b.duration - a.duration).slice(0, 3)}; }"""

# The moment the log's Verdict messages are drawn for this viewer: connected, no card this viewer may read left
# a shell or rolling, every blind roll's trace labelled. Returns the page's time then (ms from its start).
DRAWN = """() => {
  if (document.body.dataset.ready !== '1') return false;
  if (document.querySelector('#verdict-status')?.dataset.state !== 'open') return false;
  const log = document.getElementById('chat-log');
  if (!log.querySelector('.verdict-card')) return false;
  if (log.querySelector('.verdict-card.verdict-shell, .verdict-card[data-rolling]')) return false;
  for (const t of log.querySelectorAll('.verdict-trace')) if (!t.querySelector('.verdict-trace-label')) return false;
  return performance.now();
}"""

# The same for the cards on screen only (those inside the log's visible box).
ON_SCREEN_DRAWN = """() => {
  if (document.body.dataset.ready !== '1') return false;
  if (document.querySelector('#verdict-status')?.dataset.state !== 'open') return false;
  const log = document.getElementById('chat-log'), box = log.getBoundingClientRect();
  const shown = [...log.querySelectorAll(':scope > .chat-message')].filter((li) => {
    const r = li.getBoundingClientRect(); return r.bottom > box.top && r.top < box.bottom; });
  if (!shown.some((li) => li.querySelector('.verdict-card'))) return false;
  for (const li of shown) {
    if (li.querySelector('.verdict-card.verdict-shell, .verdict-card[data-rolling]')) return false;
    const t = li.querySelector('.verdict-trace');
    if (t && !t.querySelector('.verdict-trace-label')) return false;
  }
  return performance.now();
}"""

# The plain log drawn: its first batch in the log.
PLAIN_DRAWN = """(want) => document.body.dataset.ready === '1'
  && document.querySelectorAll('#chat-log .chat-message').length >= want && performance.now()"""

# What the log holds now: its messages, the Verdict cards and traces among them, their checks, the oldest.
LOG = """() => { const log = document.getElementById('chat-log');
  const items = [...log.querySelectorAll(':scope > .chat-message')];
  const verdict = items.filter((li) => li.querySelector('.verdict-card, .verdict-trace'));
  return {messages: items.length, verdict: verdict.length,
    checks: [...new Set(verdict.map((li) => li.querySelector('[data-check-id]')?.dataset.checkId).filter(Boolean))],
    ids: items.map((li) => li.dataset.messageId), batches: window.__batches ?? 0,
    shells: log.querySelectorAll('.verdict-card.verdict-shell').length,
    unverified: log.querySelectorAll('.verdict-card.unverified').length}; }"""


class Wire:
    """Every frame a page sends to and receives from the sidecar (at ``port``), across its reloads."""

    def __init__(self, page: Any, port: int) -> None:
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []
        self.port = port
        page.on("websocket", self._watch)

    def _watch(self, ws: Any) -> None:
        if f":{self.port}/" not in ws.url:
            return
        ws.on("framesent", lambda p: self._keep(self.sent, p))
        ws.on("framereceived", lambda p: self._keep(self.received, p))

    @staticmethod
    def _keep(into: list[dict[str, Any]], payload: Any) -> None:
        try:
            into.append(json.loads(payload if isinstance(payload, str) else payload.decode()))
        except (ValueError, UnicodeDecodeError):
            into.append({"type": "?"})

    def requests(self, since: int, kind: str | None = None) -> list[dict[str, Any]]:
        """The requests sent since the ``since``-th frame (of a type, or all but hello and ping)."""
        return [
            f
            for f in self.sent[since:]
            if f.get("type") not in ("hello", "ping") and (kind is None or f.get("type") == kind)
        ]

    def answered(self, since_sent: int) -> bool:
        """Every request sent since then has its reply."""
        ids = {f.get("id") for f in self.requests(since_sent) if f.get("id")}
        got = {f.get("id") for f in self.received if f.get("id")}
        return ids <= got


def wait_until(page: Any, condition: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    """Wait for a condition the test process holds (the page's frames), letting the page's events in."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:g} s: {what}")
        page.wait_for_timeout(20)


@dataclass
class Profile:
    """A stretch of the page's main thread as Chromium's sampling profiler saw it."""

    busy_ms: float
    module_ms: float
    longest_module_stretch_ms: float
    top: list[tuple[str, float]] = field(default_factory=list)
    """The module's functions that held the most samples inside them (inclusive), most first."""


def read_profile(profile: dict[str, Any]) -> Profile:
    """The main thread's busy time, the module's share (a sample with a frame of the module's files on its
    stack), and the most module time within one stretch of work between two idle samples."""
    parent: dict[int, int] = {}
    nodes = {n["id"]: n for n in profile["nodes"]}
    for n in profile["nodes"]:
        for c in n.get("children", []):
            parent[c] = n["id"]
    mine: dict[int, bool] = {}

    def in_module(nid: int) -> bool:
        chain = []
        while nid not in mine:
            chain.append(nid)
            if MODULE_URL in nodes[nid]["callFrame"].get("url", ""):
                mine[nid] = True
                break
            if nid not in parent:
                mine[nid] = False
                break
            nid = parent[nid]
        for n in chain:
            mine[n] = mine[nid]
        return mine[nid]

    busy = module = stretch = longest = 0.0
    inside: dict[str, float] = {}
    for nid, delta in zip(profile["samples"], profile["timeDeltas"], strict=True):
        ms = delta / 1000
        if nodes[nid]["callFrame"].get("functionName", "") == "(idle)":
            longest = max(longest, stretch)
            stretch = 0.0
            continue
        busy += ms
        if in_module(nid):
            module += ms
            stretch += ms
            seen = set()
            at: int | None = nid
            while at is not None:
                frame = nodes[at]["callFrame"]
                if MODULE_URL in frame.get("url", ""):
                    name = f"{frame.get('functionName') or '(anonymous)'} {frame['url'].rsplit('/', 1)[-1]}"
                    if name not in seen:
                        seen.add(name)
                        inside[name] = inside.get(name, 0.0) + ms
                at = parent.get(at)
    top = sorted(inside.items(), key=lambda kv: -kv[1])[:12]
    return Profile(busy, module, max(longest, stretch), top)


class Profiler:
    """Chromium's sampling profiler on a page, through the DevTools protocol."""

    def __init__(self, page: Any) -> None:
        self.cdp = page.context.new_cdp_session(page)
        self.cdp.send("Profiler.enable")
        self.cdp.send("Profiler.setSamplingInterval", {"interval": 100})

    def start(self) -> None:
        self.cdp.send("Profiler.start")

    def stop(self) -> Profile:
        return read_profile(self.cdp.send("Profiler.stop")["profile"])


@dataclass
class Load:
    """One F5 of a viewer's page, then the log drawn again and scrolled back once."""

    drawn_ms: float
    profile: Profile
    on_screen_ms: float
    log: dict[str, Any]
    requests: int
    verifies: int
    again_requests: int
    scroll_requests: int
    scroll_log: dict[str, Any]
    scroll_profile: Profile
    long_tasks_over_50: int
    asked: list[str] = field(default_factory=list)
    """The checks the page asked the ledger about after F5 (one entry a request)."""
    again_asked: list[str] = field(default_factory=list)
    """The checks asked about when the log was drawn again."""
    scroll_asked: list[str] = field(default_factory=list)
    """The same while scrolling back."""
    load_scripts: dict[str, Any] = field(default_factory=dict)
    """The module's scripts in long animation frames after F5 (see ``MODULE_SCRIPTS``)."""
    scroll_scripts: dict[str, Any] = field(default_factory=dict)
    """The same while the log was scrolled back."""


def f5(page: Any, wire: Wire, timeout: float = 90.0) -> Load:
    """Reload the page and measure it (see the module's doc)."""
    page.add_init_script(LONG_TASKS)
    profiler = Profiler(page)
    before = len(wire.sent)
    profiler.start()
    page.reload(wait_until="commit")
    on_screen = float(page.wait_for_function(ON_SCREEN_DRAWN, polling="raf", timeout=timeout * 1000).json_value())
    drawn = float(page.wait_for_function(DRAWN, polling="raf", timeout=timeout * 1000).json_value())
    wait_until(page, lambda: wire.answered(before), "the page's requests answered", timeout)
    # A card the ledger's first answer did not back is asked about once more (the world's recheck wait is 0):
    # those are sent by the time a task queued now runs.
    page.evaluate("new Promise((r) => setTimeout(r, 0))")
    wait_until(page, lambda: wire.answered(before), "the page's rechecks answered", timeout)
    load_profile = profiler.stop()
    log = page.evaluate(LOG)
    requests = len(wire.requests(before))
    asked = [str(f.get("check")) for f in wire.requests(before, "verify")]
    # Drawn again (Foundry draws a message again when it changes, in a pop-out, a notification): nothing asked.
    again = len(wire.sent)
    page.evaluate("standin.rerenderChat()")
    page.wait_for_function(DRAWN, polling="raf", timeout=timeout * 1000)
    again_requests = len(wire.requests(again))
    again_asked = [str(f.get("check")) for f in wire.requests(again, "verify")]
    load_scripts = page.evaluate(MODULE_SCRIPTS)
    # Scrolled back to the top: the next batch of older messages.
    page.evaluate("window.__longScripts = []")
    scroll = len(wire.sent)
    profiler.start()
    page.evaluate("document.getElementById('chat-log').scrollTop = 0")
    page.wait_for_function("(n) => (window.__batches ?? 0) > n", arg=log["batches"], timeout=timeout * 1000)
    page.wait_for_function(DRAWN, polling="raf", timeout=timeout * 1000)
    wait_until(page, lambda: wire.answered(scroll), "the scroll's requests answered", timeout)
    scroll_profile = profiler.stop()
    scroll_log = page.evaluate(LOG)
    long_tasks = page.evaluate("(window.__longTasks ?? []).filter((t) => t.duration > 50).length")
    scroll_scripts = page.evaluate(MODULE_SCRIPTS)
    return Load(
        drawn,
        load_profile,
        on_screen,
        log,
        requests,
        len(asked),
        again_requests,
        len(wire.requests(scroll)),
        scroll_log,
        scroll_profile,
        int(long_tasks),
        asked,
        again_asked,
        [str(f.get("check")) for f in wire.requests(scroll, "verify")],
        load_scripts,
        scroll_scripts,
    )


def plain_f5(page: Any, want: int, timeout: float = 90.0) -> tuple[float, Profile]:
    """Reload a page of the plain world: the time until its first batch is in the log, the main thread's time."""
    profiler = Profiler(page)
    profiler.start()
    page.reload(wait_until="commit")
    drawn = float(page.wait_for_function(PLAIN_DRAWN, arg=want, polling="raf", timeout=timeout * 1000).json_value())
    page.wait_for_selector("#verdict-status[data-state='open']", timeout=timeout * 1000)
    return drawn, profiler.stop()


# --- the figure ---------------------------------------------------------------------------------------------


def _rows(size: int, campaign: Campaign, loads: dict[str, Load], plain: dict[str, tuple[float, Profile]]) -> list[Row]:
    rows: list[Row] = []
    for who, load in loads.items():
        anchor_ms, anchor_profile = plain[who]
        drawn = load.log["verdict"]
        newly = load.scroll_log["verdict"] - drawn
        plain_anchor = f"{size:,} plain messages"
        rows += [
            Row(
                "chatlog",
                f"F5 to the cards on screen drawn, {who}",
                load.on_screen_ms,
                plain_anchor,
                anchor_ms,
                "ms",
                False,
            ),
            Row(
                "chatlog",
                f"F5 to the whole batch's cards drawn, {who}",
                load.drawn_ms,
                plain_anchor,
                anchor_ms,
                "ms",
                False,
            ),
            Row(
                "chatlog",
                f"main thread busy after F5, {who}",
                load.profile.busy_ms,
                plain_anchor,
                anchor_profile.busy_ms,
                "ms",
                False,
            ),
            Row(
                "chatlog",
                f"module's main-thread time after F5, {who}",
                load.profile.module_ms,
                "the page's whole main thread",
                load.profile.busy_ms,
                "ms",
                False,
            ),
            Row(
                "chatlog",
                f"requests after F5, {who}",
                load.requests,
                "Verdict messages drawn",
                drawn,
                "requests",
                False,
                target=1.0,
                note=f"{load.verifies} verify; a log of {campaign.messages:,}",
            ),
            Row(
                "chatlog",
                f"requests when drawn again, {who}",
                load.again_requests,
                "Verdict messages drawn",
                drawn,
                "requests",
                False,
                limit=1,
            ),
            Row(
                "chatlog",
                f"requests scrolling back one batch, {who}",
                load.scroll_requests,
                "Verdict messages it drew",
                max(newly, 1),
                "requests",
                False,
                target=1.0,
            ),
            Row(
                "chatlog",
                f"longest module script after F5, {who}",
                load.load_scripts.get("longest", 0.0),
                "a long task",
                50.0,
                "ms",
                False,
                limit=50.0,
                note=f"{load.load_scripts.get('over50', 0)} over 50 ms",
            ),
            Row(
                "chatlog",
                f"longest module script scrolling back, {who}",
                load.scroll_scripts.get("longest", 0.0),
                "a long task",
                50.0,
                "ms",
                False,
                limit=50.0,
                note=f"{load.scroll_scripts.get('over50', 0)} over 50 ms; {load.long_tasks_over_50} long tasks in the page",
            ),
        ]
    return rows


def run(full: bool = False, size: int | None = None) -> list[Row]:
    """The figure: a log of ``size`` Verdict messages (2,000; the plain world the same), GM and player."""
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(STANDIN))
    from server import StandinServer  # type: ignore[import-not-found]

    size = size or 2000
    routes = {MODULE_URL: ROOT / "vtt-module", "/standin/": STANDIN, "/node_modules/": ROOT / "node_modules"}
    standin = StandinServer(routes, STANDIN / "index.html")
    web = standin.start()
    try:
        with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path="/usr/bin/chromium",
                args=[
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--no-first-run",
                ],
            )
            try:
                with campaign_sidecar(Path(tmp), web) as sidecar:
                    world, campaign = seeded_world(browser, standin, web, sidecar, size)
                    return _measure(browser, standin, web, sidecar, world, campaign)
            finally:
                browser.close()
    finally:
        standin.stop()


class CampaignSidecar:
    """`verdict serve` for a seeded campaign: months of play written at once need the request rate lifted while
    seeding (``seeding()``); the log is then loaded against the sidecar as it ships (its default limits)."""

    def __init__(self, data: Path, web: str) -> None:
        from tests.serving import Process, free_port

        self.web = web
        self.port = free_port()
        self._make: Callable[..., Process] = lambda *extra: Process(
            data, self.port, extra=("--allow-origin", web, *extra)
        )
        self.proc = self._make("--rate", "1000")
        self.proc.start()
        self.keys = self.proc.keys()

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def as_shipped(self) -> None:
        """Start it again with the default limits (the ledger stays)."""
        self.proc.stop()
        self.proc = self._make()
        self.proc.start()

    def stop(self) -> None:
        if self.proc.proc is not None:
            self.proc.stop()


@contextlib.contextmanager
def campaign_sidecar(data: Path, web: str) -> Iterator[CampaignSidecar]:
    sidecar = CampaignSidecar(data, web)
    try:
        yield sidecar
    finally:
        sidecar.stop()


def settings(sidecar: CampaignSidecar) -> dict[str, Any]:
    """A server-mode world of the sidecar's default table; the full GM holds the GM key."""
    return {
        "verdict.url": f"http://127.0.0.1:{sidecar.port}",
        "verdict.table": sidecar.keys.table,
        "verdict.playerKey": sidecar.keys.player,
        "verdict.mode": "server",
        "verdict.system": "facets",
        "gm1:verdict.gmKey": sidecar.keys.gm,
    }


def open_page(browser: Any, web: str, world: Any, user: str, undrawn: bool = False) -> Any:
    """``user``'s page of ``world`` in a browser context of its own, loaded and connected to the sidecar."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    if undrawn:
        context.add_init_script("window.__chatUndrawn = true")
    page = context.new_page()
    page.goto(f"{web}/?world={world.id}&user={user}")
    page.wait_for_selector("body[data-ready='1']", timeout=30000)
    page.wait_for_selector("#verdict-status[data-state='open']", timeout=30000)
    return page


def seeded_world(browser: Any, standin: Any, web: str, sidecar: CampaignSidecar, size: int) -> tuple[Any, Campaign]:
    """A world holding a campaign of about ``size`` Verdict messages, written by the relay's page and the
    player's (both with the chat log undrawn, closed afterwards); the sidecar then runs as shipped."""
    # The module asks again about a card the ledger's first answer did not back at once instead of a moment
    # later, so that what a card drawn again asks is told apart from that second question.
    world = standin.world(settings(sidecar), system="rebuild", config={"verdict": {"timings": {"verifyRecheck": 0}}})
    relay = open_page(browser, web, world, "gm1", undrawn=True)
    try:
        player = open_page(browser, web, world, "p1", undrawn=True)
        try:
            campaign = seed(standin, world, relay, player, sidecar.url, sidecar.keys.table, sidecar.keys.gm, size)
        finally:
            player.context.close()
    finally:
        relay.context.close()
    sidecar.as_shipped()
    return world, campaign


def seed(standin: Any, world: Any, gm: Any, player: Any, url: str, table: str, gm_key: str, size: int) -> Campaign:
    """Fill ``world`` with a campaign of about ``size`` Verdict messages through the relay page ``gm`` (and the
    player's page ``player`` for the self rolls), both open with the chat log undrawn."""
    selves = max(1, size // 50)
    # A player's blind roll makes two messages (the GMs' card, the roller's trace): 2 rolls in 15 are such.
    campaign = roll_campaign_in_thread(url, table, gm_key, round((size - selves) * 15 / 17))
    campaign.self_rolls = self_rolls(player, selves)
    want = campaign.messages

    def written() -> int:
        return int(standin.call(lambda: len(world.messages)))

    wait_until(gm, lambda: written() >= want, f"{want} messages written (so far {written()})", 120)
    return campaign


def plain_world(standin: Any, sidecar: CampaignSidecar, count: int) -> Any:
    """The anchor: a world of ``count`` plain messages with a roll, the module active as in the other."""
    world = standin.world(settings(sidecar), system="rebuild")
    put_messages(standin, world, plain_messages(count), [("p1", "p2", "gm1")[i % 3] for i in range(count)])
    return world


def _measure(
    browser: Any, standin: Any, web: str, sidecar: CampaignSidecar, world: Any, campaign: Campaign
) -> list[Row]:
    loads: dict[str, Load] = {}
    gm = open_page(browser, web, world, "gm1")
    for who, user in (("GM", "gm1"), ("player", "p1")):
        page = gm if user == "gm1" else open_page(browser, web, world, user)
        loads[who] = f5(page, Wire(page, sidecar.port))
        if page is not gm:
            page.context.close()
    gm.context.close()
    count = campaign.messages
    anchor = plain_world(standin, sidecar, count)
    plain: dict[str, tuple[float, Profile]] = {}
    for who, user in (("GM", "gm1"), ("player", "p1")):
        page = open_page(browser, web, anchor, user)
        plain[who] = plain_f5(page, min(count, 100))
        page.context.close()
    return _rows(count, campaign, loads, plain)


def smallest() -> list[Row]:
    """The figure at the least size that still draws a second batch on scrolling back."""
    return run(size=150)
