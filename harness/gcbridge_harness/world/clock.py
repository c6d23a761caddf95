"""The harness's clock: real time plus what the scenario skipped (:class:`HarnessClock`).

The sample backend signs ssoData with it and the emulator checks ssoData against it,
so a scenario can send the app to the background for ten minutes without waiting:
``clock.advance(600)`` moves both at once. Each launch's fixture puts it back.
"""

from __future__ import annotations

import time

__all__ = ["HarnessClock"]


class HarnessClock:
    """``time.time()`` plus an offset that only a scenario moves (never backwards mid-test)."""

    def __init__(self) -> None:
        self._offset = 0.0

    def now(self) -> float:
        """Current time, Unix seconds, as the backend and the emulator see it."""
        return time.time() + self._offset

    @property
    def skipped(self) -> float:
        """Seconds skipped so far (what :meth:`advance` added)."""
        return self._offset

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass at once."""
        if seconds < 0:
            raise ValueError("a clock never goes back")
        self._offset += seconds

    def reset(self) -> None:
        """Back to real time (the end of a scenario)."""
        self._offset = 0.0
