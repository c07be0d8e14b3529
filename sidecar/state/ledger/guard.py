"""The bound on every serving call of a ledger, and what a ledger does while its store is down."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import structlog

from sidecar import config

from .protocols import LedgerUnavailable

log = structlog.get_logger("verdict.ledger")

BOUND = config.LEDGER_BOUND
PROBE_EVERY = config.LEDGER_PROBE_EVERY

T = TypeVar("T")


def first_line(exc: BaseException) -> str:
    """An error's first line, for messages and logs."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class Guard:
    """Every serving call of a ledger goes through here: bounded in time, refused at once while the store
    is known to be down, and the store probed in the background until it answers again.

    A call that runs out of time marks the store down (a frozen database, a disk that no longer answers),
    and so does an error of ``down_on`` (the store cannot be reached at all): the calls after it would wait
    or fail as well, so they are refused at once instead, and one probe at a time asks the store whether it
    is back. Other errors (a full disk, a constraint) refuse only their own call."""

    def __init__(
        self,
        name: str,
        errors: tuple[type[BaseException], ...],
        probe: Callable[[], Coroutine[Any, Any, object]],
        down_on: tuple[type[BaseException], ...] = (),
    ) -> None:
        self.name = name
        self.errors = errors
        self.down_on = down_on
        self.probe = probe
        self.bound = BOUND
        self.down: str | None = None
        """Why the store is held to be down, while it is."""
        self.refused = 0
        """Calls refused (counted for tests and metrics)."""
        self.trips = 0
        """Times the store was found down (a call ran out of time)."""
        self._prober: asyncio.Task[None] | None = None

    async def run(self, call: Coroutine[Any, Any, T], what: str) -> T:
        if self.down is not None:
            call.close()
            self.refused += 1
            raise LedgerUnavailable(f"the {self.name} is unavailable ({self.down}); retry this request shortly")
        try:
            return await within(call, self.bound)
        except TimeoutError:
            self.trip(f"{what} took longer than {self.bound:g} s")
        except LedgerUnavailable:
            self.refused += 1
            raise
        except self.errors as exc:
            self.refused += 1
            log.warning("ledger_failed", ledger=self.name, what=what, error=first_line(exc))
            if isinstance(exc, self.down_on):
                self.trip(f"{what} failed: {first_line(exc)}")
            raise LedgerUnavailable(f"the {self.name} failed ({first_line(exc)}); retry this request shortly") from None
        self.refused += 1
        raise LedgerUnavailable(f"the {self.name} is unavailable ({self.down}); retry this request shortly")

    def refuse(self) -> LedgerUnavailable:
        """The refusal of a call made while the store is down (counted)."""
        self.refused += 1
        return LedgerUnavailable(f"the {self.name} is unavailable ({self.down}); retry this request shortly")

    def trip(self, why: str) -> None:
        """Hold the store down for ``why``, and probe it until it answers."""
        if self.down is None:
            self.trips += 1
            log.warning("ledger_down", ledger=self.name, reason=why)
        self.down = why
        if self._prober is None or self._prober.done():
            self._prober = asyncio.get_running_loop().create_task(self._probe())

    async def _probe(self) -> None:
        while self.down is not None:
            await asyncio.sleep(PROBE_EVERY)
            with contextlib.suppress(Exception):
                await within(self.probe(), self.bound)
                log.info("ledger_back", ledger=self.name, was=self.down)
                self.down = None

    def close(self) -> None:
        if self._prober is not None:
            self._prober.cancel()


async def within(call: Coroutine[Any, Any, T], bound: float) -> T:
    """The call's result if it comes within ``bound`` seconds, else TimeoutError at once.

    Unlike ``asyncio.wait_for`` this does not wait for the call to finish cancelling: a database driver
    may spend many seconds trying to cancel a query on a server that does not answer. The call is
    cancelled and left to end on its own."""
    task = asyncio.ensure_future(call)
    try:
        done, _ = await asyncio.wait((task,), timeout=bound)
    except asyncio.CancelledError:
        task.cancel()
        task.add_done_callback(_retrieved)
        raise
    if not done:
        task.cancel()
        task.add_done_callback(_retrieved)
        raise TimeoutError
    return task.result()


def _retrieved(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()  # an abandoned call's error is its own: nobody waits for it any more
