"""`verdict` run in this process as a shell would run it: its exit code, what it printed, what it said on stderr.

A child process costs a Python start and the imports of the whole sidecar (about half a second on a loaded
machine) for no more than this shows; the tests whose point is the process (serving, signals, exit on a
busy port, the module run as a program) start one instead (``serving.Process``, ``subprocess``).
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from sidecar.cli import main


@dataclass(frozen=True)
class Ran:
    returncode: int
    stdout: str
    stderr: str


def verdict(
    *args: str, env: Mapping[str, str] | None = None, unset: Iterable[str] = (), cwd: Path | None = None
) -> Ran:
    """``verdict ARGS`` with ``env`` added to the environment, the variables in ``unset`` removed, in ``cwd``."""
    out, err = io.StringIO(), io.StringIO()
    saved = dict(os.environ)
    try:
        os.environ.update(env or {})
        for name in unset:
            os.environ.pop(name, None)
        with contextlib.chdir(cwd or Path.cwd()), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse's --help and its usage errors exit, as the process would
                code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return Ran(code, out.getvalue(), err.getvalue())
