"""Serving the Foundry module: its manifest and its release zip, wherever the sidecar is installed.

A GM pastes ``PUBLIC_URL/module/module.json`` into Foundry's "Install Module" box. The files come from the
source checkout's ``vtt-module/`` when the sidecar runs from one (the working tree, as edited), else from
the copy the Python distribution carries as the package ``sidecar.foundry_module`` (a wheel, the Docker
image), found through :mod:`importlib.resources`.

The zip ships the module bundled (:func:`bundle`): its ES modules as one minified ES module with a source map,
its stylesheets as one, so Foundry's page loads the module in one request instead of one per imported file.
esbuild builds the bundle from the files as they are whenever the zip is made, where it is installed (a
checkout's ``node_modules``); an installed distribution may carry one built with it (``bundle/`` in the
package), used while its rule vocabulary is the one this sidecar writes. Where neither is there, the zip
holds the plain files, which Foundry loads as they are.

Every URL the manifest and the zip's module.json carry comes from one public URL: the configured one
(``--public-url``, ``$VERDICT_PUBLIC_URL``), else the address the sidecar was reached at (its socket's own
address, never the request's ``Host``), with ``X-Forwarded-Proto``/``-Host`` taken only from a trusted
reverse proxy. A request can therefore never point the manifest elsewhere; the module's files are read and
compressed once, and a public URL costs one module.json more.
"""

from __future__ import annotations

import asyncio
import importlib.resources
import io
import json
import re
import struct
import subprocess
import tempfile
import zipfile
from collections import OrderedDict
from collections.abc import Callable, Iterator
from importlib.resources.abc import Traversable
from ipaddress import ip_address
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from sidecar.config import ZIP_CACHE

CHECKOUT_DIR = Path(__file__).resolve().parents[2] / "vtt-module"
"""The module's working tree in a source checkout (absent where the sidecar is installed)."""
PACKAGE = "sidecar.foundry_module"
"""The module's files inside the Python distribution (``vtt-module/`` mapped in pyproject.toml)."""

SKIP_SUFFIXES = (".d.ts",)
"""Type declarations serve the type check only; Foundry never loads them."""
SKIP_PARTS = ("node_modules", "__pycache__")

VOCABULARY = "scripts/generated/vocabulary.mjs"
"""The module's file written from the engine's rule sets (``make schema``; the zip writes it afresh)."""
MANIFEST_PATH = "/module/module.json"
ZIP_PATH = "/module/verdict.zip"
NOT_BUNDLED = "the Foundry module is not bundled with this sidecar"


ESBUILD = CHECKOUT_DIR.parent / "node_modules" / ".bin" / "esbuild"
"""The bundler, pinned in package.json (``npm ci``); absent where the sidecar is installed from a wheel."""
BUNDLE_SCRIPT = "scripts/verdict.min.mjs"
"""The module's ES modules as one: module.json's only ``esmodules`` entry in the zip."""
BUNDLE_MAP = BUNDLE_SCRIPT + ".map"
BUNDLE_STYLE = "styles/verdict.min.css"
"""The module's stylesheets as one: module.json's only ``styles`` entry in the zip."""
BUNDLED_FOLDERS = ("scripts/", "styles/")
"""Where the plain files the bundle replaces are: none of them is in a bundled zip."""
PREBUILT = "bundle"
"""A distribution's bundle built with it, beside the plain files (the bundle's three files, same paths)."""


class ModuleMissing(FileNotFoundError):
    """Neither a checkout's ``vtt-module/`` nor the packaged copy is there."""


class BundleError(RuntimeError):
    """The bundle cannot be built (no bundler, or the bundler refused the module's files); the message says why."""


def module_root() -> Traversable:
    """Where the module's files are: the checkout's working tree, else the installed package's data."""
    if (CHECKOUT_DIR / "module.json").is_file():
        return CHECKOUT_DIR
    try:
        root = importlib.resources.files(PACKAGE)
    except ModuleNotFoundError:
        raise ModuleMissing(NOT_BUNDLED) from None
    if not root.joinpath("module.json").is_file():
        raise ModuleMissing(NOT_BUNDLED)
    return root


def module_files(root: Traversable | None = None) -> Iterator[tuple[str, Traversable]]:
    """The files Foundry installs, as (path inside the archive, file), in sorted order."""

    def walk(folder: Traversable, prefix: str) -> Iterator[tuple[str, Traversable]]:
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            if entry.name in SKIP_PARTS or (not prefix and entry.name == PREBUILT):
                continue
            name = f"{prefix}{entry.name}"
            if entry.is_dir():
                yield from walk(entry, name + "/")
            elif entry.is_file() and not entry.name.endswith(SKIP_SUFFIXES) and not entry.name.endswith(".pyc"):
                yield name, entry

    yield from walk(root if root is not None else module_root(), "")


def manifest(
    public_url: str, root: Traversable | None = None, at_root: bool = False, bundled: bool | None = None
) -> dict[str, Any]:
    """module.json with absolute ``manifest`` and ``download`` URLs on ``public_url``: where a sidecar serves
    them (``/module/…``), or ``at_root`` of the address, as a release's files lie side by side. Its
    ``esmodules`` and ``styles`` name the bundle's files when the zip is bundled (``bundled``; None: where a
    bundle can be made, as :func:`files_zip` decides).

    Foundry installs from ``download`` and checks for updates at the installed copy's ``manifest``: both
    must be absolute."""
    base = public_url.rstrip("/")
    source = root if root is not None else module_root()
    data: dict[str, Any] = json.loads(source.joinpath("module.json").read_text(encoding="utf-8"))
    if bundled if bundled is not None else can_bundle(source):
        data["esmodules"] = [BUNDLE_SCRIPT]
        data["styles"] = [BUNDLE_STYLE]
    data["manifest"] = base + ("/" + MANIFEST_PATH.rsplit("/", 1)[1] if at_root else MANIFEST_PATH)
    data["download"] = base + ("/" + ZIP_PATH.rsplit("/", 1)[1] if at_root else ZIP_PATH)
    return data


def _prebuilt(source: Traversable) -> dict[str, bytes] | None:
    """The bundle a distribution carries, if it was built from the vocabulary this sidecar writes (a rule set
    installed since would be missing from it): the map holds the text it was built from."""
    from sidecar.vocabulary import source as vocabulary_source

    folder = source.joinpath(PREBUILT)
    names = (BUNDLE_SCRIPT, BUNDLE_MAP, BUNDLE_STYLE)
    if not all(folder.joinpath(n).is_file() for n in names):
        return None
    made = {n: folder.joinpath(n).read_bytes() for n in names}
    source_map = json.loads(made[BUNDLE_MAP])
    bundled_vocabulary = VOCABULARY.removeprefix("scripts/")  # the map's sources lie beside the bundle
    if bundled_vocabulary not in source_map.get("sources", []):
        return None
    if source_map["sourcesContent"][source_map["sources"].index(bundled_vocabulary)] != vocabulary_source():
        return None
    return made


def can_bundle(root: Traversable | None = None) -> bool:
    """Whether :func:`bundle` can make the module's bundle here: the bundler is installed, or the distribution
    carries a bundle that is still current."""
    source = root if root is not None else module_root()
    return ESBUILD.is_file() or _prebuilt(source) is not None


def _esbuild(args: list[str], cwd: Path) -> None:
    try:
        done = subprocess.run([str(ESBUILD), *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    except OSError as exc:
        raise BundleError(f"esbuild cannot run ({exc.strerror}): `npm ci` installs it") from None
    if done.returncode != 0:
        raise BundleError(f"esbuild refused the module's files:\n{done.stderr.strip()}")


def bundle(root: Traversable | None = None, files: list[tuple[str, Traversable]] | None = None) -> dict[str, bytes]:
    """The module's ES modules as one minified ES module with its source map, and its stylesheets as one
    minified stylesheet: {path in the module: bytes}, built by esbuild from the files as they are now (the
    generated vocabulary written afresh, as :func:`files_zip` writes it), else the distribution's own bundle
    while it is current. The map's sources are the plain files' paths beside the bundle, their text inside it.
    ``files``: the module's files as :func:`module_files` lists them, when the caller has them already."""
    from sidecar.vocabulary import source as vocabulary_source

    source = root if root is not None else module_root()
    if not ESBUILD.is_file():
        prebuilt = _prebuilt(source)
        if prebuilt is not None:
            return prebuilt
        raise BundleError(f"the module's bundle needs esbuild ({ESBUILD} is missing): `npm ci` installs it")
    data = json.loads(source.joinpath("module.json").read_text(encoding="utf-8"))
    scripts, styles = list(data.get("esmodules", [])), list(data.get("styles", []))
    outside = [n for n in scripts + styles if not n.startswith(BUNDLED_FOLDERS)]
    if outside or not scripts:
        raise BundleError(f"module.json's esmodules and styles must lie in scripts/ and styles/: {outside or scripts}")
    with tempfile.TemporaryDirectory(prefix="verdict-bundle-") as tmp:
        stage = Path(tmp)
        for name, entry in files if files is not None else module_files(source):
            if name.startswith(BUNDLED_FOLDERS):
                body = vocabulary_source().encode() if name == VOCABULARY else entry.read_bytes()
                (stage / name).parent.mkdir(parents=True, exist_ok=True)
                (stage / name).write_bytes(body)
        # One entry importing each of module.json's modules in its order (Foundry loads them in that order).
        entry_script = stage / scripts[0]
        if len(scripts) > 1:
            entry_script = stage / "scripts" / ".bundle-entry.mjs"
            entry_script.write_text("".join(f'import "./{n.removeprefix("scripts/")}";\n' for n in scripts))
        common = ["--bundle", "--minify", "--charset=utf8", "--log-level=warning"]
        _esbuild(
            [
                str(entry_script.relative_to(stage)),
                *common,
                "--format=esm",
                # Foundry names an application's hooks after its class (renderTracker, closeTracker): the
                # minified classes keep their names, or every hook on them would go silent.
                "--keep-names",
                "--sourcemap",
                f"--outfile={BUNDLE_SCRIPT}",
            ],
            stage,
        )
        if styles:
            (stage / ".styles.css").write_text("".join(f'@import "./{n}";\n' for n in styles))
            _esbuild([".styles.css", *common, f"--outfile={BUNDLE_STYLE}"], stage)
        else:
            (stage / BUNDLE_STYLE).write_bytes(b"")
        return {n: (stage / n).read_bytes() for n in (BUNDLE_SCRIPT, BUNDLE_MAP, BUNDLE_STYLE)}


def bundled_tree(root: Traversable | None = None) -> Iterator[tuple[str, bytes]]:
    """The module as a bundled zip holds it, module.json (with its own URLs) included: every file Foundry
    installs but the plain scripts and stylesheets, and the bundle in their place, in sorted order."""
    source = root if root is not None else module_root()
    listed = list(module_files(source))
    made = bundle(source, listed)
    data = json.loads(source.joinpath("module.json").read_text(encoding="utf-8"))
    data["esmodules"], data["styles"] = [BUNDLE_SCRIPT], [BUNDLE_STYLE]
    out = {name: entry.read_bytes() for name, entry in listed if not name.startswith(BUNDLED_FOLDERS)}
    out.update(made)
    out["module.json"] = (json.dumps(data, indent=2) + "\n").encode()
    yield from sorted(out.items())


STAMP = (2026, 1, 1, 0, 0, 0)
"""Every entry's timestamp: the same files and URL give the same bytes."""


def _entry(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=STAMP)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    return info


def files_zip(root: Traversable | None = None, bundled: bool | None = None) -> bytes:
    """The module's archive without its module.json: every other file, read and compressed once; bundled
    (:func:`bundle`: the bundle in place of the plain scripts and stylesheets) when ``bundled``, or, when it is
    None, wherever a bundle can be made (:func:`can_bundle`).

    The one part of the zip that depends on the public URL is module.json; :func:`with_manifest` adds it to
    this archive in about a millisecond, so a new public URL never reads or compresses the module's files again.

    The generated vocabulary is written from this sidecar's rule sets, those installed as packages
    included: the module a GM installs draws every rule set the sidecar runs, with no checkout to
    regenerate in (with the shipped ones alone it is the file as checked in; a test holds them equal)."""
    from sidecar.vocabulary import source as vocabulary_source

    source = root if root is not None else module_root()
    if bundled is None:
        bundled = can_bundle(source)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        if bundled:
            for name, body in bundled_tree(source):
                if name != "module.json":
                    zf.writestr(_entry(name), body)
        else:
            for name, entry in module_files(source):
                if name == "module.json":
                    continue
                body = vocabulary_source().encode() if name == VOCABULARY else entry.read_bytes()
                zf.writestr(_entry(name), body)
    return buf.getvalue()


def is_bundled(files: bytes) -> bool:
    """Whether an archive from :func:`files_zip` holds the bundle (its module.json then names the bundle)."""
    return BUNDLE_SCRIPT in zipfile.ZipFile(io.BytesIO(files)).namelist()


_END = struct.Struct("<4s4H2LH")
"""A zip's end of central directory record (no comment): its entries, the directory's size and offset."""
_END_SIGNATURE = b"PK\x05\x06"
_OFFSET_IN_DIRECTORY = 42
"""Where a central directory record holds the offset of its entry's local header."""


def _end(archive: bytes) -> tuple[int, int, int]:
    """(entries, central directory size, its offset) of an archive written by :mod:`zipfile`."""
    signature, _, _, _, count, size, offset, comment = _END.unpack_from(archive, len(archive) - _END.size)
    if signature != _END_SIGNATURE or comment:
        raise ValueError("not an archive written by files_zip")
    return count, size, offset


def with_manifest(files: bytes, public_url: str, root: Traversable | None = None, at_root: bool = False) -> bytes:
    """``files`` (from :func:`files_zip`) with module.json at the archive's root, its URLs on ``public_url``.

    module.json is compressed into an archive of its own, and its entry is spliced after the files' entries:
    the files' bytes are copied, never parsed or compressed again."""
    one = io.BytesIO()
    with zipfile.ZipFile(one, "w", zipfile.ZIP_DEFLATED) as zf:
        data = manifest(public_url, root, at_root, bundled=is_bundled(files))
        zf.writestr(_entry("module.json"), (json.dumps(data, indent=2) + "\n").encode())
    single = one.getvalue()
    _, single_size, single_offset = _end(single)
    record = bytearray(single[single_offset : single_offset + single_size])
    count, size, offset = _end(files)
    struct.pack_into("<L", record, _OFFSET_IN_DIRECTORY, offset)  # its local header follows the files' entries
    local = files[:offset] + single[:single_offset]
    directory = files[offset : offset + size] + record
    return local + directory + _END.pack(_END_SIGNATURE, 0, 0, count + 1, count + 1, len(directory), len(local), 0)


def build_zip(
    public_url: str, root: Traversable | None = None, at_root: bool = False, bundled: bool | None = None
) -> bytes:
    """The module as a Foundry package: module.json at the root of the archive, its URLs on ``public_url``.

    Built reproducibly (fixed timestamps, sorted names, module.json last): the same files and URL always
    give the same bytes, so the served zip and one written by ``verdict module --zip`` for the same URL are
    one archive. Bundled as :func:`files_zip` decides."""
    source = root if root is not None else module_root()
    return with_manifest(files_zip(source, bundled), public_url, source, at_root)


# --- the public URL ------------------------------------------------------------------------------------

_HOST = re.compile(
    r"^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::(?P<port>[0-9]{1,5}))?$"
)
"""A host name or address with an optional port: what a forwarded host may be, nothing that bends a URL."""


_PATH = re.compile(r"^(?:/[A-Za-z0-9._~!$&'()*+,;=:@%-]*)*$")
"""A URL path as it may stand in a URL (RFC 3986's characters): no space, quote, bracket or backslash."""


def _is_host(netloc: str) -> bool:
    """Whether ``netloc`` is a host with an optional port that exists (1 to 65535)."""
    hit = _HOST.match(netloc)
    return hit is not None and (hit["port"] is None or 0 < int(hit["port"]) < 65536)


PASTED_PATHS = (MANIFEST_PATH, "/module", "/ws")
"""Paths of the sidecar's own a public URL may be given with by mistake: taken off, they leave the sidecar's."""


def check_public_url(value: str) -> str:
    """``value`` as the public URL (``http(s)://host[:port][/prefix]``, no trailing slash), or ValueError.
    The manifest's URL (``…/module/module.json``) or the websocket's (``…/ws``) is taken for the sidecar's."""
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"{value!r} is not an http:// or https:// URL")
    if "@" in parts.netloc:
        raise ValueError(f"{value!r} carries a user name or password; give the address alone")
    if not parts.netloc or not _HOST.match(parts.netloc):
        raise ValueError(f"{value!r} names no host (e.g. https://verdict.example.org)")
    if not _is_host(parts.netloc):
        raise ValueError(f"{value!r} names a port that is none (1 to 65535)")
    if parts.query or parts.fragment:
        raise ValueError(f"{value!r} has a query or fragment; give the address the sidecar is reached at")
    if not _PATH.match(parts.path):
        raise ValueError(f"{value!r} has a path no URL carries as it stands (a space, quote or backslash?)")
    path = parts.path.rstrip("/")
    for pasted in PASTED_PATHS:  # the manifest's URL or the websocket's, pasted for the sidecar's own
        if path.endswith(pasted):
            path = path[: -len(pasted)]
            break
    return f"{parts.scheme}://{parts.netloc}{path}"


def address_url(host: str, port: int, scheme: str = "http") -> str:
    """The URL of a socket address; a wildcard (all interfaces) is shown as loopback."""
    try:
        addr = ip_address(host.split("%")[0])
    except ValueError:
        return f"{scheme}://{host}:{port}"
    if addr.is_unspecified:
        addr = ip_address("::1" if addr.version == 6 else "127.0.0.1")
    shown = f"[{addr}]" if addr.version == 6 else str(addr)
    return f"{scheme}://{shown}:{port}"


def _last(header: str | None) -> str | None:
    """The entry the nearest proxy wrote, as for ``X-Forwarded-For``."""
    if not header:
        return None
    return header.split(",")[-1].strip() or None


class ModuleRoutes:
    """``/module/module.json`` and ``/module/verdict.zip``, their URLs on the one public URL."""

    def __init__(self, public_url: str | None, trusted_proxy: Callable[[web.Request], bool]) -> None:
        self.public_url = check_public_url(public_url) if public_url else None
        self.trusted_proxy = trusted_proxy
        self.files: asyncio.Future[bytes] | None = None
        """The module's files compressed, once (:func:`files_zip`), whatever the public URLs."""
        self.zips: OrderedDict[str, bytes] = OrderedDict()

    def attach(self, app: web.Application) -> None:
        app.router.add_get(MANIFEST_PATH, self.manifest)
        app.router.add_get(ZIP_PATH, self.zip)

    def base_url(self, request: web.Request) -> str:
        """The configured public URL; else the address this socket was reached at, with the scheme and
        host a trusted proxy forwards. Never the request's ``Host`` header."""
        if self.public_url is not None:
            return self.public_url
        local = request.transport.get_extra_info("sockname") if request.transport else None
        base = address_url(str(local[0]), int(local[1])) if local else "http://127.0.0.1"
        if not self.trusted_proxy(request):
            return base
        proto = _last(request.headers.get("X-Forwarded-Proto"))
        host = _last(request.headers.get("X-Forwarded-Host"))
        scheme, _, netloc = base.partition("://")
        if proto in ("http", "https"):
            scheme = proto
        if host is not None and _is_host(host):
            netloc = host
        return f"{scheme}://{netloc}"

    async def manifest(self, request: web.Request) -> web.Response:
        try:
            data = manifest(self.base_url(request))
        except ModuleMissing:
            raise web.HTTPNotFound(text=NOT_BUNDLED) from None
        return web.json_response(data, headers={"Access-Control-Allow-Origin": "*"})

    async def zip(self, request: web.Request) -> web.Response:
        base = self.base_url(request)
        data = self.zips.get(base)
        if data is None:
            if self.files is None:
                # Read and compressed off the event loop, once: the module's files do not change while serving.
                self.files = asyncio.get_running_loop().run_in_executor(None, files_zip)
            files = self.files
            try:
                archive = await asyncio.shield(files)
            except ModuleMissing:
                if self.files is files:
                    self.files = None
                raise web.HTTPNotFound(text=NOT_BUNDLED) from None
            except BundleError as exc:  # the module's files as edited do not bundle: said, and tried again next time
                if self.files is files:
                    self.files = None
                raise web.HTTPInternalServerError(text=str(exc)) from None
            # Per public URL only module.json is written (a few kB): cheap enough on the loop, and bounded.
            data = self.zips[base] = with_manifest(archive, base)
            while len(self.zips) > ZIP_CACHE:
                self.zips.popitem(last=False)
        else:
            self.zips.move_to_end(base)
        return web.Response(
            body=data,
            content_type="application/zip",
            headers={"Content-Disposition": 'attachment; filename="verdict.zip"', "Access-Control-Allow-Origin": "*"},
        )
