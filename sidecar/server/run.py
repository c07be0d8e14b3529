"""Running the sidecar: logging, the default table, signals, a clean shutdown."""

from __future__ import annotations

import errno
import logging
import resource
import sys
import time
from pathlib import Path
from typing import Any

import structlog
from aiohttp import web

from sidecar import __version__, config
from sidecar.state.ledger import Ledger, SqliteLedger
from sidecar.tables import print_keys

from .app import Settings, create_app

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


def file_limit() -> int:
    """Raise the soft limit of open files to the hard one; return it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = 65536 if hard == resource.RLIM_INFINITY else hard
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


def connection_cap(files: int, wanted: int) -> int:
    """Connections the file limit leaves room for: the ledger, the listener and a margin keep the rest."""
    return max(4, min(wanted, files * 3 // 4 - 16))


def ensure_default_table(ledger: Ledger, data: Path) -> None:
    """On first start create a table and print its keys once; later, say where they are.

    A shared ledger (PostgreSQL) gets no default table: several sidecars start at once, and the host
    creates each group's table with ``verdict table create``."""
    keys_path = data / KEYS_FILE
    tables = ledger.tables()
    if not tables and getattr(ledger, "shared", False):
        print("no tables yet: verdict table --ledger URL create NAME", flush=True)
        return
    if not tables:
        keys = ledger.create_table("default")
        keys_path.write_text(f"table {keys.table}\ngm {keys.gm}\nplayer {keys.player}\nobserver {keys.observer}\n")
        keys_path.chmod(0o600)
        print_keys("default", keys, file=sys.stdout)
        print(f"(also saved to {keys_path})", flush=True)
    else:
        ids = ", ".join(f"{t.id} ({t.name})" for t in tables)
        where = (
            f"keys of the first table in {keys_path}" if keys_path.exists() else "keys: verdict table rotate-keys ID"
        )
        print(f"tables: {ids}; {where}", flush=True)


def serve(
    host: str,
    port: int,
    data: Path,
    log_format: str | None,
    allow_origins: tuple[str, ...] | None,
    metrics_token: str | None = None,
    limits: dict[str, Any] | None = None,
    ledger: Ledger | None = None,
) -> int:
    configure_logging(log_format)
    data.mkdir(parents=True, exist_ok=True)
    ledger = ledger or SqliteLedger(config.data_file(data))
    ensure_default_table(ledger, data)
    settings = Settings(
        host=host,
        port=port,
        data=data,
        allow_origins=allow_origins,
        metrics_token=metrics_token,
        **{k: v for k, v in (limits or {}).items() if v is not None},
    )
    settings.max_connections = connection_cap(file_limit(), settings.max_connections)
    app = create_app(settings, ledger)
    listening = f"verdict {__version__} listening on ws://{host}:{port}/ws (Foundry manifest: http://{host}:{port}/module/module.json)"
    # run_app handles SIGINT and SIGTERM: on_shutdown closes sockets with 1001, on_cleanup closes the ledger.
    try:
        # `print` is called once the socket is bound: only then is the sidecar listening.
        web.run_app(
            app,
            host=host,
            port=port,
            print=lambda _: print(listening, flush=True),
            shutdown_timeout=config.SHUTDOWN_TIMEOUT,
            # A TCP connection that has not finished an HTTP request (the websocket upgrade) by the hello
            # timeout is closed, as a socket that has not said hello is: a silent or trickling peer
            # cannot hold a file descriptor for aiohttp's default 75 s.
            keepalive_timeout=settings.hello_timeout,
            access_log=None,
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
