"""The data folder a campaign lives in: where it is, who may read it, the keys in it kept in step."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from protocol.v1 import messages as m
from sidecar.client import Client, RequestFailed
from tests.serving import ROOT, free_port, wait_listening

from .running import verdict


def _env(tmp_path: Path) -> dict[str, str]:
    """The environment of a user whose platform data folder is under ``tmp_path`` (XDG on Linux)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("VERDICT_")}
    env.update(XDG_DATA_HOME=str(tmp_path / "xdg"), HOME=str(tmp_path / "home"), PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = str(ROOT)
    return env


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


class Serving:
    """`verdict serve` started as a user starts it: from ``cwd``, without --data, its output a pipe (a log)."""

    def __init__(self, tmp_path: Path, cwd: Path, *extra: str) -> None:
        self.port = free_port()
        cwd.mkdir(parents=True, exist_ok=True)
        self.out = tmp_path / f"serve-{self.port}.out"
        with open(self.out, "wb") as out:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "sidecar.cli",
                    "serve",
                    "--port",
                    str(self.port),
                    "--log-format",
                    "json",
                    *extra,
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=cwd,
                env=_env(tmp_path),
            )
        wait_listening(self.port, self.proc)

    def said(self) -> str:
        return self.out.read_text()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=15)


def _keys(folder: Path) -> dict[str, str]:
    return dict(line.split(" ", 1) for line in (folder / "default-table.keys").read_text().splitlines())


def test_the_data_folder_is_the_platforms_wherever_the_sidecar_starts(tmp_path: Path) -> None:
    folder = tmp_path / "xdg" / "verdict"
    first = Serving(tmp_path, tmp_path / "here")
    first.stop()
    table = _keys(folder)["table"]
    assert f"data folder: {folder}" in first.said()
    second = Serving(tmp_path, tmp_path / "elsewhere")  # another working directory: the same table
    second.stop()
    assert _keys(folder)["table"] == table
    assert "new table" not in second.said() and table in second.said()
    assert not (tmp_path / "here" / "var").exists() and not (tmp_path / "elsewhere" / "var").exists()


def test_an_empty_folder_says_which_folder_it_is(tmp_path: Path) -> None:
    r = verdict("table", "list", env=_env(tmp_path), cwd=tmp_path, unset=["VERDICT_DATA"])
    assert r.returncode == 0
    assert r.stdout == f"no tables yet in the data folder {tmp_path / 'xdg' / 'verdict'}: verdict table create NAME\n"


def test_an_existing_var_is_kept_with_a_note(tmp_path: Path) -> None:
    made = verdict("table", "--data", str(tmp_path / "var"), "create", "Old campaign")
    assert made.returncode == 0
    r = verdict("table", "list", env=_env(tmp_path), cwd=tmp_path, unset=["VERDICT_DATA"])
    assert r.returncode == 0 and "Old campaign" in r.stdout
    note = r.stderr.splitlines()
    assert len(note) == 1 and str(tmp_path / "var") in note[0] and str(tmp_path / "xdg" / "verdict") in note[0]


def test_the_data_folder_and_its_files_are_the_owners_alone(tmp_path: Path) -> None:
    folder = tmp_path / "xdg" / "verdict"
    sidecar = Serving(tmp_path, tmp_path)
    try:
        names = {p.name for p in folder.iterdir()}
        assert {"verdict.sqlite3", "verdict.sqlite3-wal", "verdict.sqlite3-shm", "default-table.keys"} <= names
        assert _mode(folder) == 0o700
        assert {p.name: _mode(p) for p in folder.iterdir()} == dict.fromkeys(names, 0o600)
    finally:
        sidecar.stop()


def test_an_older_folder_is_tightened(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert verdict("table", "--data", str(data), "create", "Loose").returncode == 0
    data.chmod(0o755)
    (data / "verdict.sqlite3").chmod(0o644)
    assert verdict("table", "--data", str(data), "list").returncode == 0
    assert _mode(data) == 0o700 and _mode(data / "verdict.sqlite3") == 0o600


def test_keys_are_not_written_into_a_log(tmp_path: Path) -> None:
    folder = tmp_path / "xdg" / "verdict"
    sidecar = Serving(tmp_path, tmp_path)
    sidecar.stop()
    keys = _keys(folder)
    said = sidecar.said()
    assert keys["gm"] not in said and keys["player"] not in said and "GM key" not in said
    assert f"its keys are in {folder / 'default-table.keys'}" in said
    assert _mode(folder / "default-table.keys") == 0o600


async def test_rotated_keys_replace_the_keys_file_and_the_next_start_shows_working_keys(tmp_path: Path) -> None:
    folder = tmp_path / "xdg" / "verdict"
    Serving(tmp_path, tmp_path).stop()
    old = _keys(folder)
    r = verdict("table", "rotate-keys", old["table"], env=_env(tmp_path), cwd=tmp_path, unset=["VERDICT_DATA"])
    assert r.returncode == 0, r.stderr
    new = _keys(folder)
    assert new["table"] == old["table"] and new["gm"] != old["gm"] and new["gm"] in r.stdout
    assert f"(the new keys replace the old in {folder / 'default-table.keys'})" in r.stdout
    assert _mode(folder / "default-table.keys") == 0o600
    sidecar = Serving(tmp_path, tmp_path)
    try:
        gm = await Client.connect(f"ws://127.0.0.1:{sidecar.port}/ws", new["table"], new["gm"])
        assert isinstance(await gm.request(m.Ping(id="p")), m.Pong)
        await gm.close()
        try:
            stale = await Client.connect(f"ws://127.0.0.1:{sidecar.port}/ws", old["table"], old["gm"])
        except RequestFailed as exc:
            assert exc.code == "unauthorized"
        else:
            await stale.close()
            raise AssertionError("the old GM key still opens the table")
    finally:
        sidecar.stop()


def test_table_names_are_given_and_unique(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    empty = verdict("table", "--data", data, "create", "  ")
    assert empty.returncode == 2 and "give the table a name" in empty.stderr
    assert verdict("table", "--data", data, "create", "Friday").returncode == 0
    twice = verdict("table", "--data", data, "create", "Friday")
    assert twice.returncode == 2 and "a table named 'Friday' is already in the data folder" in twice.stderr
    assert len(verdict("table", "--data", data, "list").stdout.splitlines()) == 1
