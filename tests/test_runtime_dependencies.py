"""What ``pip install verdict-vtt`` brings is what the sidecar runs on: websockets, the protocol's Python
client's library (``sidecar/client.py``), is the ``client`` extra, and nothing the sidecar runs imports it."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_websockets_is_the_client_extra_not_a_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not [d for d in project["dependencies"] if d.startswith("websockets")]
    assert [d for d in project["optional-dependencies"]["client"] if d.startswith("websockets")]


def test_serving_and_the_cli_import_no_websockets() -> None:
    program = (
        "import sys\n"
        "import sidecar.cli, sidecar.server.run, sidecar.server.app, sidecar.state.table\n"
        "sidecar.cli.build_parser()\n"
        "print(sorted(m for m in sys.modules if m == 'websockets' or m.startswith('websockets.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
