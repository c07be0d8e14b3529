"""The `verdict` command as a user runs it: exit codes, one-line errors, what it prints (in this process but
for the program itself and `serve`, which run as processes)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sidecar.cli import main

from ..serving import serve_command
from .running import verdict as run


def run_process(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sidecar.cli", *args], capture_output=True, text=True, timeout=60)


def test_the_module_runs_as_a_program_with_its_exit_codes():
    """`python -m sidecar.cli` is the command a user runs (the tests below run it in this process)."""
    r = run_process("roll", "facets", "--kind", "sideways")
    assert r.returncode == 2 and r.stdout == "" and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_read_facets_json_is_the_wire_object():
    r = run("read", "facets", "--dice", "6,6,2", "--pool", "3", "--kind", "opposition", "--json")
    assert r.returncode == 0, r.stderr
    obj = json.loads(r.stdout)
    assert obj["system"] == "facets" and obj["outcome"] == "triumph" and obj["dice"] == [6, 6, 2]
    assert obj["harm"] == {"opponent": ["wound", "condition"], "character": []}
    assert obj["facet"] == "beneficial" and obj["cost"] is False and "suggestion" in obj and "discord" in obj
    assert r.stdout.count("\n") == 1


def test_human_answer():
    r = run("read", "facets", "--dice", "5,2", "--pool", "2", "--kind", "mystical", "--domain", "mental")
    assert r.returncode == 0
    assert "costly success" in r.stdout and "backlash" in r.stdout and "cost" in r.stdout


@pytest.mark.parametrize(
    "args, says",
    [
        (("read", "facets", "--dice", "7,6,2", "--pool", "3"), "impossible"),
        (("read", "facets", "--dice", "6,2", "--pool", "3"), "needs 3 dice"),
        (("roll", "facets", "--pool", "-1"), "negative"),
        (("roll", "facets", "--kind", "sideways"), "invalid choice"),
        (("read", "facets", "--pool", "2"), "--dice"),
        (("read", "challenge", "--cl", "2", "--dice", "21"), "d20"),
        (("read", "boons", "--ability", "2", "--dice", "1"), "needs 2 dice"),
        (("roll", "facets", "--dice", "1"), "unrecognized arguments: --dice"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(args, says):
    r = run(*args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert says in lines[0]


@pytest.mark.parametrize(
    "args, keys",
    [
        (
            ("roll", "challenge", "--modifier", "3", "--cl", "2"),
            {"total", "level", "margin", "strain", "choice", "condition", "complication", "natural"},
        ),
        (
            ("roll", "flairs", "--rank", "3", "--edges", "1", "--cuts", "1"),
            {"kept", "removed", "flairs", "trials", "tainted", "desperate"},
        ),
        (
            ("roll", "feats", "--ability", "3", "--difficulty", "4", "--wyrd", "1"),
            {"level", "success", "best_level", "worst_level", "degree", "bought", "cost"},
        ),
        (
            ("roll", "boons", "--ability", "2", "--boon", "1", "--trial", "2"),
            {"symbols", "net_successes", "net_boons", "breakthroughs", "calamities"},
        ),
    ],
)
def test_every_rule_set_rolls(args, keys):
    r = run(*args, "--json")
    assert r.returncode == 0, r.stderr
    obj = json.loads(r.stdout)
    assert {"system", "outcome", "dice"} | keys <= set(obj)


def test_tables(tmp_path, capsys):
    data = str(tmp_path)
    assert main(["table", "--data", data, "create", "Thursday"]) == 0
    out = capsys.readouterr().out
    table_id = out.split("table id")[1].split()[0]
    assert "GM key" in out and "player key" in out
    assert main(["table", "--data", data, "list"]) == 0
    assert table_id in capsys.readouterr().out
    assert main(["table", "--data", data, "rotate-keys", table_id]) == 0
    assert "GM key" in capsys.readouterr().out
    assert main(["table", "--data", data, "rotate-keys", "nope"]) == 2


async def test_export(sidecar, capsys):
    from protocol.v1 import challenge as challenge_t
    from protocol.v1 import messages as mm
    from protocol.v1.challenge import ChallengeCheck
    from sidecar.export import export_table

    gm = await sidecar.client()
    await gm.request(mm.Roll(id="e1", check=ChallengeCheck(cl=2, dice=[3]), actor="Ayla", label="Jump"))
    await gm.request(
        mm.Gm(id="e2", op=challenge_t.ComplicationAdd(scene="Bridge", text="The rope frays", hidden=False))
    )
    await gm.close()
    md = export_table(sidecar.ledger, sidecar.keys.table, "markdown")
    assert "Ayla rolled `challenge` (Jump): dice [3] → **failure**" in md
    assert "Ayla: strain +2" in md and "The rope frays" in md
    lines = export_table(sidecar.ledger, sidecar.keys.table, "jsonl").splitlines()
    assert [json.loads(x)["seq"] for x in lines] == [1, 2, 3]
    assert json.loads(lines[0])["event"]["result"]["dice"] == [3]


def test_help_helps():
    r = run("roll", "flairs", "--help")
    assert r.returncode == 0 and "--rank" in r.stdout and "--cuts" in r.stdout and "--darkness" in r.stdout


def test_serve_prints_keys_once(tmp_path):
    import contextlib
    import io

    from sidecar.server.run import ensure_default_table
    from sidecar.state.ledger import SqliteLedger

    ledger = SqliteLedger(tmp_path / "verdict.sqlite3")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        ensure_default_table(ledger, tmp_path)
    assert "GM key" in buf.getvalue()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        ensure_default_table(ledger, tmp_path)
    assert "GM key" not in buf.getvalue() and "default-table.keys" in buf.getvalue()
    ledger.close()


def test_odds_command():
    r = run("odds", "facets", "--pool", "1", "--json")
    assert r.returncode == 0, r.stderr
    obj = json.loads(r.stdout)
    chances = {x["value"]: x["chance"] for x in obj["outcome"]}
    assert chances["success"]["num"] * 6 == chances["success"]["den"]
    r = run("odds", "flairs", "--rank", "3", "--cuts", "1")
    assert r.returncode == 0 and "triumph" in r.stdout
    r = run("odds", "feats", "--level", "9")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1


def test_table_create_json(tmp_path):
    r = run("table", "--data", str(tmp_path), "create", "Friday", "--json")
    obj = json.loads(r.stdout)
    assert set(obj) == {"table", "name", "gm", "player", "observer"}


def test_serve_on_a_busy_port_says_so(tmp_path):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = subprocess.run(serve_command(port, tmp_path), capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert (
        r.stderr.strip().splitlines()[-1]
        == f"verdict: 127.0.0.1:{port} is already in use (another sidecar?); choose another with --port"
    )
    assert "listening" not in r.stdout


def test_serve_with_a_data_folder_that_cannot_be_one_says_so(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    r = subprocess.run(serve_command(0, blocker / "data"), capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines()[-1] == (
        f"verdict: --data {blocker / 'data'}: the data folder cannot be used (Not a directory); choose another with --data"
    )


@pytest.mark.parametrize(
    "args, outcome, pool",
    [
        (("read", "facets", "--dice", "6,6,2"), "triumph", 3),  # the pool is the dice on the table
        (("read", "facets", "--dice", "6,6,2", "--helping", "1"), "triumph", 3),
        (("read", "facets", "--dice", "6,2", "--pool", "0"), "failure", 0),  # a desperate roll says so
        (("read", "facets", "--dice", "6,2"), "failure", 0),  # two dice: the documented default, desperate
        (("read", "facets", "--dice", "5"), "costly_success", 1),
    ],
)
def test_read_facets_takes_the_pool_from_the_dice(args, outcome, pool):
    obj = json.loads(run(*args, "--json").stdout)
    assert obj["outcome"] == outcome and obj["pool"] == pool


@pytest.mark.parametrize(
    "args, says",
    [
        (
            ("read", "boons", "--ability", "1", "--opponent", '{"abilty":3}', "--dice", "1,1"),
            "--opponent: unknown field `abilty`",
        ),
        (
            ("read", "boons", "--ability", "1", "--opponent", '{"ability":1,"trial":2}', "--dice", "1,1,1,1"),
            "--opponent: unknown field `trial`",
        ),
        (
            ("read", "flairs", "--group", '[{"name":"a","rnak":2}]', "--dice", "1,1"),
            "--group: unknown field `rnak` (at [0])",
        ),
        (
            ("odds", "flairs", "--group", '[{"name":"a","rank":1},{"name":"b","edge":1}]'),
            "--group: unknown field `edge` (at [1])",
        ),
    ],
)
def test_misspelled_fields_in_json_options_are_refused(args, says):
    r = run(*args)
    assert r.returncode == 2 and r.stdout == ""
    assert says in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_a_third_assistant_is_refused_and_assist_dice_keep_the_order():
    r = run("roll", "boons", "--ability", "1", "--rank", "1", "--assists", "1,1,1")
    assert r.returncode == 2 and "3 assistants" in r.stderr and "more than 2 assisting dice" in r.stderr
    r = run("read", "boons", "--ability", "1", "--rank", "1", "--assists", "1,3", "--dice", "1,1,1", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["assist_dice"] == ["boon", "ability"]
