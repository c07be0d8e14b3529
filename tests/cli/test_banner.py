"""What `verdict serve` tells the GM at start, and the table commands' refusals: the URL to paste, the port
bound, the addresses that reach it, a busy port found before anything is made."""

from __future__ import annotations

import re
import socket
import subprocess
from pathlib import Path

import pytest

from protocol.v1 import messages as m
from sidecar.client import Client
from tests.serving import free_port, serve_command

from .running import verdict


def _serve_until_listening(cmd: list[str], timeout: float = 30) -> tuple[subprocess.Popen[str], list[str]]:
    """Start ``cmd``; the lines it printed up to its listening line (it keeps serving)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line.rstrip("\n"))
        if " listening on " in line:
            return proc, lines
    proc.wait(timeout=timeout)
    raise AssertionError("\n".join(lines))


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    proc.wait(timeout=15)


async def test_port_0_prints_the_port_bound_and_the_sidecar_url_to_paste(tmp_path: Path) -> None:
    proc, lines = _serve_until_listening(serve_command(0, tmp_path / "data"))
    try:
        (url,) = [x for x in lines if x.startswith("Sidecar URL")]
        hit = re.fullmatch(r"Sidecar URL \(paste into Foundry's module settings\): http://127\.0\.0\.1:(\d+)", url)
        assert hit, url
        port = int(hit[1])
        assert port != 0 and f"ws://127.0.0.1:{port}/ws" in lines[-1]
        keys = dict(x.split(" ", 1) for x in (tmp_path / "data" / "default-table.keys").read_text().splitlines())
        gm = await Client.connect(f"ws://127.0.0.1:{port}/ws", keys["table"], keys["gm"])
        assert isinstance(await gm.request(m.Ping(id="p")), m.Pong)
        await gm.close()
    finally:
        _stop(proc)


def _other_address() -> str | None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
        except OSError:
            return None
        address: str = probe.getsockname()[0]
    return None if address.startswith("127.") else address


def test_all_interfaces_print_the_addresses_that_reach_it(tmp_path: Path) -> None:
    other = _other_address()
    if other is None:
        pytest.skip("this machine has no address but loopback")
    port = free_port()
    proc, lines = _serve_until_listening(serve_command(port, tmp_path / "data", "--host", "0.0.0.0"))
    try:
        said = "\n".join(lines)
        assert f"Sidecar URL (paste into Foundry's module settings): http://127.0.0.1:{port}" in said
        assert f"  from other machines: http://{other}:{port} " in said
        with socket.create_connection((other, port), timeout=5):
            pass  # the address printed reaches it
    finally:
        _stop(proc)


def test_the_public_url_is_the_sidecar_url_and_a_pasted_manifest_url_is_trimmed(tmp_path: Path) -> None:
    pasted = "https://verdict.example.org/module/module.json"
    proc, lines = _serve_until_listening(serve_command(0, tmp_path / "data", "--public-url", pasted))
    try:
        assert "Sidecar URL (paste into Foundry's module settings): https://verdict.example.org" in lines
        assert "(Foundry manifest: https://verdict.example.org/module/module.json)" in lines[-1]
    finally:
        _stop(proc)


def test_a_busy_port_is_found_before_a_table_is_made(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = subprocess.run(serve_command(port, data), capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert (
        r.stderr.strip()
        == f"verdict: 127.0.0.1:{port} is already in use (another sidecar?); choose another with --port"
    )
    assert r.stdout == ""  # no keys "shown only now" for a table nobody can reach
    assert not data.exists()


def test_table_delete_asks_backs_up_and_deletes(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    keep = verdict("table", "--data", data, "create", "Keep", "--json")
    gone = verdict("table", "--data", data, "create", "Gone", "--json")
    keep_id, gone_id = (re.search(r'"table": "(\w+)"', r.stdout)[1] for r in (keep, gone))  # type: ignore[index]
    unconfirmed = verdict("table", "--data", data, "delete", gone_id)  # no terminal to ask on
    assert unconfirmed.returncode == 2 and "confirm by typing its name, or add --yes" in unconfirmed.stderr
    assert gone_id in verdict("table", "--data", data, "list").stdout
    r = verdict("table", "--data", data, "delete", gone_id, "--yes")
    assert r.returncode == 0, r.stderr
    backup = Path(r.stdout.strip().rsplit(" ", 1)[-1])
    assert backup.parent == tmp_path / "data" and backup.name.startswith(f"verdict.sqlite3.before-delete-{gone_id}-")
    listed = verdict("table", "--data", data, "list").stdout
    assert keep_id in listed and gone_id not in listed
    restored = tmp_path / "restored"
    assert verdict("restore", "--data", str(restored), str(backup)).returncode == 0  # the backup holds it still
    assert gone_id in verdict("table", "--data", str(restored), "list").stdout
    missing = verdict("table", "--data", data, "delete", "nope", "--yes")
    assert missing.returncode == 2 and "no table 'nope' in the data folder" in missing.stderr


def test_table_delete_is_refused_while_a_sidecar_serves_the_folder(tmp_path: Path) -> None:
    data = tmp_path / "data"
    proc, _ = _serve_until_listening(serve_command(0, data))
    try:
        table = (data / "default-table.keys").read_text().split()[1]
        r = verdict("table", "--data", str(data), "delete", table, "--yes")
        assert r.returncode == 2 and f"a sidecar serves {data}" in r.stderr
    finally:
        _stop(proc)
    assert table in verdict("table", "--data", str(data), "list").stdout


def test_a_host_not_of_this_machine_is_named(tmp_path: Path) -> None:
    r = subprocess.run(
        serve_command(0, tmp_path / "data", "--host", "192.0.2.77"), capture_output=True, text=True, timeout=30
    )
    assert r.returncode == 2
    assert r.stderr.strip() == "verdict: --host 192.0.2.77: not an address of this machine (e.g. 127.0.0.1 or 0.0.0.0)"
    assert not (tmp_path / "data").exists()
