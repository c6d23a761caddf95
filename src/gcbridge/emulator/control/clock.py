"""The emulator's own clock: running with the wall clock, or frozen and moved by hand.

Every part of the emulator reads this one clock (due times, attempt headers, journal
times, ``Retry-After`` dates, ssoData age, session expiry), so moving it moves them all.
``system``: ``now() = wall() + offset`` (the offset grows with each advance); ``manual``:
a fixed value changed only by :meth:`ControlledClock.move_to`. It never goes back, not even
across a restart (:meth:`Control.catch_up_clock`). Network time-outs do not read it.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Literal

__all__ = ["ClockMode", "ControlledClock", "MODES"]

ClockMode = Literal["system", "manual"]
MODES: tuple[ClockMode, ...] = ("system", "manual")


class ControlledClock:
    """A clock that runs with the wall clock (``system``) or stands still (``manual``)."""

    def __init__(
        self, mode: ClockMode = "system", *, wall: Callable[[], float] = time.time
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"clock mode {mode!r}: system or manual")
        self._wall = wall
        self._lock = threading.Lock()
        self._offset = 0.0
        self._frozen: float | None = wall() if mode == "manual" else None

    @property
    def mode(self) -> ClockMode:
        """``manual`` while frozen, else ``system``."""
        return "manual" if self._frozen is not None else "system"

    def now(self) -> float:
        """Emulator time, Unix seconds."""
        with self._lock:
            return self._now()

    def _now(self) -> float:
        return self._frozen if self._frozen is not None else self._wall() + self._offset

    def freeze(self) -> float:
        """Stop the clock where it is (``manual``); returns the time it stands at."""
        with self._lock:
            if self._frozen is None:
                self._frozen = self._wall() + self._offset
            return self._frozen

    def resume(self) -> float:
        """Let the clock run again from where it stands (``system``, ahead of the wall if moved)."""
        with self._lock:
            if self._frozen is not None:
                self._offset = self._frozen - self._wall()
                self._frozen = None
            return self._now()

    def move_to(self, when: float) -> float:
        """Jump forward to ``when`` (a time already passed leaves the clock as it is)."""
        with self._lock:
            current = self._now()
            if when > current:
                if self._frozen is not None:
                    self._frozen = when
                else:
                    self._offset += when - current
            return self._now()

    async def sleep(self, seconds: float) -> None:
        """The dispatcher's wait: real seconds while running; while frozen, until cancelled.

        Emulator time runs at the wall's rate in ``system`` mode, so a real sleep
        of ``seconds`` reaches the due time; a move of the clock wakes the
        dispatcher, which cancels this wait and looks again.
        """
        if self._frozen is None:
            await asyncio.sleep(max(0.0, seconds))
            return
        await asyncio.Event().wait()
