"""The event loop `verdict serve` runs on: uvloop wherever the package depends on it, asyncio's own with
``--loop asyncio`` (or ``$VERDICT_LOOP``) and on Windows; the start line and the log say which.

The sidecars here are real `verdict serve` processes; the choice itself is checked as a function too, with
the platforms and installs this machine is not."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement

import protocol.v1.messages as m
from sidecar import config
from sidecar.client import Client
from sidecar.server import run
from tests.serving import ROOT, Process, free_port, serve_command


def _start_line_and_log(tmp_path: Path, *extra: str, env: dict[str, str] | None = None) -> tuple[str, dict[str, str]]:
    """`verdict serve` started until it listens: its start line and its log's `listening` record."""
    port = free_port()
    environment = {k: v for k, v in os.environ.items() if k != config.LOOP_ENV} | (env or {})
    proc = subprocess.Popen(
        serve_command(port, tmp_path / "data", *extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
        env=environment | {"PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    said, start, logged = [], None, None
    try:
        for line in proc.stdout:
            said.append(line)
            if " listening on " in line and not line.startswith("{"):
                start = line.strip()
            if line.startswith("{") and json.loads(line).get("event") == "listening":
                logged = json.loads(line)
            if start is not None and logged is not None:
                return start, logged
    finally:
        proc.terminate()
        proc.wait(15)
        proc.stdout.close()
    raise AssertionError("verdict serve stopped before it said it listened:\n" + "".join(said))


def test_the_start_line_and_the_log_name_the_loop_uvloop_by_default(tmp_path: Path) -> None:
    start, logged = _start_line_and_log(tmp_path)
    assert " listening on ws://127.0.0.1:" in start and start.split("/ws ")[1].startswith("on uvloop (")
    assert (logged["loop"], logged["line"]) == ("uvloop", start)


def test_loop_asyncio_is_honoured_from_the_option_and_from_the_environment(tmp_path: Path) -> None:
    start, logged = _start_line_and_log(tmp_path, "--loop", "asyncio")
    assert start.split("/ws ")[1].startswith("on asyncio (") and logged["loop"] == "asyncio"
    start, logged = _start_line_and_log(tmp_path, env={config.LOOP_ENV: "asyncio"})
    assert start.split("/ws ")[1].startswith("on asyncio (") and logged["loop"] == "asyncio"
    # the option wins over the variable
    start, logged = _start_line_and_log(tmp_path, "--loop", "uvloop", env={config.LOOP_ENV: "asyncio"})
    assert logged["loop"] == "uvloop"


def test_a_loop_that_is_not_one_is_refused_from_the_option_and_from_the_environment(tmp_path: Path) -> None:
    by_option = subprocess.run(
        serve_command(free_port(), tmp_path / "data", "--loop", "trio"), capture_output=True, text=True, cwd=ROOT
    )
    assert by_option.returncode == 2 and "--loop" in by_option.stderr and "invalid choice" in by_option.stderr
    env = {**os.environ, config.LOOP_ENV: "trio"}
    by_env = subprocess.run(
        serve_command(free_port(), tmp_path / "data"), capture_output=True, text=True, cwd=ROOT, env=env, timeout=60
    )
    assert by_env.returncode == 2, by_env.stdout + by_env.stderr
    assert "verdict: --loop: 'trio' is not a loop (uvloop or asyncio)" in by_env.stderr
    assert " listening on " not in by_env.stdout


def _uvloop_requirement() -> Requirement:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found = [Requirement(r) for r in project["dependencies"] if Requirement(r).name == "uvloop"]
    assert len(found) == 1, project["dependencies"]
    return found[0]


@pytest.mark.parametrize("platform", ["linux", "darwin", "win32", "freebsd14", "cygwin"])
def test_uvloop_is_the_default_exactly_where_the_package_depends_on_it(platform: str) -> None:
    requirement = _uvloop_requirement()
    assert str(requirement.specifier).startswith("==")  # pinned, as every dependency is
    assert requirement.marker is not None
    installed_there = requirement.marker.evaluate({"sys_platform": platform})
    assert installed_there == (platform != "win32")
    assert (run.default_loop(platform) == "uvloop") == installed_there
    assert Marker('sys_platform != "win32"') == requirement.marker


def test_the_loop_chosen_where_uvloop_is_missing_or_asked_for_by_name() -> None:
    assert run.loop_to_run(None, "linux", have_uvloop=True) == "uvloop"
    assert run.loop_to_run(None, "win32", have_uvloop=False) == "asyncio"
    # installed without its dependencies: the standard loop, rather than no sidecar
    assert run.loop_to_run(None, "linux", have_uvloop=False) == "asyncio"
    assert run.loop_to_run("asyncio", "linux", have_uvloop=True) == "asyncio"
    assert run.loop_to_run("uvloop", "darwin", have_uvloop=True) == "uvloop"
    with pytest.raises(run.LoopUnavailable, match="uvloop is not installed"):
        run.loop_to_run("uvloop", "win32", have_uvloop=False)
    with pytest.raises(run.LoopUnavailable, match="'trio' is not a loop"):
        run.loop_to_run("trio", "linux", have_uvloop=True)
    uv = run.new_loop("uvloop")
    std = run.new_loop("asyncio")
    try:
        assert type(uv).__module__.startswith("uvloop")
        assert sys.platform == "win32" or isinstance(std, run.ServingLoop)
    finally:
        for loop in (uv, std):
            if loop is not None:
                loop.close()


@pytest.mark.slow
def test_on_uvloop_held_at_the_file_limit_the_sidecar_drops_the_excess_and_serves_on(tmp_path: Path) -> None:
    """`verdict serve` on uvloop under a file limit of 64, flooded by connections that send nothing.

    asyncio leaves the connections it cannot take in the listen queue and retries (:class:`run.ServingLoop`
    keeps that to one retry a second); libuv accepts each one it has no descriptor for with a spare one and
    closes it at once: the peer hears so, nothing spins, and the GM still gets in once the flood is gone."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))

    log = tmp_path / "server.log"
    extra = ("--loop", "uvloop", "--hello-timeout", "600", "--shutdown-timeout", "1")
    server = Process(tmp_path / "data", free_port(), extra=extra, log=log, preexec_fn=limit)
    server.start()
    flood: list[socket.socket] = []
    try:
        for _ in range(200):
            sock = socket.socket()
            sock.connect(("127.0.0.1", server.port))
            flood.append(sock)
        # those the sidecar had no descriptor for are closed by it: each reads its end (a bound only so
        # that a sidecar that never drops them fails the test instead of hanging the suite)
        deadline, dropped = time.monotonic() + 60, 0
        while dropped < 100:
            assert time.monotonic() < deadline, f"{dropped} of 200 connections dropped"
            dropped = 0
            for sock in flood:
                sock.setblocking(False)
                try:
                    dropped += sock.recv(1) == b""
                except BlockingIOError:
                    pass
                except OSError:
                    dropped += 1
            time.sleep(0.1)
        for sock in flood:
            sock.close()
        flood.clear()
        keys = server.keys()

        async def gm_served() -> object:
            gm = await Client.connect(server.url, keys.table, keys.gm, user="gm")
            try:
                return await gm.request(m.Ping(id="after"))
            finally:
                await gm.close()

        assert isinstance(asyncio.run(gm_served()), m.Pong)
    finally:
        for sock in flood:
            sock.close()
        assert server.stop() == 0
    said = log.read_bytes()
    assert b"Traceback" not in said and len(said) < 20_000, said[-2000:].decode(errors="replace")


async def test_the_suite_runs_on_the_loop_its_sidecars_run_on() -> None:
    from tests.conftest import TEST_LOOP

    assert TEST_LOOP == run.loop_to_run(os.environ.get(config.LOOP_ENV) or None)
    on_uvloop = type(asyncio.get_running_loop()).__module__.startswith("uvloop")
    assert on_uvloop == (TEST_LOOP == "uvloop")
