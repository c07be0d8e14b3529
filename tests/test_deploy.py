"""The compose file and Dockerfile: validated with docker-compose (no Docker engine runs here)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(
    shutil.which("docker-compose") is None, reason="docker-compose is not installed (.ci/run installs it)"
)
def test_compose_file_is_valid_and_complete():
    r = subprocess.run(
        ["docker-compose", "-f", "compose.yaml", "config"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={
            "PATH": "/usr/bin:/bin",
            "FOUNDRY_ORIGIN": "https://foundry.example.org",
            "VERDICT_DOMAIN": "v.example.org",
        },
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


def _yaml(text: str) -> dict:
    """Parse YAML with the interpreter docker-compose runs on (it depends on PyYAML; the test venv does not)."""
    shebang = Path(shutil.which("docker-compose") or "").read_text(errors="replace").splitlines()[0]
    python = shebang[2:].split()[0] if shebang.startswith("#!") and "python" in shebang else "python3"
    r = subprocess.run(
        [python, "-c", "import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)"],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(r.stdout)


@pytest.mark.skipif(
    shutil.which("docker-compose") is None, reason="docker-compose is not installed (.ci/run installs it)"
)
def test_several_sidecars_compose_file_is_valid_and_complete():
    env = {
        "PATH": "/usr/bin:/bin",
        "FOUNDRY_ORIGIN": "https://foundry.example.org",
        "VERDICT_DOMAIN": "v.example.org",
        "POSTGRES_PASSWORD": "pw-for-the-test",
    }
    r = subprocess.run(
        ["docker-compose", "-f", "compose.postgres.yaml", "config"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    cfg = _yaml(r.stdout)
    services = cfg["services"]
    sidecars = [name for name, s in services.items() if "verdict" in (s.get("command") or [])]
    assert len(sidecars) >= 2
    for name in sidecars:
        s = services[name]
        assert s["environment"]["VERDICT_LEDGER"] == "postgresql://verdict:pw-for-the-test@postgres:5432/verdict"
        assert s["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert "/healthz" in " ".join(s["healthcheck"]["test"])
        assert "https://foundry.example.org" in s["command"]
    assert services["postgres"]["image"].startswith("postgres:")
    assert "pg_isready" in services["postgres"]["healthcheck"]["test"]
    assert any("postgres-data" in str(v) for v in services["postgres"]["volumes"])
    proxy = services["proxy"]
    mounted = [str(v) for v in proxy["volumes"]]
    assert any("Caddyfile.several" in v for v in mounted)
    caddy = (ROOT / "deploy" / "Caddyfile.several").read_text()
    for name in sidecars:  # the proxy balances over every sidecar, checking their health
        assert f"{name}:8765" in caddy
    assert "health_uri /healthz" in caddy and "lb_policy" in caddy
    # Without a database password the file refuses to start, saying what is missing.
    r = subprocess.run(
        ["docker-compose", "-f", "compose.postgres.yaml", "config"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in env.items() if k != "POSTGRES_PASSWORD"},
    )
    assert r.returncode != 0 and "POSTGRES_PASSWORD" in r.stderr
