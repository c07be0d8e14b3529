"""The five shipped rule sets come through the entry points an added one uses (``verdict.protocol``,
``verdict.rulesets``), named by Verdict's own distribution (``verdict-vtt``): what its metadata lists is
what loads, in the protocol's order whatever the order listed (an installer writes them by name); a checkout whose metadata lacks them stops at start saying how to install
it; a stale copy of the metadata neither doubles them nor, under another distribution's name, replaces them.

Each case runs ``python -S`` (no site-packages of its own) on a path built for it: the case's metadata, the
checkout, and a view of the environment's site-packages without Verdict's own metadata.
"""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
from importlib.metadata import distributions
from pathlib import Path

import pytest

from protocol.v1 import systems
from sidecar.engine import registry

ROOT = Path(__file__).resolve().parents[1]
ORDER = ("facets", "challenge", "flairs", "feats", "boons")


def _verdict_lines(names: tuple[str, ...] = ORDER) -> str:
    """Verdict's entry points as its metadata lists them (from pyproject.toml's entry-points tables, by name)."""
    protocol = "".join(f"{n} = protocol.v1.{n}\n" for n in sorted(names))
    rulesets = "".join(f"{n} = sidecar.engine.rulesets.{n}:RULESET\n" for n in sorted(names))
    return f"[console_scripts]\nverdict = sidecar.cli:main\n\n[verdict.protocol]\n{protocol}\n[verdict.rulesets]\n{rulesets}"


def _metadata(folder: Path, dist: str, entry_points: str) -> Path:
    folder.mkdir(parents=True)
    (folder / ("PKG-INFO" if folder.name.endswith(".egg-info") else "METADATA")).write_text(
        f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1.0\n"
    )
    (folder / "entry_points.txt").write_text(entry_points)
    return folder


@pytest.fixture
def environment(tmp_path: Path) -> Path:
    """The environment's site-packages without Verdict's own metadata (nor its editable finder)."""
    view = tmp_path / "site-packages"
    view.mkdir()
    for where in site.getsitepackages():
        for entry in Path(where).iterdir():
            if "verdict_vtt" not in entry.name and not view.joinpath(entry.name).exists():
                view.joinpath(entry.name).symlink_to(entry)
    return view


def _checkout(tmp_path: Path) -> Path:
    """The checkout's sources without its own metadata: an editable install writes ``verdict_vtt.egg-info`` at
    the checkout's root, listing the entry points, and a case must decide what metadata is on its path."""
    view = tmp_path / "checkout"
    if not view.exists():
        view.mkdir()
        for package in ("protocol", "sidecar"):
            view.joinpath(package).symlink_to(ROOT / package)
    return view


def _run(cwd: Path, *path: Path, code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, path))}
    return subprocess.run([sys.executable, "-S", "-c", code], env=env, cwd=cwd, capture_output=True, text=True)


_SYSTEMS = (
    "import json\n"
    "from protocol.v1 import systems\n"
    "from sidecar.engine import registry\n"
    "print(json.dumps([systems.SYSTEMS, systems.SHIPPED, list(registry.RULESETS)]))\n"
)
_START = "import sys; sys.argv = ['verdict', 'read', 'facets', '--pool', '2', '--dice', '6,3']\nimport sidecar.cli\n"


def test_here_the_five_are_verdicts_own_entry_points_in_the_protocols_order() -> None:
    for group, loaded in (
        (systems.PROTOCOL_ENTRY_POINTS, dict(systems.MODULES)),
        (registry.RULESET_ENTRY_POINTS, registry.RULESETS),
    ):
        ours = next(
            eps
            for d in distributions()
            if d.metadata["Name"] == "verdict-vtt" and (eps := list(d.entry_points.select(group=group)))
        )
        assert sorted(ep.name for ep in ours) == sorted(ORDER)
        assert ORDER == systems.SHIPPED == systems.SYSTEMS[:5] == tuple(loaded)[:5]
        assert all(ep.load() is loaded[ep.name] for ep in ours)


def test_what_verdicts_metadata_lists_is_what_loads_in_the_protocols_order(tmp_path: Path, environment: Path) -> None:
    listed = ("boons", "facets", "challenge", "flairs")
    ours = _metadata(tmp_path / "ours" / "verdict_vtt-0.1.0.dist-info", "verdict-vtt", _verdict_lines(listed))
    r = _run(tmp_path, ours.parent, _checkout(tmp_path), environment, code=_SYSTEMS)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [["facets", "challenge", "flairs", "boons"]] * 3


def test_a_checkout_whose_metadata_lacks_them_stops_saying_how_to_install_it(tmp_path: Path, environment: Path) -> None:
    stale = _metadata(
        tmp_path / "verdict_vtt.egg-info", "verdict-vtt", "[console_scripts]\nverdict = sidecar.cli:main\n"
    )
    r = _run(tmp_path, tmp_path, _checkout(tmp_path), environment, code=_START)
    assert (r.returncode, r.stdout) == (2, ""), r.stdout + r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "verdict.protocol" in r.stderr and str(stale) in r.stderr
    assert "`make`" in r.stderr and "`pip install -e .`" in r.stderr


def test_a_stale_copy_of_verdicts_metadata_does_not_double_them(tmp_path: Path, environment: Path) -> None:
    # the checkout's root holds an old egg-info listing them too, found before the installed metadata
    _metadata(tmp_path / "verdict_vtt.egg-info", "verdict-vtt", _verdict_lines())
    ours = _metadata(tmp_path / "ours" / "verdict_vtt-0.1.0.dist-info", "verdict-vtt", _verdict_lines())
    r = _run(tmp_path, tmp_path, ours.parent, _checkout(tmp_path), environment, code=_SYSTEMS)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [list(ORDER)] * 3


def test_a_stale_copy_without_them_does_not_hide_the_installed_ones(tmp_path: Path, environment: Path) -> None:
    _metadata(tmp_path / "verdict_vtt.egg-info", "verdict-vtt", "[console_scripts]\nverdict = sidecar.cli:main\n")
    ours = _metadata(tmp_path / "ours" / "verdict_vtt-0.1.0.dist-info", "verdict-vtt", _verdict_lines())
    r = _run(tmp_path, tmp_path, ours.parent, _checkout(tmp_path), environment, code=_SYSTEMS)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [list(ORDER)] * 3


def test_metadata_under_another_distributions_name_cannot_take_a_shipped_one(tmp_path: Path, environment: Path) -> None:
    # Verdict's old distribution name: its stale egg-info is another distribution, refused, and named by path
    old = _metadata(tmp_path / "verdict.egg-info", "verdict", _verdict_lines())
    ours = _metadata(tmp_path / "ours" / "verdict_vtt-0.1.0.dist-info", "verdict-vtt", _verdict_lines())
    r = _run(tmp_path, tmp_path, ours.parent, _checkout(tmp_path), environment, code=_START)
    assert (r.returncode, r.stdout) == (2, ""), r.stdout + r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "verdict 0.1.0" in r.stderr and "'boons'" in r.stderr and "shipped with Verdict" in r.stderr
    assert old.name in r.stderr
