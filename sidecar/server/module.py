"""Serving the Foundry module: its manifest and a zip built from ``vtt-module/``.

A GM pastes ``http://HOST:PORT/module/module.json`` into Foundry's "Install Module"
box; the manifest's ``manifest`` and ``download`` URLs are rewritten to this host.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

MODULE_DIR = Path(__file__).resolve().parents[2] / "vtt-module"


SKIP_SUFFIXES = (".d.ts",)
"""Type declarations serve the type check only; Foundry never loads them."""


def build_zip(root: Path = MODULE_DIR, base_url: str | None = None) -> bytes:
    """The module as a Foundry package: module.json at the root of the archive, as release zips have it.

    With ``base_url`` the archived module.json carries the absolute ``manifest`` and ``download`` URLs of
    this host (Foundry's update check reads the installed manifest's ``manifest`` URL, which must be
    absolute). Built reproducibly (fixed timestamps, sorted names): the same tree and base URL always
    give the same bytes.
    """
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(root.rglob("*")):
            if path.is_file() and "node_modules" not in path.parts and not path.name.endswith(SKIP_SUFFIXES):
                name = path.relative_to(root).as_posix()
                info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                body = path.read_bytes()
                if name == "module.json" and base_url:
                    body = (json.dumps(manifest(base_url, root), indent=2) + "\n").encode()
                zf.writestr(info, body)
    return buf.getvalue()


def manifest(base_url: str, root: Path = MODULE_DIR) -> dict[str, Any]:
    """module.json with absolute ``manifest`` and ``download`` URLs on ``base_url`` (no trailing slash)."""
    base_url = base_url.rstrip("/")
    data: dict[str, Any] = json.loads((root / "module.json").read_text())
    data["manifest"] = f"{base_url}/module/module.json"
    data["download"] = f"{base_url}/module/verdict.zip"
    return data
