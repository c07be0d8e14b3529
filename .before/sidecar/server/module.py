"""Serving the Foundry module: its manifest and a zip built from ``vtt-module/``.

A GM pastes ``http://HOST:PORT/module/module.json`` into Foundry's "Install Module"
box; the manifest's ``manifest`` and ``download`` URLs are rewritten to this host.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

MODULE_DIR = Path(__file__).resolve().parents[2] / "vtt-module"


SKIP_SUFFIXES = (".d.ts",)
"""Type declarations serve the type check only; Foundry never loads them."""


def build_zip(root: Path = MODULE_DIR) -> bytes:
    """The module as a Foundry package: module.json at the root of the archive, as release zips have it.

    Built reproducibly (fixed timestamps, sorted names), so the same tree always gives the same bytes.
    """
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(root.rglob("*")):
            if path.is_file() and "node_modules" not in path.parts and not path.name.endswith(SKIP_SUFFIXES):
                info = zipfile.ZipInfo(path.relative_to(root).as_posix(), date_time=(2026, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                zf.writestr(info, path.read_bytes())
    return buf.getvalue()


def manifest(base_url: str, root: Path = MODULE_DIR) -> dict:
    data = json.loads((root / "module.json").read_text())
    data["manifest"] = f"{base_url}/module/module.json"
    data["download"] = f"{base_url}/module/verdict.zip"
    return data
