"""The defaults live in sidecar/config.py: the CLI's data directory and ledger file come from there."""

from __future__ import annotations

import json
from pathlib import Path

from sidecar import config
from sidecar.server.app import Settings

from .cli.running import verdict


def test_the_data_directory_comes_from_the_option_then_the_environment_then_the_default(tmp_path: Path) -> None:
    by_option, by_env = tmp_path / "opt", tmp_path / "env"
    r = verdict("table", "--data", str(by_option), "create", "A", "--json", env={config.DATA_ENV: str(by_env)})
    assert r.returncode == 0, r.stderr
    assert config.data_file(by_option).is_file() and not by_env.exists()
    r = verdict("table", "create", "B", "--json", env={config.DATA_ENV: str(by_env)})
    assert r.returncode == 0, r.stderr
    assert config.data_file(by_env).is_file()
    user_data = tmp_path / "user-data"  # the platform's per-user data folders (XDG on Linux)
    r = verdict(
        "table", "create", "C", "--json", unset=[config.DATA_ENV], env={"XDG_DATA_HOME": str(user_data)}, cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
    assert (user_data / "verdict" / config.DATA_FILE).is_file() and not (tmp_path / config.DATA_DIR).exists()
    assert json.loads(r.stdout)["name"] == "C"


def test_settings_start_from_the_config() -> None:
    s = Settings()
    assert (s.host, s.port, s.data) == ("127.0.0.1", 8765, Path(config.DATA_DIR))
    for knob in config.KNOBS:
        assert getattr(s, knob.name) == knob.default == getattr(config.DEFAULTS, knob.name), knob.name
    assert s.bucket() == 2 * s.rate
    assert s.origins() == frozenset(config.LOCAL_FOUNDRY_ORIGINS)
