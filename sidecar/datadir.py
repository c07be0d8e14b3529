"""The data folder: where it is, who may read it, and whether a sidecar serves it.

The folder holds the SQLite ledger (each table's key hashes and user-key secret, every hidden state) and the
first table's keys in clear, so it is its owner's alone: the folder 0700, its files 0600. The commands that
write into it run with a umask of 0o077, which SQLite's files (the ledger, its ``-wal`` and ``-shm``) follow
as they are created; a folder made by an older version is tightened when it is next used.

Where it is: ``--data`` or ``$VERDICT_DATA``; else a ``./var`` that already holds a ledger (where earlier builds
kept it, relative to the working directory), with a note; else the platform's per-user data folder
(``platformdirs``: ``~/.local/share/verdict`` on Linux, ``~/Library/Application Support/verdict`` on macOS,
``%LOCALAPPDATA%\\verdict`` on Windows), the same wherever the sidecar is started from.

A serving sidecar holds a shared lock on ``verdict.lock`` in the folder for as long as it runs (several may
serve one folder with a PostgreSQL ledger); ``verdict restore`` takes it exclusively, so it refuses while any
sidecar serves the folder. The lock is the operating system's: a sidecar killed outright leaves none behind.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from sidecar import config

APP_NAME = "verdict"
LEGACY_DATA = Path(config.DATA_DIR)
"""Where earlier builds kept the data, relative to the working directory."""
LOCK_FILE = "verdict.lock"
LOCK_TRIES, LOCK_RETRY = 50, 0.01
"""How often, and how many seconds apart, a starting sidecar tries for its lock before it gives up."""
PRIVATE_UMASK = 0o077
FOLDER_MODE = 0o700
FILE_MODE = 0o600
OURS = (config.DATA_FILE, f"{config.DATA_FILE}-wal", f"{config.DATA_FILE}-shm", config.KEYS_FILE, LOCK_FILE)
"""The files of a data folder that are Verdict's, by name."""


def platform_data_dir() -> Path:
    """The platform's per-user data folder for Verdict."""
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


@dataclass(frozen=True)
class DataFolder:
    path: Path
    note: str | None = None
    """A line to show once: why this folder was chosen when it is not the one a user would expect."""


def _holds_ledger(folder: Path) -> bool:
    return (folder / config.DATA_FILE).exists() or (folder / config.KEYS_FILE).exists()


def resolve(given: Path | None) -> DataFolder:
    """The data folder: ``given`` (``--data`` or ``$VERDICT_DATA``), else an existing ``./var``, else the
    platform's. A path is made absolute, so every message names the folder wherever it is read."""
    if given is not None:
        return DataFolder(given.expanduser().absolute())
    legacy = LEGACY_DATA.absolute()
    if _holds_ledger(legacy):
        return DataFolder(
            legacy,
            f"note: using the data folder {legacy} found here (the default is now {platform_data_dir()}; "
            "move the folder there, or pass --data, to use it from anywhere)",
        )
    return DataFolder(platform_data_dir())


@contextlib.contextmanager
def private_files() -> Iterator[None]:
    """Files created inside are their owner's alone (umask 0o077): SQLite's too, which it opens itself."""
    saved = os.umask(PRIVATE_UMASK)
    try:
        yield
    finally:
        os.umask(saved)


def secure(folder: Path) -> None:
    """Make ``folder`` (and its parents) if need be, owner-only; tighten Verdict's files in it to 0600.

    An existing folder is tightened only when it is a data folder already (it holds a ledger or keys) or
    empty: a ``--data`` pointed at a shared folder by mistake keeps its mode, and the files made in it are
    private all the same."""
    created = not folder.exists()
    folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    if created or _holds_ledger(folder) or not any(folder.iterdir()):
        _tighten(folder, FOLDER_MODE)
    for name in OURS:
        _tighten(folder / name, FILE_MODE)


def _tighten(path: Path, mode: int) -> None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return
    if stat.S_IMODE(st.st_mode) & ~mode and (not hasattr(os, "getuid") or st.st_uid == os.getuid()):
        with contextlib.suppress(OSError):  # a read-only mount: nothing to tighten there
            path.chmod(mode)


# --- the keys file --------------------------------------------------------------------------------------------


def keys_path(folder: Path) -> Path:
    return folder / config.KEYS_FILE


def keys_file_table(folder: Path) -> str | None:
    """The table the keys file names, or None (no keys file, or it names none)."""
    from sidecar.server.run import keys_table  # the file's writer reads it too: one reader of its format

    return keys_table(keys_path(folder))


def keys_file_text(table: str, gm: str, player: str, observer: str) -> str:
    return f"table {table}\ngm {gm}\nplayer {player}\nobserver {observer}\n"


def rewrite_keys_file(folder: Path, text: str) -> Path:
    """Replace the keys file whole (written beside it at 0600, then renamed over it): a reader sees the old
    keys or the new, never half of either."""
    path = keys_path(folder)
    partial = path.with_name(path.name + ".partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with os.fdopen(fd, "w") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(partial, path)
    return path


# --- who serves the folder ------------------------------------------------------------------------------------


class Served(Exception):
    """A sidecar serves the data folder; the message names it."""


def _lock(handle: IO[str], exclusive: bool) -> bool:
    """Take the lock on ``handle`` without waiting; whether it was taken. Where the platform has no
    ``flock`` (Windows), every lock is taken."""
    try:
        import fcntl
    except ImportError:
        return True
    try:
        fcntl.flock(handle.fileno(), (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def hold_serving_lock(folder: Path, address: str) -> IO[str]:
    """The shared lock a serving sidecar holds on ``folder`` until it exits (keep the handle open); the file
    names its process and ``address`` (its own URL, for ``verdict health``)."""
    handle = open(folder / LOCK_FILE, "a+")  # held open for the life of the process: not a `with`
    # `verdict health` holds the lock exclusively for an instant to see whether anyone serves: wait that out
    for _ in range(LOCK_TRIES):
        if _lock(handle, exclusive=False):
            break
        time.sleep(LOCK_RETRY)
    else:
        handle.close()
        raise Served(f"{folder} is being restored or a table deleted; start the sidecar once that ends")
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()} {address}\n")
    handle.flush()
    return handle


def serving_address(folder: Path) -> str | None:
    """The URL of the sidecar serving ``folder`` (the last one started, where several share it), or None
    when none serves it."""
    try:
        handle = open(folder / LOCK_FILE)
    except FileNotFoundError:
        return None
    with handle:
        if _lock(handle, exclusive=True):  # nobody holds it: nobody serves
            return None
        words = handle.read().split()
    return words[1] if len(words) > 1 else None


@contextlib.contextmanager
def nobody_serving(folder: Path) -> Iterator[None]:
    """Hold ``folder`` exclusively (no sidecar may start on it meanwhile), or :class:`Served` when one serves it."""
    folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    with open(folder / LOCK_FILE, "a+") as handle:
        if not _lock(handle, exclusive=True):
            handle.seek(0)
            pid = handle.read().split()[:1]
            who = f" (process {pid[0]})" if pid else ""
            raise Served(f"a sidecar serves {folder}{who}; stop it first")
        yield
