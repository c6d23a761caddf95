"""Clocks as arguments.

Everything time-based in gc-bridge takes a :class:`Clock` so that tests can run
a six-hour retry schedule in milliseconds. ``SYSTEM_CLOCK`` is the thin real-time
wrapper; :class:`ManualClock` is the one tests move by hand.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Protocol

__all__ = ["Clock", "SystemClock", "ManualClock", "SYSTEM_CLOCK", "utc_iso", "Sleep"]

Sleep = Callable[[float], Awaitable[None]]
"""An async sleep: ``await sleep(seconds)``."""


class Clock(Protocol):
    """A source of the current time as float Unix seconds."""

    def now(self) -> float:
        """Current time, Unix seconds."""
        ...


class SystemClock:
    """The real wall clock."""

    def now(self) -> float:
        """Current time, Unix seconds."""
        return time.time()


SYSTEM_CLOCK = SystemClock()


class ManualClock:
    """A clock that only moves when told to; ``sleep`` advances it instantly."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = float(start)

    def now(self) -> float:
        """Current (manual) time, Unix seconds."""
        return self._now

    def advance(self, seconds: float) -> None:
        """Move the clock forward."""
        if seconds < 0:
            raise ValueError("a clock never goes back")
        self._now += seconds

    def set(self, when: float) -> None:
        """Jump to an absolute time."""
        self._now = float(when)

    async def sleep(self, seconds: float) -> None:
        """Advance instead of waiting, then yield to the loop."""
        self.advance(max(0.0, seconds))
        await asyncio.sleep(0)


def utc_iso(ts: float) -> str:
    """ISO 8601 UTC with milliseconds and a ``Z``, e.g. ``2026-11-22T06:35:53.123Z``."""
    dt = datetime.fromtimestamp(ts, tz=UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"
