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


def build_zip(root: Path = MODULE_DIR) -> bytes:
    """The module as Foundry expects a package: every file under a top folder named after its id."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(root.rglob("*")):
            if path.is_file() and "node_modules" not in path.parts:
                info = zipfile.ZipInfo(f"verdict/{path.relative_to(root).as_posix()}", date_time=(2026, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                zf.writestr(info, path.read_bytes())
    return buf.getvalue()


def manifest(base_url: str, root: Path = MODULE_DIR) -> dict:
    data = json.loads((root / "module.json").read_text())
    data["manifest"] = f"{base_url}/module/module.json"
    data["download"] = f"{base_url}/module/verdict.zip"
    return data
