"""What the control routes do (docs/reference/emulator-control.md#routes), one at a time.

A reset or a restore stops the dispatcher around the change, so it never runs on half a state.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from gcbridge.emulator.control import state_store
from gcbridge.emulator.control.clock import ControlledClock
from gcbridge.emulator.db import Database, latest_time
from gcbridge.emulator.errors import ApiError
from gcbridge.emulator.settings import Settings
from gcbridge.emulator.webhooks.dispatcher import Dispatcher

__all__ = ["Control", "MAX_ADVANCE", "Pending"]

MAX_ADVANCE = 30 * 24 * 3600.0
"""The longest advance, in seconds of emulator time (also the limit of ``until idle``)."""

FIRST = asyncio.FIRST_COMPLETED
_MAX_STEPS = 1_000_000  # a guard, far above any schedule's attempts

T = TypeVar("T")


@dataclass(frozen=True)
class Pending:
    """The dispatcher's queue as health shows it."""

    count: int
    next_due_at: float | None


@dataclass(eq=False)
class Control:
    """The emulator's test controls over one database, clock and dispatcher."""

    settings: Settings
    db: Database
    clock: Any
    dispatcher: Dispatcher
    admin_token: str = field(repr=False)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock, init=False, repr=False)
    _advancing: asyncio.Future[int] | None = field(default=None, init=False, repr=False)

    @property
    def mode(self) -> str:
        """``system`` or ``manual``."""
        return str(getattr(self.clock, "mode", "system"))

    def pending(self) -> Pending:
        """How many calls wait for an attempt, and when the earliest is due."""
        with self.db.read() as conn:
            row = conn.execute(
                "SELECT COUNT(*), MIN(next_attempt_at) FROM calls WHERE status = 'pending'"
            ).fetchone()
        return Pending(int(row[0]), None if row[1] is None else float(row[1]))

    def _attempt_count(self) -> int:
        with self.db.read() as conn:
            return int(conn.execute("SELECT COUNT(*) FROM attempts").fetchone()[0])

    # -- clock ---------------------------------------------------------------

    async def set_clock(self, *, frozen: bool) -> None:
        """Stop the clock where it stands (``frozen``), or let it run from there."""
        async with self._lock:
            if frozen:
                self._controlled().freeze()
            else:
                self._controlled().resume()
            self.dispatcher.wake()

    async def advance(
        self,
        seconds: float | None = None,
        *,
        until_idle: bool = False,
        client_gone: Callable[[], Awaitable[None]] | None = None,
    ) -> int:
        """Move the clock through every attempt due in the window; returns attempts made.

        It stops where it stands (409 ``advance_interrupted``) when ``client_gone()``
        returns (whoever asked for it disconnected) or a reset or a restore asks for
        the control (:meth:`_with_dispatcher_stopped`): an abandoned advance never holds
        the control while attempts go on to a receiver that hangs.
        """
        async with self._lock:
            clock = self._controlled()
            run = asyncio.ensure_future(self._advance(clock, seconds, until_idle))
            watch = None if client_gone is None else asyncio.ensure_future(client_gone())
            self._advancing = run
            try:
                await asyncio.wait({run} if watch is None else {run, watch}, return_when=FIRST)
            finally:
                self._advancing = None
                for task in (run, watch):
                    if task is not None and not task.done():
                        task.cancel()
                        with contextlib.suppress(asyncio.CancelledError):
                            await task
            if run.cancelled():
                raise ApiError(
                    409,
                    "advance_interrupted",
                    "the advance was stopped (its client disconnected, or a reset or a"
                    " restore came); the clock stays where it had moved",
                )
            return run.result()

    async def _advance(
        self, clock: ControlledClock, seconds: float | None, until_idle: bool
    ) -> int:
        before = self._attempt_count()
        span = MAX_ADVANCE if until_idle or seconds is None else seconds
        limit = clock.now() + span
        if not self.dispatcher.running:
            clock.move_to(limit)
            return 0
        await self._settle()  # what is due now comes first
        for _ in range(_MAX_STEPS):
            due = self.pending().next_due_at
            if due is None or due > limit:
                break
            clock.move_to(due)
            await self._settle()
        if not until_idle or self.pending().count:
            clock.move_to(limit)
            await self._settle()
        return self._attempt_count() - before

    async def _settle(self) -> None:
        try:
            await self.dispatcher.settle()
        except RuntimeError as exc:
            raise ApiError(503, "dispatcher_stopped", f"{exc}; restart the emulator") from None

    def catch_up_clock(self) -> None:
        """Move the clock up to the latest time stored, if it is behind: time never goes back.

        At start-up (a manual clock starts at the wall time, which may be behind an
        advance made before a restart) and after a restore. Sessions issued, calls
        made and attempts journaled at the latest time stay in the clock's past.
        """
        if isinstance(self.clock, ControlledClock):
            with self.db.read() as conn:
                latest = latest_time(conn)
            if latest is not None:
                self.clock.move_to(latest)

    def _controlled(self) -> ControlledClock:
        if not isinstance(self.clock, ControlledClock):
            raise ApiError(
                409, "clock_not_controllable", "this emulator was built with its own clock"
            )
        return self.clock

    # -- state ---------------------------------------------------------------

    async def reset(self) -> None:
        """Back to the sites only; the clock keeps its mode and time."""
        await self._with_dispatcher_stopped(lambda: state_store.reset(self.db))

    async def save(self, name: str) -> None:
        """Save the whole state as snapshot ``name``."""
        state_store.check_name(name)
        async with self._lock:
            await asyncio.to_thread(state_store.save, self.db, self.settings.data_dir, name)

    async def restore(self, name: str) -> None:
        """Bring snapshot ``name`` back (pending deliveries included); the clock never goes back."""
        state_store.check_name(name)

        def change() -> None:
            state_store.restore(self.db, self.settings.data_dir, name)
            self.catch_up_clock()  # a snapshot made ahead of this clock moves it forward

        await self._with_dispatcher_stopped(change)

    def snapshots(self) -> list[str]:
        """Names of the saved snapshots."""
        return state_store.names(self.settings.data_dir)

    async def _with_dispatcher_stopped(self, change: Callable[[], T]) -> T:
        if self._advancing is not None:  # documented: a reset or a restore stops an advance
            self._advancing.cancel()
        async with self._lock:
            was_running = self.dispatcher.running
            if was_running:
                await self.dispatcher.stop()
            try:
                return await asyncio.to_thread(change)
            finally:
                if was_running:
                    await self.dispatcher.start()
                    self.dispatcher.wake()
