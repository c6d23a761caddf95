"""Ctrl-C and SIGTERM: a request to stop, never an exception thrown into whatever runs.

A terminal's Ctrl-C goes to the whole process group: the demo, headless Chromium and
Playwright's driver, or Qt WebEngine's helpers. Raising ``KeyboardInterrupt`` in the
middle of a Playwright call left its connection half-read ("Future exception was never
retrieved" and a traceback), and pywebview's own SIGINT handler quit the Qt loop with
the page still alive. So :class:`Stopper` turns both signals into a flag plus wake-up
callbacks (close the window, leave the pump loop); each mode stops at its next safe
point and :func:`gcbridge.demo.runner.run_demo` prints one line and returns 130 or 143.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from gcbridge.signals import STOP_SIGNALS, take_noted_stop

__all__ = ["DemoStopped", "Stopper"]


class DemoStopped(Exception):  # noqa: N818 - a stop, not an error
    """Raised at a safe point once a stop was requested; never shown to the user."""


class Stopper:
    """The stop request: which signal came, and who to wake."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self._event = threading.Event()
        self._wakes: list[Callable[[], None]] = []
        self._lock = threading.Lock()

    @property
    def stopped(self) -> bool:
        """Whether a stop was requested."""
        return self._event.is_set()

    @property
    def exit_code(self) -> int:
        """128 + the signal number: 130 for SIGINT, 143 for SIGTERM."""
        return 128 + (self.signum or signal.SIGINT)

    @property
    def name(self) -> str:
        """The signal's name (``SIGINT``, ``SIGTERM``)."""
        return signal.Signals(self.signum or signal.SIGINT).name

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for a stop request; whether one came."""
        return self._event.wait(timeout)

    def check(self) -> None:
        """Raise :class:`DemoStopped` if a stop was requested."""
        if self.stopped:
            raise DemoStopped(self.name)

    def on_stop(self, wake: Callable[[], None]) -> None:
        """Call ``wake`` when a stop is requested (at once if one already was)."""
        with self._lock:
            if not self.stopped:
                self._wakes.append(wake)
                return
        wake()

    def request(self, signum: int) -> None:
        """Request a stop as if ``signum`` had arrived (the first signal wins)."""
        with self._lock:
            if self.stopped:
                return
            self.signum = signum
            self._event.set()
            wakes, self._wakes = self._wakes, []
        for wake in wakes:
            wake()

    def handle(self, signum: int, frame: FrameType | None = None) -> None:
        """The signal handler."""
        self.request(signum)

    def claim(self) -> None:
        """(Re)install :meth:`handle` for SIGINT and SIGTERM; main thread only."""
        for sig in STOP_SIGNALS:
            signal.signal(sig, self.handle)

    @contextmanager
    def installed(self) -> Iterator[Stopper]:
        """Handle the signals for the block, then put the previous handlers back."""
        if threading.current_thread() is not threading.main_thread():
            yield self  # signals can only be handled on the main thread; not ours to take
            return
        previous: dict[int, Any] = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
        self.claim()
        earlier = take_noted_stop()  # one that landed where it could not be raised
        if earlier is not None:
            self.request(earlier)
        try:
            yield self
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
