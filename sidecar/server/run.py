"""Running the sidecar: logging, the default table, signals, a clean shutdown."""

from __future__ import annotations

import asyncio
import dataclasses
import errno
import logging
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import structlog
from aiohttp import web

from sidecar import __version__, config
from sidecar.state.keys import print_keys
from sidecar.state.ledger import Ledger, LedgerUnavailable

from . import module as vtt_module
from .app import Settings, create_app, ledger_for

KEYS_FILE = config.KEYS_FILE


class LossyStream:
    """The log's stream, whose writes never fail: a log on a full disk (or a closed pipe) loses its lines,
    and the request that logged still gets its reply. The lines lost are counted."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.lost = 0

    def write(self, text: str) -> int:
        try:
            written: int = self.stream.write(text)
            return written
        except (OSError, ValueError):  # ENOSPC, EPIPE, EIO; ValueError: the stream was closed
            self.lost += 1
            return 0

    def flush(self) -> None:
        try:
            self.stream.flush()
        except (OSError, ValueError):
            pass

    def isatty(self) -> bool:
        try:
            return bool(self.stream.isatty())
        except (OSError, ValueError):
            return False


def configure_logging(fmt: str | None) -> None:
    fmt = fmt or ("console" if sys.stderr.isatty() else "json")
    stream = LossyStream(sys.stderr)
    renderer = structlog.dev.ConsoleRenderer() if fmt == "console" else structlog.processors.JSONRenderer()
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.INFO),
        logger_factory=structlog.PrintLoggerFactory(file=stream),  # type: ignore[arg-type]
    )
    logging.basicConfig(level=logging.WARNING, stream=stream)
    logging.getLogger("asyncio").addFilter(OncePerInterval())


class OncePerInterval(logging.Filter):
    """Out of file descriptors, asyncio's accept loop logs every failed accept: keep one a interval."""

    MARKERS = ("out of system resource", "Too many open files")

    def __init__(self, interval: float = config.WARN_INTERVAL) -> None:
        super().__init__()
        self.interval = interval
        self.last = -1e9
        self.left_out = 0

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if not any(mark in text for mark in self.MARKERS):
            return True
        now = time.monotonic()
        if now - self.last < self.interval:
            self.left_out += 1
            return False
        if self.left_out:
            record.msg = f"{text} ({self.left_out} more like this left out)"
            record.args = ()
        record.exc_info = None  # one line, not a traceback per attempt
        self.last, self.left_out = now, 0
        return True


OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
"""What a failed accept says when the process (or the system) has no file descriptor or buffer to give."""


class OutOfFilesOnce:
    """The listening socket as asyncio's accept loop reads it in one turn: after the first accept that finds
    no file descriptor, nothing more to accept this turn.

    Out of file descriptors, asyncio's accept loop logs, stops reading the listener and schedules a retry a
    second later, then goes on with the next accept of the same turn: up to the backlog (128) failed
    accepts, each scheduling its own retry, and every retry as many again. A sidecar held at its file limit
    by a flood ran thousands of retries a second within seconds, and on SIGTERM each retry still pending
    failed on the closed listener and logged a traceback: megabytes of log and seconds past the shutdown
    timeout. Here the first failed accept of a turn is asyncio's to handle (one retry); the others are
    not tried."""

    __slots__ = ("sock", "out")

    def __init__(self, sock: Any) -> None:
        self.sock = sock
        self.out = False

    def accept(self) -> Any:
        if self.out:
            raise BlockingIOError  # what the accept loop takes for "no connection waiting": it ends the turn
        try:
            return self.sock.accept()
        except OSError as exc:
            if exc.errno in OUT_OF_RESOURCES:
                self.out = True
            raise

    def fileno(self) -> int:
        fd: int = self.sock.fileno()
        return fd

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sock, name)


class ServingLoop(asyncio.SelectorEventLoop):
    """The event loop ``verdict serve`` runs on: asyncio's, with one retry at a time when out of file
    descriptors (:class:`OutOfFilesOnce`), and none once the listener is closed (the server stopped)."""

    def _accept_connection(self, protocol_factory: Any, sock: Any, *args: Any, **kwargs: Any) -> None:
        super()._accept_connection(protocol_factory, OutOfFilesOnce(sock), *args, **kwargs)  # type: ignore[misc]

    def _start_serving(self, protocol_factory: Any, sock: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(sock, OutOfFilesOnce):
            sock = sock.sock
        if sock.fileno() < 0:
            return  # a retry after the listener was closed: there is nothing to accept on any more
        super()._start_serving(protocol_factory, sock, *args, **kwargs)  # type: ignore[misc]


UVLOOP, ASYNCIO = config.LOOPS


def default_loop(platform: str = sys.platform) -> str:
    """The loop ``verdict serve`` runs on when ``--loop`` names none: uvloop wherever the package depends on
    it (pyproject.toml's marker ``sys_platform != "win32"``), asyncio on Windows."""
    return ASYNCIO if platform == "win32" else UVLOOP


def uvloop_installed() -> bool:
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return False
    return True


class LoopUnavailable(Exception):
    """The loop asked for (``--loop``, ``$VERDICT_LOOP``) cannot be run here; the message says why."""


def loop_to_run(asked: str | None, platform: str = sys.platform, have_uvloop: bool | None = None) -> str:
    """The loop to serve on: the one ``asked`` for, else :func:`default_loop`; asyncio when that default is
    uvloop and uvloop is not installed (a package installed without its dependencies)."""
    if asked is not None and asked not in config.LOOPS:
        raise LoopUnavailable(f"--loop: {asked!r} is not a loop ({' or '.join(config.LOOPS)})")
    have = uvloop_installed() if have_uvloop is None else have_uvloop
    if asked == UVLOOP and not have:
        raise LoopUnavailable("--loop uvloop: uvloop is not installed (pip install uvloop), or use --loop asyncio")
    if asked is None:
        asked = default_loop(platform)
        if asked == UVLOOP and not have:
            return ASYNCIO
    return asked


def new_loop(name: str) -> asyncio.AbstractEventLoop | None:
    """A new event loop of the kind :func:`loop_to_run` named; ``None`` (asyncio's default, the proactor) for
    asyncio on Windows, whose accepts differ.

    On uvloop, libuv accepts: out of file descriptors it closes a spare descriptor, accepts the waiting
    connections and closes them at once, and goes on; nothing is retried and nothing is logged per
    accept, so :class:`ServingLoop`'s care has nothing to do there. Those connections hear no 503: asyncio's
    loop leaves them queued until a descriptor is free."""
    if name == UVLOOP:
        import uvloop

        made: asyncio.AbstractEventLoop = uvloop.new_event_loop()
        return made
    return None if sys.platform == "win32" else ServingLoop()


NO_FILE_LIMIT = 1 << 30
"""What :func:`file_limit` says where the system sets no limit of open files to read."""


def file_limit() -> int:
    """Raise the soft limit of open files to the hard one; return it."""
    try:
        import resource
    except ImportError:  # Windows: no such limit to raise; the connection cap stands as configured
        return NO_FILE_LIMIT
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = config.FILE_LIMIT_WANTED if hard == resource.RLIM_INFINITY else hard
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


def connection_cap(files: int, wanted: int) -> int:
    """Connections the file limit leaves room for: the ledger, the listener and a margin keep the rest."""
    return max(4, min(wanted, files * 3 // 4 - 16))


def manifest_url(host: str, port: int, public_url: str | None) -> str:
    """What a GM pastes into Foundry's "Install Module" box."""
    return (public_url or vtt_module.address_url(host, port)).rstrip("/") + vtt_module.MANIFEST_PATH


class StartRefused(Exception):
    """The sidecar will not start over this data folder and ledger; the message says why and what to do."""


def ensure_default_table(ledger: Ledger, data: Path) -> None:
    """On first start create a table and print its keys once; later, say where they are.

    Whether a first table is made is the ledger's to say (:meth:`~sidecar.state.ledger.Ledger.first_table`:
    an embedded ledger makes one; one that several sidecars start against at once does not). A keys file
    is never overwritten, and a data folder whose keys file names a table the ledger does not hold (the
    ledger file deleted or replaced) is refused rather than given a new default table."""
    keys_path = data / KEYS_FILE
    tables = ledger.tables()
    held = keys_table(keys_path)
    if held is not None and all(t.id != held for t in tables):
        raise StartRefused(
            f"{keys_path} holds the keys of table {held}, which the ledger does not hold: the ledger was deleted or "
            "replaced since. Restore the ledger file (or point --ledger at the one that holds it); to start afresh "
            "with a new default table instead, move the keys file away first."
        )
    if tables:
        ids = ", ".join(f"{t.id} ({t.name})" for t in tables)
        where = f"keys of the first table in {keys_path}" if held is not None else "keys: verdict table rotate-keys ID"
        print(f"tables: {ids}; {where}", flush=True)
        return
    if keys_path.exists():
        raise StartRefused(f"{keys_path} exists but names no table; move it away to start with a new default table")
    keys = ledger.first_table("default")
    if keys is None:
        print("no tables yet: verdict table --ledger URL create NAME", flush=True)
        return
    # O_EXCL: a keys file that appeared meanwhile is never overwritten
    fd = os.open(keys_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(f"table {keys.table}\ngm {keys.gm}\nplayer {keys.player}\nobserver {keys.observer}\n")
    print_keys("default", keys, file=sys.stdout)
    print(f"(also saved to {keys_path})", flush=True)


def keys_table(keys_path: Path) -> str | None:
    """The table a keys file names, or None when there is no keys file (or it names none)."""
    try:
        text = keys_path.read_text()
    except FileNotFoundError:
        return None
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == "table" and value.strip():
            return value.strip()
    return None


def said_listening(line: str, loop_name: str) -> None:
    """Once the socket is bound: the start line on stdout, and the same in the log, with the loop."""
    print(line, flush=True)
    log.info("listening", loop=loop_name, line=line)


log = structlog.get_logger("verdict.server")


def serve(settings: Settings, ledger: Ledger | None = None) -> int:
    """Serve until SIGINT or SIGTERM with ``settings`` over ``ledger`` (else SQLite in the data directory);
    the exit status: 0, or 2 when the sidecar cannot start (said on stderr)."""
    configure_logging(settings.log_format)
    try:
        loop_name = loop_to_run(settings.loop)
    except LoopUnavailable as exc:
        if ledger is not None:
            ledger.close()
        print(f"verdict: {exc}", file=sys.stderr)
        return 2
    data = settings.data
    data.mkdir(parents=True, exist_ok=True)
    if ledger is None:
        try:
            ledger = ledger_for(settings)
        except (ValueError, ImportError, LedgerUnavailable) as exc:
            print(f"verdict: ledger: {exc}", file=sys.stderr)
            return 2
    try:
        ensure_default_table(ledger, data)
    except StartRefused as exc:
        ledger.close()
        print(f"verdict: {exc}", file=sys.stderr)
        return 2
    settings = dataclasses.replace(
        settings, loop=loop_name, max_connections=connection_cap(file_limit(), settings.max_connections)
    )
    app = create_app(settings, ledger)
    host, port = settings.host, settings.port
    listening = (
        f"verdict {__version__} listening on ws://{host}:{port}/ws on {loop_name} "
        f"(Foundry manifest: {manifest_url(host, port, settings.public_url)})"
    )
    # run_app handles SIGINT and SIGTERM: on_shutdown closes sockets with 1001, on_cleanup closes the ledger.
    try:
        # `print` is called once the socket is bound: only then is the sidecar listening.
        web.run_app(
            app,
            host=host,
            port=port,
            print=lambda _: said_listening(listening, loop_name),
            shutdown_timeout=settings.shutdown_timeout,
            # A TCP connection that has not finished an HTTP request (the websocket upgrade) by the hello
            # timeout is closed, as a socket that has not said hello is: a silent or trickling peer
            # cannot hold a file descriptor for aiohttp's default 75 s.
            keepalive_timeout=settings.hello_timeout,
            access_log=None,
            # Signals reach the main thread only: a sidecar served from another thread (embedded in a
            # program, or a test) is stopped by that program.
            handle_signals=threading.current_thread() is threading.main_thread(),
            loop=new_loop(loop_name),
        )
    except OSError as exc:
        reason = (
            "is already in use (another sidecar?)"
            if exc.errno == errno.EADDRINUSE
            else f"cannot be used: {exc.strerror}"
        )
        print(f"verdict: {host}:{port} {reason}; choose another with --port", file=sys.stderr)
        return 2
    return 0
