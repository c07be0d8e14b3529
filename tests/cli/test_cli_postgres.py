"""`verdict table` and `verdict serve` against a PostgreSQL ledger, as a host runs them."""

from __future__ import annotations

import json
from pathlib import Path

from sidecar.client import Client

from ..conftest import Process, free_port
from .running import verdict


async def test_tables_on_postgresql_from_the_cli_and_a_sidecar_serving_them(pg_url: str, tmp_path: Path):
    env = {"VERDICT_LEDGER": pg_url}
    assert "no tables yet" in verdict("table", "list", env=env).stdout
    made = verdict("table", "create", "Friday group", "--json", env=env)
    assert made.returncode == 0, made.stderr
    keys = json.loads(made.stdout)
    listed = verdict("table", "--ledger", pg_url, "list")  # --ledger, or $VERDICT_LEDGER
    assert f"{keys['table']}  Friday group" in listed.stdout
    rotated = verdict("table", "rotate-keys", keys["table"], env=env)
    assert rotated.returncode == 0 and keys["gm"] not in rotated.stdout
    new_gm = next(line.split()[-1] for line in rotated.stdout.splitlines() if "GM key" in line)
    assert verdict("table", "rotate-keys", "nope", env=env).returncode == 2

    p = Process(tmp_path / "data", free_port(), ("--ledger", pg_url))
    p.start()
    try:
        gm = await Client.connect(p.url, keys["table"], new_gm, user="gm")
        from protocol.v1 import messages as m
        from protocol.v1.facets import FacetsCheck

        await gm.request(m.Roll(id="r1", check=FacetsCheck(pool=3), label="the heist"))
        await gm.close()
    finally:
        p.stop()
    assert not (tmp_path / "data" / "default-table.keys").exists()  # a shared ledger gets no default table
    out = verdict("table", "export", keys["table"], "--format", "jsonl", env=env)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert rows[0]["seq"] == 1 and rows[0]["event"]["label"] == "the heist"
    md = verdict("table", "export", keys["table"], env=env)
    assert "# Session log: Friday group" in md.stdout and "the heist" in md.stdout


def test_a_bad_ledger_is_one_line_and_status_2(tmp_path: Path):
    r = verdict("table", "--ledger", "mysql://u:p@h/db", "list")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "postgresql://" in r.stderr
    r = verdict(
        "serve",
        "--ledger",
        "postgresql://u:hunter2@127.0.0.1:1/db",
        "--port",
        str(free_port()),
        "--data",
        str(tmp_path),
    )
    assert r.returncode == 2 and "cannot reach the PostgreSQL ledger" in r.stderr and "hunter2" not in r.stderr
