"""`verdict module` and `make package`: the release files carry absolute URLs, or are refused."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from sidecar import config
from sidecar.cli import main
from sidecar.server.module import build_zip

from ..serving import ROOT

PUBLIC = "https://verdict.example.org"


@pytest.fixture
def verdict(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """`verdict ARGS` in this process (parsing and writing files is the point, not the process), in ``cwd``."""

    def run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
        monkeypatch.chdir(cwd)
        monkeypatch.delenv(config.PUBLIC_URL_ENV, raising=False)
        for k, v in (env or {}).items():
            monkeypatch.setenv(k, v)
        try:
            code = main(list(args))
        except SystemExit as exc:
            code = int(exc.code or 0)
        out, err = capsys.readouterr()
        return code, out, err

    return run


def _absolute(data: dict[str, str], public: str = PUBLIC) -> None:
    assert data["manifest"] == public + "/module/module.json"
    assert data["download"] == public + "/module/verdict.zip"


def test_module_writes_the_release_zip_and_manifest_on_the_public_url(tmp_path: Path, verdict) -> None:
    code, _, err = verdict(
        "module",
        "--zip",
        "dist/verdict.zip",
        "--manifest",
        "dist/module.json",
        "--public-url",
        PUBLIC + "/",
        cwd=tmp_path,
    )
    assert code == 0, err
    archive = zipfile.ZipFile(tmp_path / "dist" / "verdict.zip")
    _absolute(json.loads(archive.read("module.json")))
    _absolute(json.loads((tmp_path / "dist" / "module.json").read_text()))
    # The same bytes the sidecar serves under that public URL.
    assert (tmp_path / "dist" / "verdict.zip").read_bytes() == build_zip(PUBLIC)
    # The environment names the URL when the option does not.
    code, _, err = verdict(
        "module", "--zip", "env.zip", cwd=tmp_path, env={config.PUBLIC_URL_ENV: "http://192.0.2.5:8765"}
    )
    assert code == 0, err
    _absolute(json.loads(zipfile.ZipFile(tmp_path / "env.zip").read("module.json")), "http://192.0.2.5:8765")


def test_module_without_a_public_url_refuses_and_writes_nothing(tmp_path: Path, verdict) -> None:
    code, _, err = verdict("module", "--zip", "verdict.zip", cwd=tmp_path)
    assert code == 2 and "--public-url" in err and "absolute" in err
    code, _, err = verdict("module", "--zip", "verdict.zip", "--public-url", "verdict.example.org", cwd=tmp_path)
    assert code == 2 and "http" in err
    code, _, err = verdict("module", "--public-url", PUBLIC, cwd=tmp_path)
    assert code == 2 and "--zip" in err
    # A URL from the environment that is none is blamed on the environment, not on an option not given.
    code, _, err = verdict("module", "--zip", "verdict.zip", cwd=tmp_path, env={config.PUBLIC_URL_ENV: "ftp://x"})
    assert code == 2 and err.startswith(f"verdict: ${config.PUBLIC_URL_ENV}: "), err
    assert list(tmp_path.iterdir()) == []


def test_serve_refuses_a_public_url_or_proxy_that_is_not_one(tmp_path: Path, verdict) -> None:
    code, _, err = verdict("serve", "--data", "data", "--public-url", "ftp://verdict.example.org", cwd=tmp_path)
    assert code == 2 and "--public-url" in err
    code, _, err = verdict("serve", "--data", "data", "--trust-proxy", "proxy", cwd=tmp_path)
    assert code == 2 and "--trust-proxy" in err
    # Refused before anything is opened or created.
    assert list(tmp_path.iterdir()) == []


def _make(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # The checkout's Makefile against the interpreter running the tests (its venv is set up already).
    env = {k: v for k, v in os.environ.items() if k != config.PUBLIC_URL_ENV and not k.startswith("MAKE")}
    return subprocess.run(
        [
            "make",
            "--no-print-directory",
            "-o",
            ".venv/.stamp-install",
            "-o",
            ".venv/.stamp-runtime",
            f"BIN={Path(sys.executable).parent}",
            *args,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_package_writes_absolute_urls_and_refuses_without_one(tmp_path: Path) -> None:
    # A copy of the files `make package` reads, so the checkout's dist/ is left alone.
    tree = tmp_path / "tree"
    tree.mkdir()
    for name in ("Makefile", "mk", "pyproject.toml"):
        src = ROOT / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, tree / name)
    r = _make("package", cwd=tree)
    assert r.returncode != 0 and "--public-url" in r.stderr and not (tree / "dist" / "verdict.zip").exists()
    r = _make("package", f"PUBLIC_URL={PUBLIC}", cwd=tree)
    assert r.returncode == 0, r.stdout + r.stderr
    _absolute(json.loads(zipfile.ZipFile(tree / "dist" / "verdict.zip").read("module.json")))
    _absolute(json.loads((tree / "dist" / "module.json").read_text()))
