"""The module as the zip ships it: one bundled, minified ES module with its source map and one stylesheet, built
by esbuild from the module's files as they are when the zip is made, module.json naming them alone. (The browser
suite runs against the same bundle: ``make test-browser-bundle``.)"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from sidecar import vocabulary
from sidecar.server import module as vtt_module
from sidecar.server.module import (
    BUNDLE_MAP,
    BUNDLE_SCRIPT,
    BUNDLE_STYLE,
    CHECKOUT_DIR,
    ESBUILD,
    PREBUILT,
    VOCABULARY,
    BundleError,
    build_zip,
    bundle,
    files_zip,
    manifest,
    module_files,
)

PUBLIC = "https://verdict.example.org"

pytestmark = pytest.mark.skipif(not ESBUILD.is_file(), reason="esbuild is not installed (`npm ci`)")


def _zip(root: Path | None = None, **kw: object) -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO(build_zip(PUBLIC, root, **kw)))  # type: ignore[arg-type]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the module's files, to change."""
    copy = tmp_path / "vtt-module"
    shutil.copytree(CHECKOUT_DIR, copy, ignore=shutil.ignore_patterns("node_modules", "__pycache__"))
    return copy


def test_the_zip_ships_one_bundled_module_and_one_stylesheet_and_names_them_alone() -> None:
    archive = _zip()
    names = set(archive.namelist())
    inside = json.loads(archive.read("module.json"))
    assert (inside["esmodules"], inside["styles"]) == ([BUNDLE_SCRIPT], [BUNDLE_STYLE])
    assert inside == manifest(PUBLIC)  # the manifest the sidecar serves says the same
    assert sorted(n for n in names if n.startswith(("scripts/", "styles/"))) == sorted(
        [BUNDLE_SCRIPT, BUNDLE_MAP, BUNDLE_STYLE]
    )
    # Everything else Foundry installs travels as it is (templates, languages, icons, the licence).
    plain = {n for n, _ in module_files(CHECKOUT_DIR) if not n.startswith(("scripts/", "styles/"))}
    assert names == plain | {BUNDLE_SCRIPT, BUNDLE_MAP, BUNDLE_STYLE}
    # Minified: far smaller than the files it holds (with their comments and JSDoc types).
    sources = sum(len(e.read_bytes()) for n, e in module_files(CHECKOUT_DIR) if n.endswith(".mjs"))
    assert len(archive.read(BUNDLE_SCRIPT)) < sources / 2
    styles = json.loads((CHECKOUT_DIR / "module.json").read_text())["styles"]
    assert 0 < len(archive.read(BUNDLE_STYLE)) < sum(len((CHECKOUT_DIR / s).read_bytes()) for s in styles)
    # The checkout's own module.json is the plain files' (development loads them as they are).
    assert json.loads((CHECKOUT_DIR / "module.json").read_text())["esmodules"] == ["scripts/verdict.mjs"]


def test_the_bundle_parses_and_imports_no_other_file(tmp_path: Path) -> None:
    archive = _zip()
    alone = tmp_path / "alone"
    alone.mkdir()
    script = alone / "verdict.min.mjs"
    script.write_bytes(archive.read(BUNDLE_SCRIPT))
    checked = subprocess.run(["node", "--check", str(script)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    # Bundled again on its own, it resolves no import: a static or literal dynamic import of any other file
    # would fail to resolve in this empty folder, and the bundler's inputs are the one file.
    meta = tmp_path / "meta.json"
    again = subprocess.run(
        [
            str(ESBUILD),
            str(script),
            "--bundle",
            "--format=esm",
            f"--metafile={meta}",
            f"--outfile={tmp_path / 'x.mjs'}",
        ],
        capture_output=True,
        text=True,
    )
    assert again.returncode == 0, again.stderr
    inputs = json.loads(meta.read_text())["inputs"]
    assert len(inputs) == 1 and next(iter(inputs.values()))["imports"] == [], inputs
    assert b"import(" not in archive.read(BUNDLE_SCRIPT)
    assert archive.read(BUNDLE_SCRIPT).endswith(b"//# sourceMappingURL=verdict.min.mjs.map\n")


def test_the_source_map_gives_each_plain_file_as_it_was_bundled() -> None:
    archive = _zip()
    source_map = json.loads(archive.read(BUNDLE_MAP))
    scripts = {n.removeprefix("scripts/"): e for n, e in module_files(CHECKOUT_DIR) if n.startswith("scripts/")}
    assert "verdict.mjs" in source_map["sources"] and "hooks/ready.mjs" in source_map["sources"]
    assert set(source_map["sources"]) <= set(scripts)
    for name, text in zip(source_map["sources"], source_map["sourcesContent"], strict=True):
        expected = vocabulary.source() if f"scripts/{name}" == VOCABULARY else scripts[name].read_text()
        assert text == expected, name


def test_the_bundle_is_built_from_the_files_as_they_are_when_the_zip_is_made(tree: Path) -> None:
    entry = tree / "scripts" / "verdict.mjs"
    entry.write_text(entry.read_text() + '\nconsole.debug("verdict: edited after the last release");\n')
    assert b"verdict: edited after the last release" in _zip(tree).read(BUNDLE_SCRIPT)
    css = tree / "styles" / "verdict-surfaces.css"
    css.write_text(css.read_text() + "\n.verdict-edited-now { outline-offset: 7px; }\n")
    assert b".verdict-edited-now{outline-offset:7px}" in _zip(tree).read(BUNDLE_STYLE)


def test_a_module_file_that_does_not_bundle_is_refused_saying_where(tree: Path) -> None:
    (tree / "scripts" / "api.mjs").write_text("export const broken = ;\n")
    with pytest.raises(BundleError, match=r"api\.mjs"):
        build_zip(PUBLIC, tree)


def test_without_the_bundler_the_zip_holds_the_plain_files_and_a_bundle_is_refused(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vtt_module, "ESBUILD", tree / "no-esbuild")
    archive = _zip(tree)
    inside = json.loads(archive.read("module.json"))
    assert inside["esmodules"] == ["scripts/verdict.mjs"] and inside == manifest(PUBLIC, tree)
    assert set(inside["styles"]) | {"scripts/verdict.mjs"} <= set(archive.namelist())
    assert BUNDLE_SCRIPT not in archive.namelist()
    with pytest.raises(BundleError, match="npm ci"):
        build_zip(PUBLIC, tree, bundled=True)


def test_a_distributions_own_bundle_serves_while_its_vocabulary_is_the_sidecars(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = bundle(tree)
    for name, body in made.items():
        (tree / PREBUILT / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / PREBUILT / name).write_bytes(body)
    monkeypatch.setattr(vtt_module, "ESBUILD", tree / "no-esbuild")
    archive = _zip(tree)
    assert {n: archive.read(n) for n in made} == made
    assert not any(n.startswith(f"{PREBUILT}/") for n in archive.namelist())
    # A rule set installed beside it: the bundle would not draw it, so the plain files (with its vocabulary) go.
    monkeypatch.setattr(vocabulary, "source", lambda: "export const VOCABULARY = {};\n")
    archive = _zip(tree)
    assert BUNDLE_SCRIPT not in archive.namelist()
    assert archive.read(VOCABULARY) == b"export const VOCABULARY = {};\n"


def test_the_zip_is_the_same_bytes_each_time() -> None:
    assert files_zip() == files_zip()


def test_the_bundle_keeps_the_name_of_every_application_class() -> None:
    """Foundry calls an application's hooks by its class's name (``renderTracker``): a minified class that
    lost its name would render with every such hook silent."""
    source = bundle(CHECKOUT_DIR)[BUNDLE_SCRIPT].decode()
    classes = {
        match.group(1)
        for path in (CHECKOUT_DIR / "scripts").rglob("*.mjs")
        for match in re.finditer(r"class (\w+) extends (?:HandlebarsApplicationMixin|RollDialog)", path.read_text())
    }
    assert {"Tracker", "RollDialog", "RequestDialog", "GmKeyForm", "MappingForm"} <= classes
    for name in sorted(classes):
        assert re.search(rf'\(\w+,"{name}"\)', source), f"the bundle lost the class name {name}"
