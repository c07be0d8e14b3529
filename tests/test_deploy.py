"""The compose files, validated with docker-compose, and the Dockerfile, followed line by line into a folder
(no Docker engine runs here)."""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
import sys
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
    assert "--allow-origin" in cfg and "https://foundry.example.org" in cfg
    services = _yaml(cfg)["services"]
    assert services["proxy"]["depends_on"] == {"verdict": {"condition": "service_healthy"}}
    assert services["verdict"]["healthcheck"]["test"] == ["CMD", "verdict", "health", "--data", "/data"]
    # Without the domain or the Foundry origin the file refuses to start, naming what is missing.
    for missing in ("VERDICT_DOMAIN", "FOUNDRY_ORIGIN"):
        env = {
            "PATH": "/usr/bin:/bin",
            "FOUNDRY_ORIGIN": "https://foundry.example.org",
            "VERDICT_DOMAIN": "v.example.org",
        }
        del env[missing]
        r = subprocess.run(
            ["docker-compose", "-f", "compose.yaml", "config"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
        assert r.returncode != 0 and f"set {missing}" in r.stderr and ".env.example" in r.stderr
    example = dict(
        line.split("=", 1)
        for line in (ROOT / ".env.example").read_text().splitlines()
        if line and not line.startswith("#")
    )
    assert {"VERDICT_DOMAIN", "FOUNDRY_ORIGIN", "POSTGRES_PASSWORD"} <= set(example)


def test_dockerfile_runs_the_sidecar_with_a_healthcheck():
    text = (ROOT / "Dockerfile").read_text()
    assert 'HEALTHCHECK --interval=30s --timeout=5s --start-period=10s CMD ["verdict", "health"]' in text
    assert '"verdict", "serve"' in text and "VOLUME /data" in text
    assert "VERDICT_PUBLIC_URL" not in text.split("ENV", 1)[1].split("\n", 1)[0]  # not baked into the image
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
        assert s["healthcheck"]["test"] == ["CMD", "verdict", "health", "--data", "/data"]
        assert services["proxy"]["depends_on"][name] == {"condition": "service_healthy"}
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


def _trusted_and_public(command: list[str]) -> tuple[list[str], list[str]]:
    trusted = [command[i + 1] for i, a in enumerate(command) if a == "--trust-proxy"]
    public = [command[i + 1] for i, a in enumerate(command) if a == "--public-url"]
    return trusted, public


@pytest.mark.skipif(
    shutil.which("docker-compose") is None, reason="docker-compose is not installed (.ci/run installs it)"
)
@pytest.mark.parametrize("file", ["compose.yaml", "compose.postgres.yaml"])
def test_compose_passes_the_public_https_url_and_trusts_the_proxy_alone(file: str) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "FOUNDRY_ORIGIN": "https://foundry.example.org",
        "VERDICT_DOMAIN": "v.example.org",
        "POSTGRES_PASSWORD": "pw-for-the-test",
    }
    r = subprocess.run(
        ["docker-compose", "-f", file, "config"], cwd=ROOT, capture_output=True, text=True, timeout=60, env=env
    )
    assert r.returncode == 0, r.stderr
    services = _yaml(r.stdout)["services"]
    proxy_addresses = {net["ipv4_address"] for net in services["proxy"]["networks"].values()}
    sidecars = [s for s in services.values() if "verdict" in (s.get("command") or [])]
    assert sidecars
    for s in sidecars:
        trusted, public = _trusted_and_public(s["command"])
        assert public == ["https://v.example.org"]
        # Only the proxy's own address: a peer elsewhere in a private range may not claim another address.
        assert trusted and set(trusted) == proxy_addresses and all("/" not in t for t in trusted)
        assert set(s["networks"]) == set(services["proxy"]["networks"])
    assert all("ports" not in s for s in sidecars), "the sidecar is reached through the proxy alone"


def _dockerfile() -> list[tuple[str, str]]:
    """The Dockerfile's instructions (continuation lines joined, comments left out)."""
    lines, joined = [], ""
    for raw in (ROOT / "Dockerfile").read_text().splitlines():
        if not joined and (not raw.strip() or raw.lstrip().startswith("#")):
            continue
        joined += raw.rstrip().removesuffix("\\") + " " if raw.rstrip().endswith("\\") else raw
        if not raw.rstrip().endswith("\\"):
            word, _, rest = joined.strip().partition(" ")
            lines.append((word.upper(), rest.strip()))
            joined = ""
    return lines


def test_the_dockerfile_builds_the_wheel_installs_it_and_serves_the_module_as_a_user(tmp_path: Path) -> None:
    """No Docker engine runs here: follow the Dockerfile's COPY and RUN lines in a folder per stage (the
    stage's / mapped there), then run its CMD from the installed environment and ask for the module."""
    import fnmatch
    import glob
    import shlex

    from .installing import Served, clean_env, link_dependencies, pip
    from .serving import free_port

    ignored = [p.strip() for p in (ROOT / ".dockerignore").read_text().splitlines() if p.strip()]

    def ignore(folder: str, names: list[str]) -> set[str]:
        return {n for n in names if any(fnmatch.fnmatch(n, p.removeprefix("**/")) for p in ignored)}

    stages: dict[str, Path] = {}
    root = cwd = tmp_path
    env: dict[str, str] = {}
    user = cmd = health = None
    venv = None  # the stage's Python, made when something is installed into it
    copied_from_context: list[str] = []

    def inside(path: str) -> Path:
        return root / path.lstrip("/") if path.startswith("/") else cwd / path

    for word, rest in _dockerfile():
        if word == "FROM":
            parts = rest.split()
            assert parts[0].startswith("python:3.11")
            root = cwd = tmp_path / f"stage{len(stages)}"
            root.mkdir()
            stages[parts[2] if len(parts) > 2 and parts[1].upper() == "AS" else str(len(stages))] = root
            env, user, venv, copied_from_context = {}, None, None, []
        elif word == "WORKDIR":
            cwd = inside(rest)
            cwd.mkdir(parents=True, exist_ok=True)
        elif word == "ENV":
            env.update(dict(item.split("=", 1) for item in shlex.split(rest)))
        elif word == "COPY":
            args = shlex.split(rest)
            source = ROOT
            if args[0].startswith("--from="):
                source = stages[args.pop(0).removeprefix("--from=")]
            else:
                copied_from_context += args[:-1]
            *srcs, dest = args
            target = inside(dest)
            for src in srcs:
                path = source / src.lstrip("/")
                if path.is_dir():
                    shutil.copytree(
                        path, target if len(srcs) == 1 else target / path.name, ignore=ignore, dirs_exist_ok=True
                    )
                else:
                    target.mkdir(parents=True, exist_ok=True) if dest.endswith("/") else target.parent.mkdir(
                        parents=True, exist_ok=True
                    )
                    shutil.copy(path, target / path.name if dest.endswith("/") else target)
        elif word == "RUN":
            for step in rest.split("&&"):
                argv = []
                for token in shlex.split(step):
                    mapped = str(inside(token)) if token.startswith("/") else token
                    argv += sorted(glob.glob(mapped)) or [mapped] if "*" in mapped else [mapped]
                if argv[:2] == ["pip", "wheel"]:
                    # The build backend from the test environment, not installed from an index per run.
                    r = subprocess.run(
                        [sys.executable, "-m", *argv, "--no-build-isolation"],
                        cwd=cwd,
                        capture_output=True,
                        text=True,
                        timeout=600,
                    )
                    assert r.returncode == 0, r.stdout + r.stderr
                elif argv[:2] == ["pip", "install"]:
                    # The image's Python is a fresh environment here; its dependencies are linked in (no download).
                    venv = root / "python"
                    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
                    pip(venv / "bin" / "python", "install", "--no-deps", "--no-index", *argv[2:])
                    purelib = next((venv / "lib").glob("python3*/site-packages"))
                    (purelib / "dependencies.pth").write_text(f"{link_dependencies(root / 'dependencies')}\n")
                    assert "No broken requirements" in pip(venv / "bin" / "python", "check")
                elif argv[0] in ("rm", "mkdir"):
                    paths = [a for i, a in enumerate(argv[1:], 1) if not a.startswith("-") and argv[i - 1] != "-m"]
                    assert all(Path(a).is_relative_to(root) for a in paths)
                    subprocess.run(argv, check=True)
                elif argv[0] in ("useradd", "chown"):
                    pass  # the system's users are not the test's to change; USER is checked below
                else:
                    raise AssertionError(f"the test does not know how to follow RUN {step.strip()!r}")
        elif word == "USER":
            user = rest
        elif word == "CMD":
            cmd = json.loads(rest)
        elif word == "HEALTHCHECK":
            health = json.loads(rest.split(" CMD ", 1)[1])
    assert user not in (None, "root", "0"), "the image runs as a user of its own"
    assert venv is not None and cmd is not None and cmd[0] == "verdict"
    assert not any(src in ("sidecar", "protocol", "vtt-module", ".") for src in copied_from_context), (
        "the final image holds the installed wheel, not the source tree"
    )
    assert "VERDICT_PUBLIC_URL" not in env, "the public URL is the deployment's, not the image's"
    data = inside(env["VERDICT_DATA"])
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    # Its CMD, on a free loopback port (not the one it names), from the image's WORKDIR with the image's environment.
    port = free_port()
    argv = [str(venv / "bin" / "verdict"), *cmd[1:]]
    argv[argv.index("--host") + 1] = "127.0.0.1"
    argv[argv.index("--port") + 1] = str(port)
    image_env = {**env, "VERDICT_DATA": str(data)}
    served = Served(argv, port, cwd, clean_env(**image_env))
    try:
        manifest = json.loads(served.get("/module/module.json", {"Host": "localhost:8765"}))
        assert json.loads(served.get("/healthz"))["status"] == "ok"
        # The image's health check finds the port served, whatever the command said.
        assert health is not None and health[0] == "verdict"
        checked = subprocess.run(
            [str(venv / "bin" / "verdict"), *health[1:]],
            cwd=cwd,
            env=clean_env(**image_env),
            capture_output=True,
            text=True,
        )
        assert checked.returncode == 0, checked.stderr
        assert checked.stdout.strip() == f"http://127.0.0.1:{port}: ok"
    finally:
        served.stop()
    after = subprocess.run([str(venv / "bin" / "verdict"), *health[1:]], cwd=cwd, env=clean_env(**image_env))
    assert after.returncode == 1  # stopped: unhealthy
    # On the address it was asked at (no public URL baked in); keys in the folder, not in the log.
    assert manifest["manifest"] == f"http://127.0.0.1:{port}/module/module.json"
    assert (data / "verdict.sqlite3").is_file() and stat.S_IMODE((data / "default-table.keys").stat().st_mode) == 0o600
    keys = dict(line.split(" ", 1) for line in (data / "default-table.keys").read_text().splitlines())
    assert keys["gm"] not in served.output()
