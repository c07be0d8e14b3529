"""Write a release's files: ``make release VERSION=x.y.z PUBLIC_URL=https://…`` (and the forge's CI on a tag).

    python tools/release.py --version 0.2.0 --public-url https://github.com/OWNER/REPO/releases/download/v0.2.0

Into ``dist/``: the wheel (the module's bundle added to it) and the sdist, built from this checkout; the Foundry
module's zip (the module bundled: one minified ES module with its source map and one stylesheet, built by
esbuild from the checkout's files as they are; ``npm ci`` installs it) and its module.json with absolute URLs
on PUBLIC_URL (the address the release's files are downloaded from, side by side); ``SHA256SUMS`` over all of
them, and ``RELEASE-NOTES.md``, the changelog's section for the version.

It refuses a version the tree does not carry (pyproject.toml, sidecar/__init__.py and vtt-module/module.json
must all say it), one the changelog has no section for, and a module that does not bundle, before anything is
written.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sidecar import __version__  # noqa: E402  (the checkout's, whatever is installed)
from sidecar.server.module import (  # noqa: E402
    CHECKOUT_DIR,
    PACKAGE,
    PREBUILT,
    BundleError,
    build_zip,
    bundle,
    check_public_url,
)

ZIP_NAME = "verdict.zip"
MANIFEST_NAME = "module.json"
NOTES_NAME = "RELEASE-NOTES.md"
SUMS_NAME = "SHA256SUMS"


class ReleaseError(Exception):
    """A release that cannot be made as asked; the message says why."""


def versions(root: Path) -> dict[str, str]:
    """The version each place of the tree says."""
    return {
        "pyproject.toml": tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"],
        "sidecar/__init__.py": __version__,
        "vtt-module/module.json": json.loads((CHECKOUT_DIR / "module.json").read_text())["version"],
    }


def changelog_section(text: str, version: str) -> str:
    """The changelog's section for ``version`` (its heading ``## [x.y.z] - DATE`` to the next ``## ``)."""
    lines = text.splitlines()
    heading = re.compile(rf"^## \[{re.escape(version)}\](\s|$)")
    start = next((i for i, line in enumerate(lines) if heading.match(line)), None)
    if start is None:
        raise ReleaseError(
            f"CHANGELOG.md has no section for {version}: move the Unreleased entries under "
            f"'## [{version}] - YYYY-MM-DD' first"
        )
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    section = "\n".join(lines[start:end]).strip()
    if section == lines[start].strip():
        raise ReleaseError(f"CHANGELOG.md's section for {version} is empty")
    return section + "\n"


def _record_line(name: str, body: bytes) -> str:
    """A wheel's RECORD line for a file (PEP 376/427: urlsafe base64 sha256 without padding, and the size)."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(body).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(body)}"


def add_bundle(wheel: Path, files: dict[str, bytes]) -> None:
    """Put the module's bundle into ``wheel`` beside the module's plain files (``PACKAGE/bundle/``), its RECORD
    written again: a sidecar installed from the release's wheel serves the bundled zip with no bundler of its
    own (``sidecar.server.module`` uses it while its vocabulary is the one the sidecar writes). The wheel is
    built from the sdist, where no bundler is installed, so the bundle is added to it here."""
    prefix = PACKAGE.replace(".", "/") + f"/{PREBUILT}/"
    with zipfile.ZipFile(wheel) as old:
        entries = [(info, old.read(info)) for info in old.infolist()]
    (record,) = [info for info, _ in entries if info.filename.endswith(".dist-info/RECORD")]
    added = {prefix + name: body for name, body in sorted(files.items())}
    lines = [line for line in dict(entries)[record].decode().splitlines() if line and not line.startswith(prefix)]
    lines += [_record_line(name, body) for name, body in added.items()]
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as new:
        for info, body in entries:
            if info is record:
                for name, data in added.items():
                    entry = zipfile.ZipInfo(name, date_time=info.date_time)
                    entry.external_attr = 0o644 << 16
                    new.writestr(entry, data, zipfile.ZIP_DEFLATED)
                new.writestr(info, ("\n".join(lines) + "\n").encode(), zipfile.ZIP_DEFLATED)
            elif not info.filename.startswith(prefix):
                new.writestr(info, body, zipfile.ZIP_DEFLATED)


def release(version: str, public_url: str, out: Path, changelog: Path) -> list[Path]:
    said = versions(ROOT)
    wrong = {place: v for place, v in said.items() if v != version}
    if wrong:
        raise ReleaseError(
            f"the tree is not at {version}: " + ", ".join(f"{place} says {v}" for place, v in wrong.items())
        )
    try:
        url = check_public_url(public_url)
    except ValueError as exc:
        raise ReleaseError(f"PUBLIC_URL: {exc}") from None
    notes = changelog_section(changelog.read_text(), version)
    try:
        made = bundle(CHECKOUT_DIR)
        archive = build_zip(url, at_root=True, bundled=True)
    except BundleError as exc:
        raise ReleaseError(f"the module's bundle: {exc}") from None

    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    built = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
    )
    if built.returncode != 0:
        raise ReleaseError(f"the build failed:\n{built.stdout}{built.stderr}")
    for wheel in out.glob("*.whl"):
        add_bundle(wheel, made)
    (out / ZIP_NAME).write_bytes(archive)
    # The manifest beside the zip is the zip's own: Foundry reads it first, then installs the zip.
    (out / MANIFEST_NAME).write_bytes(zipfile.ZipFile(io.BytesIO(archive)).read(MANIFEST_NAME))
    (out / NOTES_NAME).write_text(notes)
    files = sorted(p for p in out.iterdir() if p.is_file())
    sums = "".join(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}\n" for p in files)
    (out / SUMS_NAME).write_text(sums)
    return [*files, out / SUMS_NAME]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="release", description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--version", required=True, help="x.y.z: the version the tree carries")
    parser.add_argument(
        "--public-url", required=True, help="where the release's files are downloaded from, side by side"
    )
    parser.add_argument("--out", default=str(ROOT / "dist"), help="the folder to write (emptied first)")
    parser.add_argument("--changelog", default=str(ROOT / "CHANGELOG.md"))
    args = parser.parse_args(argv)
    try:
        written = release(args.version, args.public_url, Path(args.out), Path(args.changelog))
    except ReleaseError as exc:
        sys.stderr.write(f"release: {exc}\n")
        return 2
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
