"""The module's manifest and zip carry URLs on one public URL, never on what a request claims.

A real server on a loopback port; requests carry the headers a forger (or a reverse proxy) would send.
"""

from __future__ import annotations

import io
import json
import tomllib
import zipfile
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from sidecar.server import module as vtt_module
from sidecar.server.app import Settings, create_app

from ..conftest import free_port

FORGED = {"Host": "evil.example", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example"}


@asynccontextmanager
async def serving(tmp_path: Path, **settings: Any) -> AsyncIterator[str]:
    app = create_app(Settings(data=tmp_path, **settings))
    server = TestServer(app, host="127.0.0.1", port=free_port())
    await server.start_server()
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        await server.close()


async def fetch(base: str, headers: dict[str, str] | None = None) -> tuple[dict[str, Any], zipfile.ZipFile]:
    async with aiohttp.ClientSession() as s:
        async with s.get(base + "/module/module.json", headers=headers) as r:
            assert r.status == 200, await r.text()
            manifest = await r.json()
        async with s.get(base + "/module/verdict.zip", headers=headers) as r:
            assert r.status == 200, await r.text()
            archive = zipfile.ZipFile(io.BytesIO(await r.read()))
    return manifest, archive


def urls_on(public: str, manifest: dict[str, Any], archive: zipfile.ZipFile) -> None:
    inside = json.loads(archive.read("module.json"))
    for data in (manifest, inside):
        assert data["manifest"] == public + "/module/module.json"
        assert data["download"] == public + "/module/verdict.zip"


async def test_a_forged_host_changes_nothing(tmp_path: Path) -> None:
    async with serving(tmp_path) as base:
        urls_on(base, *await fetch(base, FORGED))
    async with serving(tmp_path, public_url="https://verdict.example.org") as base:
        urls_on("https://verdict.example.org", *await fetch(base, FORGED))


async def test_forwarded_headers_count_from_a_trusted_proxy_only(tmp_path: Path) -> None:
    behind = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "verdict.example.org"}
    async with serving(tmp_path, trusted_proxies=("127.0.0.1",)) as base:
        urls_on("https://verdict.example.org", *await fetch(base, behind))
        # The proxy names the scheme alone: the address stays the one the request came in on.
        manifest, archive = await fetch(base, {"X-Forwarded-Proto": "https"})
        urls_on(base.replace("http://", "https://"), manifest, archive)
        # What a proxy forwards must be a scheme and a host, nothing that bends the URL.
        urls_on(base, *await fetch(base, {"X-Forwarded-Proto": "javascript", "X-Forwarded-Host": "a/b?c"}))
    async with serving(tmp_path, trusted_proxies=("10.9.9.9", "192.0.2.0/24")) as base:
        urls_on(base, *await fetch(base, behind))
    async with serving(tmp_path) as base:
        urls_on(base, *await fetch(base, behind))
    # A configured public URL is the operator's word: a proxy's headers do not override it.
    async with serving(tmp_path, trusted_proxies=("127.0.0.1",), public_url="https://v.example.net/") as base:
        urls_on("https://v.example.net", *await fetch(base, behind))


async def test_the_zip_is_built_once_per_public_url_whatever_the_hosts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[str] = []
    real: Callable[..., bytes] = vtt_module.with_manifest

    def counting(files: bytes, public_url: str, *args: Any) -> bytes:
        built.append(public_url)
        return real(files, public_url, *args)

    monkeypatch.setattr(vtt_module, "with_manifest", counting)
    async with serving(tmp_path, public_url="https://verdict.example.org") as base:
        bodies = set()
        async with aiohttp.ClientSession() as s:
            for i in range(40):
                async with s.get(base + "/module/verdict.zip", headers={"Host": f"h{i}.example"}) as r:
                    assert r.status == 200
                    bodies.add(await r.read())
    assert built == ["https://verdict.example.org"] and len(bodies) == 1


async def test_the_zip_holds_every_file_the_manifest_names_with_module_json_at_its_root(tmp_path: Path) -> None:
    async with serving(tmp_path, public_url="https://verdict.example.org") as base:
        manifest, archive = await fetch(base)
    names = set(archive.namelist())
    assert "module.json" in names and "LICENSE" in names
    named = manifest["esmodules"] + manifest["styles"] + [lang["path"] for lang in manifest["languages"]]
    assert named and set(named) <= names
    assert not any(n.endswith(".d.ts") for n in names)
    # The project's addresses are the distribution's own, named once in pyproject.toml.
    urls = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"]["urls"]
    assert manifest["url"] == urls["Homepage"] and manifest["bugs"] == urls["Issues"]
    assert manifest["changelog"] == urls["Changelog"] and manifest["license"] == "LICENSE"


async def test_without_the_module_files_the_routes_say_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vtt_module, "CHECKOUT_DIR", tmp_path / "no-checkout")
    monkeypatch.setattr(vtt_module, "PACKAGE", "sidecar.no_such_package")
    async with serving(tmp_path) as base:
        async with aiohttp.ClientSession() as s:
            for path in ("/module/module.json", "/module/verdict.zip"):
                async with s.get(base + path) as r:
                    assert r.status == 404 and "not bundled" in await r.text()


@pytest.mark.parametrize(
    ("given", "public"),
    [
        ("https://verdict.example.org/", "https://verdict.example.org"),
        ("http://192.0.2.5:8765", "http://192.0.2.5:8765"),
        ("https://example.org/verdict/", "https://example.org/verdict"),
        ("http://[::1]:8765", "http://[::1]:8765"),
    ],
)
def test_a_public_url_is_checked_and_kept_without_its_trailing_slash(given: str, public: str) -> None:
    assert vtt_module.check_public_url(given) == public


@pytest.mark.parametrize(
    "given",
    [
        "verdict.example.org",
        "ftp://x.example",
        "https://",
        "https://a.example/?q=1",
        # a port that is none, a path no URL may carry as it stands, credentials in the URL
        "http://a.example:99999",
        "http://a.example:0",
        "https://a.example/my verdict",
        'https://a.example/"><script>',
        "https://a.example/v\\x",
        "https://user:secret@a.example",
    ],
)
def test_a_public_url_that_is_not_one_is_refused(given: str) -> None:
    with pytest.raises(ValueError):
        vtt_module.check_public_url(given)


def test_a_refused_public_url_says_what_is_wrong_with_it() -> None:
    with pytest.raises(ValueError, match="port"):
        vtt_module.check_public_url("http://a.example:99999")
    with pytest.raises(ValueError, match="user name or password"):
        vtt_module.check_public_url("https://user:secret@a.example")
    with pytest.raises(ValueError, match="path"):
        vtt_module.check_public_url("https://a.example/my verdict")


async def test_a_trusted_proxy_naming_a_port_that_is_none_is_not_taken(tmp_path: Path) -> None:
    async with serving(tmp_path, trusted_proxies=("127.0.0.1",)) as base:
        urls_on(base, *await fetch(base, {"X-Forwarded-Host": "v.example.org:99999"}))


def test_a_wildcard_listening_address_is_shown_as_loopback() -> None:
    assert vtt_module.address_url("0.0.0.0", 8765) == "http://127.0.0.1:8765"
    assert vtt_module.address_url("::", 8765) == "http://[::1]:8765"
    assert vtt_module.address_url("192.0.2.5", 80) == "http://192.0.2.5:80"


async def test_the_module_files_are_compressed_once_whatever_the_forwarded_hosts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Behind a trusted proxy without --public-url every forwarded host is a public URL of its own: more of
    them than the cache holds, in turn, must not rebuild the archive per request (unauthenticated CPU)."""
    walks: list[int] = []
    real = vtt_module.module_files

    def counting(*args: Any) -> Any:
        walks.append(1)
        return real(*args)

    monkeypatch.setattr(vtt_module, "module_files", counting)
    hosts = [f"h{i}.example" for i in range(vtt_module.ZIP_CACHE + 4)]
    served: dict[str, bytes] = {}
    async with serving(tmp_path, trusted_proxies=("127.0.0.1",)) as base:
        async with aiohttp.ClientSession() as s:
            for host in hosts * 2:
                async with s.get(base + "/module/verdict.zip", headers={"X-Forwarded-Host": host}) as r:
                    assert r.status == 200
                    served[host] = await r.read()
                archive = zipfile.ZipFile(io.BytesIO(served[host]))
                assert json.loads(archive.read("module.json"))["download"] == f"http://{host}/module/verdict.zip"
                assert archive.testzip() is None
    assert len(walks) == 1
    # Each is the archive `verdict module --zip` writes for that URL.
    assert served["h1.example"] == vtt_module.build_zip("http://h1.example")
