"""A sixth rule set added as a package of its own, end to end: `omen` (tests/added_ruleset/site/verdict_omen),
installed by putting its directory on the path (its distribution's metadata names its two entry points; the
folder installs `fortune` beside it, tests/test_stateful_ruleset.py's).

Nothing else changes: the engine rolls, reads and weighs it, the schema and the vocabulary regenerate with it,
a sidecar serves its checks, and the module's unchanged scripts build its dialog and its card from the
regenerated vocabulary. Each runs in a fresh interpreter, the only way to install a package for one test:
this process (and every other test) keeps the five shipped rule sets.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest
import websockets

from protocol.v1.systems import SYSTEMS
from tests.serving import Process, free_port

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "tests" / "added_ruleset" / "site"
SHIPPED = ["facets", "challenge", "flairs", "feats", "boons"]
ADDED = ["fortune", "omen"]
"""The rule sets the site folder installs, by tag (fortune, with table state of its own, is
tests/test_stateful_ruleset.py's)."""


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SITE), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    }


def _python(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], env=_env(), cwd=ROOT, capture_output=True, text=True, check=check)


def _served_vocabulary(archive: zipfile.ZipFile) -> str:
    """The vocabulary a served module zip draws from: its file, or the bundle's (the text its map holds)."""
    if "scripts/generated/vocabulary.mjs" in archive.namelist():
        return archive.read("scripts/generated/vocabulary.mjs").decode()
    source_map = json.loads(archive.read("scripts/verdict.min.mjs.map"))
    text: str = source_map["sourcesContent"][source_map["sources"].index("generated/vocabulary.mjs")]
    return text


def _vocabulary(path: Path) -> dict:
    text = path.read_text()
    return json.loads(text[text.index("({") + 1 : text.rindex(");")])


def test_without_the_package_the_five_shipped_rule_sets() -> None:
    assert SYSTEMS == ("facets", "challenge", "flairs", "feats", "boons")


def test_the_engine_rolls_reads_weighs_and_refuses_it() -> None:
    read = json.loads(_python("-m", "sidecar.cli", "read", "omen", "--sign", "3", "--dice", "5", "--json").stdout)
    assert read == {"system": "omen", "outcome": "good", "dice": [5], "sign": 3, "margin": 2}
    odds = json.loads(_python("-m", "sidecar.cli", "odds", "omen", "--sign", "3", "--json").stdout)
    assert [(c["value"], c["chance"]["num"], c["chance"]["den"]) for c in odds["outcome"]] == [
        ("good", 2, 3),
        ("ill", 1, 3),
    ]
    rolled = _python("-m", "sidecar.cli", "roll", "omen", "--json").stdout
    assert json.loads(rolled)["outcome"] in ("good", "ill")
    helped = " ".join(_python("-m", "sidecar.cli", "roll", "omen", "--help").stdout.split())
    assert "--sign N Sign. The face to reach or beat on one d6, 1 to 6. (default: 4)" in helped
    refused = _python("-m", "sidecar.cli", "read", "omen", "--sign", "9", "--dice", "5", check=False)
    assert refused.returncode != 0 and "not a face of a d6" in refused.stderr


def test_the_schema_and_the_vocabulary_regenerate_with_it(tmp_path: Path) -> None:
    schema = json.loads(_python("-c", "from protocol.generate import schema; print(schema())").stdout)
    defs = schema["$defs"]
    assert defs["OmenCheck"]["properties"]["sign"]["description"] == "The face to reach or beat on one d6, 1 to 6."
    assert {"$ref": "#/$defs/OmenCheck"} in defs["Roll"]["properties"]["check"]["anyOf"]
    assert {"$ref": "#/$defs/OmenOdds"} in defs["OddsReply"]["properties"]["odds"]["anyOf"]
    assert {"$ref": "#/$defs/OmenResult"} in defs["Rolled"]["properties"]["result"]["anyOf"][0]["anyOf"]

    out = tmp_path / "vocabulary.mjs"
    _python("-m", "sidecar.vocabulary", "--out", str(out))
    vocabulary = _vocabulary(out)
    assert list(vocabulary["systems"]) == [*SHIPPED, *ADDED]
    omen = vocabulary["systems"]["omen"]
    assert omen["tones"] == {"good": "good", "ill": "bad"}
    assert omen["dialog"] == [
        {
            "name": "sign",
            "type": "int",
            "default": 4,
            "label": "Sign",
            "hint": "The face to reach or beat on one d6, 1 to 6.",
        }
    ]
    # the shipped rule sets' part is what the checked-in file says
    shipped = _vocabulary(ROOT / "vtt-module" / "scripts" / "generated" / "vocabulary.mjs")
    assert {k: v for k, v in vocabulary["systems"].items() if k not in ADDED} == shipped["systems"]


def test_the_module_draws_it_from_the_regenerated_vocabulary(tmp_path: Path) -> None:
    """The module's scripts as they are, with only generated/ regenerated: its dialog's check and its card."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    scripts = tmp_path / "scripts"
    shutil.copytree(ROOT / "vtt-module" / "scripts", scripts)
    _python("-m", "sidecar.vocabulary", "--out", str(scripts / "generated" / "vocabulary.mjs"))
    probe = tmp_path / "probe.mjs"
    probe.write_text(
        """
import { buildCard, localizeCard } from "./scripts/lib/card-model.mjs";
import { SYSTEMS, buildCheck, defaults } from "./scripts/lib/systems.mjs";
const result = { system: "omen", outcome: "good", dice: [6], sign: 4, margin: 2 };
const card = localizeCard(buildCard({ checkId: "c", seq: 1, by: "gm", result }), (key) => key);
console.log(JSON.stringify({ systems: SYSTEMS, check: buildCheck("omen", defaults("omen")), card }));
"""
    )
    out = json.loads(subprocess.run(["node", str(probe)], capture_output=True, text=True, check=True).stdout)
    assert out["systems"][-2:] == ADDED
    assert out["check"] == {"system": "omen", "sign": 4}
    card = out["card"]
    assert (card["tone"], card["systemLabel"], card["outcomeLabel"]) == ("good", "omen", "good")
    assert card["dice"] == [{"face": 6, "size": 6, "cls": "max"}]
    assert [(f["label"], f["text"], f["tone"]) for f in card["facts"]] == [("Margin", "+2", "good")]


async def test_a_sidecar_with_it_installed_serves_its_checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", _env()["PYTHONPATH"])
    server = Process(tmp_path, free_port())
    server.start()
    try:
        keys = server.keys()
        async with websockets.connect(server.url, subprotocols=["verdict.v1"], compression=None) as ws:
            await ws.send(json.dumps({"type": "hello", "table": keys.table, "key": keys.gm, "client": "t"}))
            assert json.loads(await ws.recv())["type"] == "welcome"
            await ws.send(json.dumps({"type": "roll", "id": "r1", "check": {"system": "omen", "sign": 3, "dice": [2]}}))
            rolled = json.loads(await ws.recv())
            assert rolled["type"] == "rolled" and rolled["result"] == {
                "system": "omen",
                "outcome": "ill",
                "dice": [2],
                "sign": 3,
                "margin": -1,
            }
            await ws.send(json.dumps({"type": "odds", "id": "o1", "check": {"system": "omen", "sign": 6}}))
            odds = json.loads(await ws.recv())
            assert [c["chance"]["num"] for c in odds["odds"]["outcome"]] == [1, 5]
            await ws.send(json.dumps({"type": "roll", "id": "r2", "check": {"system": "omen", "sing": 3}}))
            refused = json.loads(await ws.recv())
            assert (refused["type"], refused["code"]) == ("error", "invalid_message") and "sing" in refused["message"]
        # The module it serves describes the rule sets it runs: a GM installs it and the dialog offers omen.
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/module/verdict.zip", timeout=30) as r:
            archive = zipfile.ZipFile(io.BytesIO(r.read()))
        text = _served_vocabulary(archive)
        served = json.loads(text[text.index("({") + 1 : text.rindex(");")])
        assert list(served["systems"]) == [*SHIPPED, *ADDED]
    finally:
        server.stop()


# --- installed packages that cannot be used as they stand: refused at start, saying which and why ---------


def _site(where: Path, dist: str, entry_points: str, files: dict[str, str] | None = None) -> Path:
    """A folder on the path holding the distribution ``dist`` with these entry points (and ``files``)."""
    info = where / f"{dist.replace('-', '_')}-0.1.dist-info"  # as installers write it (a hyphen ends the name)
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points)
    for name, text in (files or {}).items():
        (where / name).parent.mkdir(parents=True, exist_ok=True)
        (where / name).write_text(text)
    return where


def _refused(*sites: Path) -> str:
    """What `verdict read facets` says with ``sites`` on the path: one line on stderr, status 2, no result."""
    path = [*map(str, sites), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    r = subprocess.run(
        [sys.executable, "-m", "sidecar.cli", "read", "facets", "--pool", "2", "--dice", "6,3", "--json"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert (r.returncode, r.stdout) == (2, ""), r.stdout + r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    return r.stderr


def test_a_package_that_fails_to_import_is_named(tmp_path: Path) -> None:
    site = _site(tmp_path, "verdict-broken", "[verdict.protocol]\nomen = verdict_broken.protocol\n")
    said = _refused(site)
    assert "verdict-broken 0.1" in said and "omen = verdict_broken.protocol" in said
    assert "No module named 'verdict_broken'" in said


def test_a_package_cannot_take_over_a_shipped_rule_set(tmp_path: Path) -> None:
    evil = (
        "from sidecar.engine.rulesets.facets import RULESET as REAL\n"
        "class Loaded(type(REAL)):\n"
        "    def read(self, check, faces):\n"
        "        return super().read(check, [6] * len(faces))\n"
        "RULESET = Loaded()\n"
    )
    site = _site(tmp_path, "verdict-loaded", "[verdict.rulesets]\nfacets = loaded:RULESET\n", {"loaded.py": evil})
    said = _refused(site)
    assert "verdict-loaded 0.1" in said and "'facets'" in said and "shipped" in said


def test_a_follow_up_tagged_as_a_shipped_one_is_refused(tmp_path: Path) -> None:
    shutil.copytree(SITE, tmp_path / "site")
    protocol = tmp_path / "site" / "verdict_omen" / "protocol.py"
    protocol.write_text(
        protocol.read_text()
        + "\n\nfrom protocol.v1.base import Action\n\n\nclass OmenBargain(Action, tag='flairs_bargain'):\n"
        + "    check_id: str\n"
    )
    said = _refused(tmp_path / "site")
    assert "'flairs_bargain'" in said and "verdict_omen.protocol.OmenBargain" in said and "FlairsBargain" in said


def test_two_packages_installing_one_rule_set_are_both_named(tmp_path: Path) -> None:
    other = _site(
        tmp_path / "other",
        "verdict-omen-fork",
        "[verdict.protocol]\nomen = verdict_omen.protocol\n\n[verdict.rulesets]\nomen = verdict_omen.ruleset:RULESET\n",
    )
    said = _refused(SITE, other)
    assert "'omen'" in said and "verdict-omen 0.1" in said and "verdict-omen-fork 0.1" in said


def test_structs_without_a_rule_set_are_named(tmp_path: Path) -> None:
    shutil.copytree(SITE / "verdict_omen", tmp_path / "site" / "verdict_omen")
    site = _site(tmp_path / "site", "verdict-omen", "[verdict.protocol]\nomen = verdict_omen.protocol\n")
    said = _refused(site)
    assert "'omen'" in said and "verdict-omen 0.1" in said and "verdict.rulesets" in said
