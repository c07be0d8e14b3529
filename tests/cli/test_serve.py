"""`verdict serve`'s options are sidecar/config.py's knobs: every one is an option whose help says its default,
a value out of its bounds is refused naming the option, and every one reaches the running server.

The sidecar runs here in this process, on a thread (``main(["serve", ...])`` as the shell would call it):
only signals, a child process' own business, are left to the tests that start one.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from aiohttp import web
from aiohttp.web_runner import GracefulExit

from sidecar import config, datadir
from sidecar.cli import DEFAULTS_SAID, build_parser, main, serve_settings
from sidecar.server import run
from sidecar.server.appkeys import HUB, LIMITS, SETTINGS, UNFINISHED
from tests.serving import free_port

from .running import verdict

NUMBERS = [k for k in config.KNOBS if k.kind in (int, float)]


def _options_by_group(help_text: str) -> dict[str, str]:
    """``--help``'s text per group, its lines joined (argparse wraps them where it likes)."""
    parts = re.split(r"^(\w+): .*:$", help_text, flags=re.M)
    return {name: " ".join(body.split()) for name, body in zip(parts[1::2], parts[2::2], strict=True)}


def test_help_lists_every_knob_in_its_group_with_its_default() -> None:
    r = verdict("serve", "--help")
    assert r.returncode == 0, r.stderr
    groups = _options_by_group(r.stdout)
    assert list(groups) == list(config.GROUPS)
    for group, text in groups.items():
        knobs = [k for k in config.KNOBS if k.group == group]
        starts = [text.index(k.option + " ") for k in knobs]  # each option's entry, in the declared order
        assert starts == sorted(starts), group
        for knob, start, end in zip(knobs, starts, [*starts[1:], len(text)], strict=True):
            entry = text[start:end].strip()
            variable = f"${knob.env}, else " if knob.env else ""
            said = DEFAULTS_SAID[knob.name]() if knob.name in DEFAULTS_SAID else knob.said(knob.default)
            assert entry.endswith(f"default: {variable}{said})"), entry
    assert "--max-frame BYTES" in groups["limits"] and "(default: 64 KiB)" in groups["limits"]
    assert "--hello-timeout SECONDS" in groups["timeouts"] and "(default: 10 s)" in groups["timeouts"]
    assert "--idle-unload-after SECONDS" in groups["growth"] and "(default: 10 min)" in groups["growth"]


@pytest.mark.parametrize("knob", NUMBERS, ids=lambda k: k.option)
def test_a_value_out_of_bounds_is_refused_naming_the_option(knob: config.Knob, tmp_path: Path) -> None:
    bad = ["many"] + ([str(knob.kind(knob.low) - 1)] if knob.low is not None else [])
    bad += [str(knob.kind(knob.high) + 1)] if knob.high is not None else []
    for value in bad:
        r = verdict("serve", "--data", str(tmp_path), knob.option, value)
        assert r.returncode == 2 and r.stdout == ""
        assert r.stderr.startswith(f"verdict serve: argument {knob.option}: expected "), r.stderr
        assert repr(value) in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr
    assert not (tmp_path / config.DATA_FILE).exists()  # refused before anything was opened


@pytest.mark.parametrize(
    "args, says",
    [
        (["--trust-proxy", "the-proxy"], "verdict: --trust-proxy: 'the-proxy' is not an IP address or network"),
        (["--public-url", "ftp://x"], "verdict: --public-url: "),
        (["--log-format", "xml"], "verdict serve: argument --log-format: invalid choice: 'xml'"),
        (["--port", "65536"], "verdict serve: argument --port: expected a whole number, at most 65535; got '65536'"),
    ],
)
def test_a_bad_place_is_refused_naming_the_option(args: list[str], says: str, tmp_path: Path) -> None:
    r = verdict("serve", "--data", str(tmp_path), *args)
    assert r.returncode == 2 and r.stderr.startswith(says) and len(r.stderr.splitlines()) == 1, r.stderr
    assert not (tmp_path / config.DATA_FILE).exists()


def test_the_bounds_say_what_is_allowed() -> None:
    r = verdict("serve", "--max-frame", "100")
    assert "--max-frame: expected a whole number of bytes, at least 1 KiB; got '100'" in r.stderr
    r = verdict("serve", "--hello-timeout", "0")
    assert "--hello-timeout: expected a number of seconds, at least 0.1 s; got '0'" in r.stderr
    r = verdict("serve", "--rate", "nan")
    assert r.returncode == 2 and "--rate: expected a number of requests per second, got 'nan'" in r.stderr


def test_options_then_the_environment_then_the_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    parser = build_parser()
    for knob in config.KNOBS:
        if knob.env:
            monkeypatch.delenv(knob.env, raising=False)
    monkeypatch.chdir(tmp_path)  # no ./var here: the platform's data folder
    assert serve_settings(parser.parse_args(["serve"])) == run.Settings(data=datadir.platform_data_dir())
    monkeypatch.setenv(config.METRICS_TOKEN_ENV, "from-env")
    monkeypatch.setenv(config.DATA_ENV, str(tmp_path / "env"))
    s = serve_settings(parser.parse_args(["serve", "--data", str(tmp_path / "opt")]))
    assert (s.metrics_token, s.data) == ("from-env", tmp_path / "opt")
    s = serve_settings(
        parser.parse_args(["serve", "--allow-origin", "https://a.example", "--allow-origin", "https://b"])
    )
    assert (s.data, s.allow_origins) == (tmp_path / "env", ("https://a.example", "https://b"))


class Serving:
    """``verdict serve ARGS`` run by the CLI's ``main`` on a thread of this process, until :meth:`stop`."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, data: Path, *args: str) -> None:
        self.port, self.data = free_port(), data
        self.app: web.Application | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.status: list[int] = []
        real = run.create_app

        def create_app(*a: Any, **kw: Any) -> web.Application:  # the application serve() made, to look into
            app = self.app = real(*a, **kw)

            async def started(_: web.Application) -> None:
                self.loop = asyncio.get_running_loop()

            app.on_startup.append(started)
            return app

        monkeypatch.setattr(run, "create_app", create_app)
        argv = ["serve", "--port", str(self.port), "--data", str(data), *args]
        self.thread = threading.Thread(target=lambda: self.status.append(main(argv)), daemon=True)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def keys(self) -> dict[str, str]:
        lines = (self.data / config.KEYS_FILE).read_text().splitlines()
        return dict(line.split(" ", 1) for line in lines)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 30
        while True:  # until the socket takes a connection (or the thread ends, saying why in its status)
            assert self.thread.is_alive(), f"verdict serve exited with {self.status}"
            assert time.monotonic() < deadline, "verdict serve did not listen"
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.02)

    def stop(self) -> int:
        def leave() -> None:
            raise GracefulExit  # what SIGINT raises in the main thread

        if self.loop is not None:
            self.loop.call_soon_threadsafe(leave)
        self.thread.join(30)
        assert not self.thread.is_alive() and len(self.status) == 1
        return self.status[0]


@pytest.fixture
def serving(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Any]:
    started: list[Serving] = []

    def start(*args: str) -> Serving:
        s = Serving(monkeypatch, tmp_path / "data", *args)
        s.start()
        started.append(s)
        return s

    yield start
    for s in started:
        if s.thread.is_alive():
            s.stop()


NOT_DEFAULT: dict[str, str] = {
    "host": "localhost",  # reached on 127.0.0.1; --port is the fixture's own
    "public_url": "https://verdict.example.org",
    "allow_origins": "https://foundry.example.org",
    "trusted_proxies": "10.0.0.0/8",
    "metrics_token": "s3cret",
    "log_format": "json",
    "loop": "asyncio",
    "max_frame": "2048",
    "rate": "200",
    "burst": "300",
    "key_rate": "150",
    "address_rate": "900",
    "max_connections": "200",
    "max_per_address": "40",
    "max_guests": "1",
    "max_per_user": "3",
    "gm_seats": "2",
    "max_unfinished_bytes": str(1 * config.MIB),
    "send_buffer": str(32 * config.KIB),
    "odds_queue": "3",
    "hello_timeout": "1.5",
    "frame_timeout": "7",
    "shutdown_timeout": "2",
    "request_window": "50",
    "request_window_age": "3600",
    "housekeeping_every": "5",
    "snapshot_every": "77",
    "idle_unload_after": "120",
}
"""A value other than the default for every knob but where it listens, keeps its data and its ledger (a
PostgreSQL ledger is tests/cli/test_cli_postgres.py's)."""


def _hello(table: str, key: str) -> str:
    return json.dumps({"type": "hello", "protocol": 1, "table": table, "key": key, "client": "test"})


async def _connect(url: str) -> Any:
    return await websockets.connect(url, subprotocols=["verdict.v1"], compression=None)


async def test_every_knob_reaches_the_running_server(serving: Any) -> None:
    assert set(NOT_DEFAULT) | {"port", "data", "ledger_url"} == {k.name for k in config.KNOBS}
    args = [a for k in config.KNOBS if k.name in NOT_DEFAULT for a in (k.option, NOT_DEFAULT[k.name])]
    s = serving(*args)
    assert s.app is not None
    settings = s.app[SETTINGS]
    for knob in config.KNOBS:
        if knob.name in NOT_DEFAULT:
            read = knob.kind(NOT_DEFAULT[knob.name])
            expected = (read,) if knob.repeat else read
            assert getattr(settings, knob.name) == expected != knob.default, knob.name
    # what the server made of them
    assert isinstance(s.loop, run.ServingLoop)
    hub = s.app[HUB]
    assert (hub.housekeeping_every, hub.snapshot_every, hub.idle_after) == (5, 77, 120)
    assert (hub.ledger.window.count, hub.ledger.window.age) == (50, 3600)
    assert s.app[UNFINISHED].bound == config.MIB
    assert (s.app[LIMITS]["key"].rate, s.app[LIMITS]["address"].rate, s.app[LIMITS]["key"].burst) == (150, 900, 600)
    keys = s.keys()

    # --max-frame: a frame of 3,000 bytes is refused (the default takes 64 KiB)
    gm = await _connect(s.url)
    await gm.send(_hello(keys["table"], keys["gm"]))
    assert json.loads(await gm.recv())["type"] == "welcome"
    await gm.send(json.dumps({"type": "state", "id": "big", "pad": "x" * 3000}))
    refused = json.loads(await gm.recv())
    assert (refused["type"], refused["code"]) == ("error", "frame_too_large") and "2048" in refused["message"]

    # --max-guests: one observer gets in, the next is refused
    first, second = await _connect(s.url), await _connect(s.url)
    await first.send(_hello(keys["table"], keys["observer"]))
    assert json.loads(await first.recv())["type"] == "welcome"
    await second.send(_hello(keys["table"], keys["observer"]))
    full = json.loads(await second.recv())
    assert (full["type"], full["code"]) == ("error", "too_many_connections")

    # --hello-timeout: a socket that says nothing is closed after 1.5 s (the default waits 10)
    silent = await _connect(s.url)
    opened = time.monotonic()
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await asyncio.wait_for(silent.recv(), 9)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4408
    assert time.monotonic() - opened < 9

    for ws in (gm, first, second):
        await ws.close()
    assert await asyncio.to_thread(s.stop) == 0


async def test_the_defaults_reach_the_running_server(serving: Any) -> None:
    s = serving()
    assert s.app is not None
    settings = s.app[SETTINGS]
    for knob in config.KNOBS:
        if knob.name not in ("port", "data", "max_connections", "loop"):
            assert getattr(settings, knob.name) == knob.default, knob.name
    # the loop it runs on: uvloop here, unless the suite runs on asyncio's (VERDICT_LOOP)
    assert settings.loop == run.loop_to_run(os.environ.get(config.LOOP_ENV) or None)
    assert (type(s.loop).__module__.startswith("uvloop")) == (settings.loop == "uvloop")
    assert settings.max_connections == run.connection_cap(run.file_limit(), config.DEFAULTS.max_connections)
    keys = s.keys()
    gm = await _connect(s.url)
    await gm.send(_hello(keys["table"], keys["gm"]))
    assert json.loads(await gm.recv())["type"] == "welcome"
    await gm.send(json.dumps({"type": "state", "id": "big", "pad": "x" * 3000}))  # within 64 KiB: read
    read = json.loads(await gm.recv())
    assert (read["type"], read["code"]) == ("error", "invalid_message")  # its field `pad` is unknown
    await gm.close()
    assert await asyncio.to_thread(s.stop) == 0
