"""The Python distribution as a GM gets it: built, installed into a fresh environment outside the checkout,
run from an empty folder, and serving the Foundry module it carries."""

from __future__ import annotations

import ast
import io
import json
import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

from sidecar.server.module import BUNDLE_MAP, BUNDLE_SCRIPT, BUNDLE_STYLE, CHECKOUT_DIR, build_zip, module_files

from .installing import Served, clean_env, fresh_venv
from .serving import ROOT, free_port

PUBLIC = "https://verdict.example.org"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The sdist, and the wheel built from it (as `python -m build` does): the wheel holds what the sdist holds.

    The build backend is the test environment's (``setuptools`` in the ``test`` extra), not two isolated
    environments installed from a package index on every run: the test needs no index, and runs 3 to 17 s
    sooner on 2 cores (quiet, loaded)."""
    out = tmp_path_factory.mktemp("dist")
    r = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    (sdist,) = out.glob("verdict_vtt-*.tar.gz")
    (wheel,) = out.glob("verdict_vtt-*.whl")
    return sdist, wheel


def test_the_distribution_carries_the_module_and_one_licence(built: tuple[Path, Path]) -> None:
    sdist, wheel = built
    module = {name for name, _ in module_files(CHECKOUT_DIR)}
    assert {"module.json", "LICENSE", "scripts/verdict.mjs", "lang/en.json"} <= module
    with zipfile.ZipFile(wheel) as whl:
        names = whl.namelist()
        packaged = {n.removeprefix("sidecar/foundry_module/") for n in names if n.startswith("sidecar/foundry_module/")}
        (meta,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = whl.read(meta).decode()
        licences = [n for n in names if ".dist-info/licenses/" in n]
        assert len(licences) == 1 and whl.read(licences[0]) == (ROOT / "LICENSE").read_bytes()
    # Every file Foundry installs from a checkout's zip, nothing else (no type declarations).
    assert packaged == module
    # The PostgreSQL ledger's numbered schema files and the fair dice' vectors travel too (package data).
    migrations = {n.rsplit("/", 1)[1] for n in names if n.startswith("sidecar/state/ledger/migrations/")}
    assert migrations == {p.name for p in (ROOT / "sidecar" / "state" / "ledger" / "migrations").glob("*.sql")}
    assert "protocol/vectors/fair-dice.jsonl" in names
    assert "License-Expression: MIT" in metadata
    assert "Name: verdict-vtt" in metadata
    urls = dict(
        line.removeprefix("Project-URL: ").split(", ", 1)
        for line in metadata.splitlines()
        if line.startswith("Project-URL: ")
    )
    assert set(urls) == {"Homepage", "Source", "Issues", "Changelog"}
    manifest = json.loads((CHECKOUT_DIR / "module.json").read_text())
    assert (manifest["url"], manifest["bugs"]) == (urls["Homepage"], urls["Issues"])
    assert manifest["changelog"] == urls["Changelog"] and manifest["readme"].startswith(urls["Source"])
    # The checkout's generators stay in the checkout; the rules pages travel.
    assert "protocol/generate.py" not in names and "sidecar/knob_table.py" not in names
    rules = {n.removeprefix("sidecar/rules_pages/") for n in names if n.startswith("sidecar/rules_pages/")}
    assert rules == {p.name for p in (ROOT / "docs" / "rules").glob("*.md")}
    # The module ships the same licence the distribution declares.
    assert (ROOT / "LICENSE").read_bytes() == (CHECKOUT_DIR / "LICENSE").read_bytes()
    assert '"license": "LICENSE"' in (CHECKOUT_DIR / "module.json").read_text()
    assert "MIT License" in (ROOT / "LICENSE").read_text()
    with tarfile.open(sdist) as tar:
        top = tar.getnames()[0].split("/")[0]
        inside = set(tar.getnames())
    assert {f"{top}/vtt-module/{n}" for n in module} <= inside and f"{top}/LICENSE" in inside


def test_a_wheel_in_a_fresh_venv_serves_its_module_from_an_empty_folder(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    _, wheel = built
    python = fresh_venv(tmp_path / "venv", wheel)
    verdict = python.parent / "verdict"
    empty = tmp_path / "empty"
    empty.mkdir()
    user_data = tmp_path / "user-data"  # the platform's per-user data folders (XDG on Linux)
    env = clean_env(VERDICT_PUBLIC_URL=PUBLIC + "/", XDG_DATA_HOME=str(user_data))
    # The sidecar runs from the environment, and the module's files are the package's, not a checkout's.
    where = subprocess.run(
        [
            str(python),
            "-c",
            "import sidecar.server.module as m; print(m.__file__); print(m.module_root().joinpath('module.json'))",
        ],
        capture_output=True,
        text=True,
        cwd=empty,
        env=env,
        check=True,
    ).stdout.split()
    assert all(Path(p).is_relative_to(tmp_path / "venv") for p in where), where

    port = free_port()
    served = Served([str(verdict), "serve", "--port", str(port)], port, empty, env)
    try:
        listening = served.line("listening on")
        assert f"Foundry manifest: {PUBLIC}/module/module.json" in listening
        forged = {"Host": "evil.example", "X-Forwarded-Proto": "http", "X-Forwarded-Host": "evil.example"}
        manifest = json.loads(served.get("/module/module.json", forged))
        body = served.get("/module/verdict.zip", forged)
    finally:
        served.stop()
    assert manifest["manifest"] == PUBLIC + "/module/module.json"
    assert manifest["download"] == PUBLIC + "/module/verdict.zip"
    archive = zipfile.ZipFile(io.BytesIO(body))
    names = set(archive.namelist())
    named = manifest["esmodules"] + manifest["styles"] + [lang["path"] for lang in manifest["languages"]]
    assert "module.json" in names and set(named) <= names
    assert names == {name for name, _ in module_files(CHECKOUT_DIR)}
    # The vocabulary the installed sidecar writes into the zip is the checked-in one (five rule sets).
    generated = "scripts/generated/vocabulary.mjs"
    assert archive.read(generated) == (CHECKOUT_DIR / generated).read_bytes()
    inside = json.loads(archive.read("module.json"))
    assert (inside["manifest"], inside["download"]) == (manifest["manifest"], manifest["download"])
    # Its data went to the user's data folder, not the folder it ran in.
    data = user_data / "verdict"
    assert (data / "verdict.sqlite3").is_file() and (data / "default-table.keys").is_file()
    assert not (empty / "var").exists()
    assert f"data folder: {data}" in served.output()

    # The rules pages, a backup and its restore, from the installed command alone.
    page = subprocess.run([str(verdict), "rules", "flairs"], capture_output=True, text=True, cwd=empty, env=env)
    assert page.returncode == 0 and page.stdout == (ROOT / "docs" / "rules" / "flairs.md").read_text()
    saved = subprocess.run(
        [str(verdict), "backup", "campaign.sqlite3"], capture_output=True, text=True, cwd=empty, env=env
    )
    assert saved.returncode == 0, saved.stderr
    assert saved.stdout.startswith(f"backed up the ledger of {data} to {empty / 'campaign.sqlite3'} (1 table, ")
    back = subprocess.run(
        [str(verdict), "restore", "--data", "copy", "campaign.sqlite3"],
        capture_output=True,
        text=True,
        cwd=empty,
        env=env,
    )
    assert back.returncode == 0 and (empty / "copy" / "verdict.sqlite3").is_file(), back.stderr
    helped = subprocess.run([str(verdict), "serve", "--help"], capture_output=True, text=True, cwd=empty, env=env)
    assert helped.returncode == 0 and f"else{data})" in "".join(helped.stdout.split())  # a long path wraps anywhere

    # The installed CLI writes the same release zip the sidecar serves for that public URL.
    r = subprocess.run(
        [str(verdict), "module", "--zip", "out/verdict.zip"], capture_output=True, text=True, cwd=empty, env=env
    )
    assert r.returncode == 0, r.stderr
    assert (empty / "out" / "verdict.zip").read_bytes() == body


def test_the_package_list_is_the_source_tree() -> None:
    """pyproject.toml names its packages (the module's folder is mapped in, which discovery cannot see):
    a new subpackage or module folder missing from the list would be missing from the wheel."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    mapped = {pkg: ROOT / folder for pkg, folder in config["package-dir"].items()}
    assert mapped == {"sidecar.foundry_module": CHECKOUT_DIR, "sidecar.rules_pages": ROOT / "docs" / "rules"}
    found = set()
    for top in ("protocol", "sidecar"):
        for folder in [ROOT / top, *(ROOT / top).rglob("*")]:
            if folder.is_dir() and folder.name != "__pycache__" and any(f.is_file() for f in folder.iterdir()):
                found.add(".".join(folder.relative_to(ROOT).parts))
    found.add("sidecar.rules_pages")
    for folder in [CHECKOUT_DIR, *CHECKOUT_DIR.rglob("*")]:
        if folder.is_dir() and folder.name != "types":  # types/: declarations for the type check only
            found.add(".".join(("sidecar", "foundry_module", *folder.relative_to(CHECKOUT_DIR).parts)))
    assert listed == found


def test_the_server_and_state_layers_import_nothing_of_the_cli() -> None:
    """Dependencies point one way: protocol <- engine <- state <- server <- cli."""
    cli_only = ("sidecar.cli", "sidecar.export", "sidecar.backup", "sidecar.datadir")
    for layer in ("engine", "state", "server"):
        for path in (ROOT / "sidecar" / layer).rglob("*.py"):
            package = path.relative_to(ROOT).parent.parts
            for node in ast.walk(ast.parse(path.read_text())):
                names: list[str] = []
                if isinstance(node, ast.ImportFrom):
                    base = package[: len(package) - node.level + 1] if node.level else ()
                    names = [".".join((*base, *([node.module] if node.module else [])))]
                    names += [f"{names[0]}.{alias.name}" for alias in node.names]
                elif isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                for name in names:
                    assert not name.startswith(cli_only), f"{path.relative_to(ROOT)} imports {name}"


RELEASE_URL = "https://forge.example/verdict/releases/download/v0.1.0"


def _release(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "tools" / "release.py"), *args], capture_output=True, text=True, timeout=600
    )


def test_a_release_is_refused_for_a_version_the_tree_or_the_changelog_does_not_carry(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    r = _release(tmp_path, "--version", "9.9.9", "--public-url", RELEASE_URL, "--out", str(out))
    assert r.returncode == 2 and "the tree is not at 9.9.9: pyproject.toml says " in r.stderr
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text("# Changelog\n\n## [Unreleased]\n\n- a change\n")
    r = _release(
        tmp_path, "--version", "0.1.0", "--public-url", RELEASE_URL, "--out", str(out), "--changelog", str(changelog)
    )
    assert r.returncode == 2 and "CHANGELOG.md has no section for 0.1.0" in r.stderr
    assert not out.exists()  # nothing built


def test_make_release_writes_the_release_set_and_its_sums(tmp_path: Path) -> None:
    import hashlib

    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text(
        "# Changelog\n\n## [Unreleased]\n\n## [0.1.0] - 2026-12-03\n\n### Added\n\n- the first release\n\n"
        "## [0.0.9] - 2026-11-01\n\n- older\n"
    )
    out = tmp_path / "dist"
    r = _release(
        tmp_path,
        "--version",
        "0.1.0",
        "--public-url",
        RELEASE_URL + "/",
        "--out",
        str(out),
        "--changelog",
        str(changelog),
    )
    assert r.returncode == 0, r.stderr
    names = {p.name for p in out.iterdir()}
    assert names == {
        "verdict_vtt-0.1.0-py3-none-any.whl",
        "verdict_vtt-0.1.0.tar.gz",
        "verdict.zip",
        "module.json",
        "RELEASE-NOTES.md",
        "SHA256SUMS",
    }
    sums = dict(reversed(line.split("  ")) for line in (out / "SHA256SUMS").read_text().splitlines())
    assert set(sums) == names - {"SHA256SUMS"}
    for name, digest in sums.items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest, name
    manifest = json.loads((out / "module.json").read_text())
    assert (manifest["manifest"], manifest["download"]) == (f"{RELEASE_URL}/module.json", f"{RELEASE_URL}/verdict.zip")
    assert manifest["version"] == "0.1.0"
    release_zip = zipfile.ZipFile(out / "verdict.zip")
    inside = json.loads(release_zip.read("module.json"))
    assert inside == manifest
    # The module bundled: its one ES module (with its map) and its one stylesheet, none of the plain files.
    assert (manifest["esmodules"], manifest["styles"]) == ([BUNDLE_SCRIPT], [BUNDLE_STYLE])
    scripts = sorted(n for n in release_zip.namelist() if n.startswith(("scripts/", "styles/")))
    assert scripts == sorted([BUNDLE_SCRIPT, BUNDLE_MAP, BUNDLE_STYLE])
    assert (out / "RELEASE-NOTES.md").read_text() == "## [0.1.0] - 2026-12-03\n\n### Added\n\n- the first release\n"

    # The release's wheel carries the bundle: installed where no bundler is, it writes the same bundled zip.
    wheel = out / "verdict_vtt-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as whl:
        carried = sorted(n for n in whl.namelist() if n.startswith("sidecar/foundry_module/bundle/"))
        (record,) = [n for n in whl.namelist() if n.endswith(".dist-info/RECORD")]
        recorded = {line.split(",")[0] for line in whl.read(record).decode().splitlines()}
    assert carried == sorted(f"sidecar/foundry_module/bundle/{n}" for n in (BUNDLE_SCRIPT, BUNDLE_MAP, BUNDLE_STYLE))
    assert set(carried) <= recorded
    python = fresh_venv(tmp_path / "venv", wheel)  # pip checks each file against its RECORD hash
    empty = tmp_path / "empty"
    empty.mkdir()
    env = clean_env(XDG_DATA_HOME=str(tmp_path / "user-data"))
    r = subprocess.run(
        [str(python.parent / "verdict"), "module", "--zip", "v.zip", "--public-url", PUBLIC],
        capture_output=True,
        text=True,
        cwd=empty,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    assert (empty / "v.zip").read_bytes() == build_zip(PUBLIC, CHECKOUT_DIR, bundled=True)


def test_the_changelog_keeps_its_form() -> None:
    text = (ROOT / "CHANGELOG.md").read_text()
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings[0] == "## [Unreleased]"
    for heading in headings[1:]:
        assert re.fullmatch(r"## \[\d+\.\d+\.\d+\] - \d{4}-\d{2}-\d{2}", heading), heading
    workflow = (ROOT / ".github" / "workflows" / "release.yml").read_text()
    assert 'tags: ["v*.*.*"]' in workflow and "make release VERSION=" in workflow
