"""The compose file and Dockerfile: validated with docker-compose (no Docker engine runs here)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose is not installed (.ci/run installs it)")
def test_compose_file_is_valid_and_complete():
    r = subprocess.run(
        ["docker-compose", "-f", "compose.yaml", "config"], cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={"PATH": "/usr/bin:/bin", "FOUNDRY_ORIGIN": "https://foundry.example.org", "VERDICT_DOMAIN": "v.example.org"},
    )
    assert r.returncode == 0, r.stderr
    cfg = r.stdout
    assert "verdict-data:/data" in cfg.replace(" ", "") or "source: verdict-data" in cfg
    assert "/healthz" in cfg
    assert "--allow-origin" in cfg and "https://foundry.example.org" in cfg


def test_dockerfile_runs_the_sidecar_with_a_healthcheck():
    text = (ROOT / "Dockerfile").read_text()
    assert "HEALTHCHECK" in text and "/healthz" in text
    assert '"verdict", "serve"' in text and "VOLUME /data" in text
    for path in ("protocol", "sidecar", "vtt-module", "pyproject.toml"):
        assert path in text
