"""The HTTP side: /metrics only for loopback or a token, the module zip built once."""

from __future__ import annotations

from unittest import mock

import aiohttp
from aiohttp.test_utils import make_mocked_request

from sidecar.server import app as app_module
from sidecar.server.app import Settings, create_app


def _request(app, remote: str, auth: str | None = None):
    transport = mock.Mock()
    transport.get_extra_info.side_effect = lambda name, default=None: (remote, 40000) if name == "peername" else default
    headers = {"Authorization": auth} if auth else {}
    return make_mocked_request("GET", "/metrics", headers=headers, app=app, transport=transport)


async def test_metrics_refuse_remote_clients_without_the_token(tmp_path):
    app = create_app(Settings(host="0.0.0.0", data=tmp_path, metrics_token="s3cret"))
    ok = await app_module.metrics_view(_request(app, "127.0.0.1"))
    assert ok.status == 200 and "verdict_connections" in ok.text
    for auth in (None, "Bearer wrong", "s3cret"):
        refused = await app_module.metrics_view(_request(app, "203.0.113.7", auth))
        assert refused.status == 403 and b"metrics_forbidden" in refused.body
    ok = await app_module.metrics_view(_request(app, "203.0.113.7", "Bearer s3cret"))
    assert ok.status == 200
    tokenless = create_app(Settings(host="0.0.0.0", data=tmp_path))
    assert (await app_module.metrics_view(_request(tokenless, "203.0.113.7", "Bearer "))).status == 403
    app[app_module.HUB].ledger.close()
    tokenless[app_module.HUB].ledger.close()


async def test_the_zip_is_built_once(sidecar, monkeypatch):
    calls = []
    real = app_module.vtt_module.module_files  # what building the archive walks and compresses

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(app_module.vtt_module, "module_files", counting)
    base = sidecar.url.replace("ws://", "http://").removesuffix("/ws")
    bodies = set()
    async with aiohttp.ClientSession() as s:
        for _ in range(5):
            async with s.get(base + "/module/verdict.zip") as r:
                assert r.status == 200
                bodies.add(await r.read())
    assert len(calls) == 1 and len(bodies) == 1
