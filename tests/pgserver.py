"""A real PostgreSQL server for the tests and the benchmarks: Debian's binaries, a temporary cluster.

``initdb`` refuses to run as root, so as root the cluster belongs to the ``postgres`` user and both
``initdb`` and ``pg_ctl`` run as that user. The server listens on 127.0.0.1 on a free port, with its
socket in the cluster's directory, and trusts local connections (nothing else can reach it).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

MISSING = (
    "no PostgreSQL server binaries (initdb, pg_ctl): install Debian's `postgresql` package "
    "(.ci/run does) or put them on PATH"
)


def bin_dir() -> Path | None:
    """Where ``initdb`` and ``pg_ctl`` are: ``$PG_BIN``, the newest Debian version, or PATH."""
    candidates = [os.environ.get("PG_BIN", "")]
    candidates += sorted(
        glob.glob("/usr/lib/postgresql/*/bin"),
        key=lambda p: int(Path(p).parent.name) if Path(p).parent.name.isdigit() else 0,
        reverse=True,
    )
    which = shutil.which("initdb")
    if which:
        candidates.append(str(Path(which).parent))
    for c in candidates:
        if c and (Path(c) / "initdb").exists() and (Path(c) / "pg_ctl").exists():
            return Path(c)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class PgServer:
    def __init__(self, durable: bool = False) -> None:
        found = bin_dir()
        if found is None:
            raise FileNotFoundError(MISSING)
        self.bin = found
        self.durable = durable
        self.port = _free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="verdict-pg-"))
        self.data = self.dir / "data"
        self._as: list[str] = []
        if os.geteuid() == 0:
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError:
                raise FileNotFoundError("running as root without a `postgres` user to run PostgreSQL as") from None
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        r = subprocess.run([*self._as, *args], capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError(f"{Path(args[0]).name} failed: {r.stderr.strip() or r.stdout.strip()}")

    def start(self) -> PgServer:
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-A",
            "trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--no-sync",
            "--no-instructions",
        )
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c max_connections=200"
        if not self.durable:  # the tests kill sidecars, never the database: skip its fsyncs
            opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            opts,
            "-l",
            str(self.dir / "log"),
            "-w",
            "-t",
            "60",
            "start",
        )
        return self

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}"

    def create_database(self) -> str:
        """A fresh, empty database; its URL."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def processes(self) -> list[int]:
        """The postmaster's pid and its children's (every backend, the checkpointer, the WAL writer...)."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        pids = [postmaster]
        for stat in glob.glob("/proc/[0-9]*/stat"):
            try:
                fields = Path(stat).read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == postmaster:
                pids.append(int(Path(stat).parent.name))
        return pids

    def freeze(self) -> None:
        """Stop every process of the server (SIGSTOP): connections stay open, nothing answers."""
        for pid in self.processes():
            os.kill(pid, signal.SIGSTOP)

    def thaw(self) -> None:
        for pid in self.processes():
            os.kill(pid, signal.SIGCONT)

    def halt(self) -> None:
        """Stop the server as a crash would (its data kept, on the same port for :meth:`resume`)."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def resume(self) -> None:
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c max_connections=200"
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", opts, "-l", str(self.dir / "log"), "-w", "start"
        )

    def stop(self) -> None:
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        except Exception:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)
