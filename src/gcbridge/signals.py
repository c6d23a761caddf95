"""Stop signals: which they are, holding them back, and the line a stopped command prints.

SIGINT (Ctrl-C) and SIGTERM stop every long-running command, and so does SIGHUP (the
terminal or the session went away), taken as a SIGTERM. Each one ends with one
line, :func:`stop_line`, and the shell's status 128 + the signal number. Where an
object must not be half-made when a signal lands (an event loop, a coroutine, the
CLI's parser while it imports), :func:`signals_deferred` holds them back.

While a command runs (:func:`stops_raised`), a stop signal raises where it lands,
``KeyboardInterrupt`` or :class:`Terminated`, and is also noted. Python runs a signal's
handler wherever the main thread is, also inside a weak reference's callback or a
``__del__`` (an import frees its module lock through one), and an exception raised
there cannot go anywhere: Python prints "Exception ignored" and goes on, and the stop
was lost (``webhooks listen`` then served on, ``emulator exec`` ran its command to the
end). A stop that was noted is not lost: where a command is about to wait (a server,
a command it runs, a run of scenarios) it calls :func:`raise_if_stopped` first.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

__all__ = [
    "STOP_SIGNALS",
    "Terminated",
    "answers_ctrl_c_as_python",
    "held_until_known",
    "note_stop",
    "noted_stop",
    "raise_if_stopped",
    "signal_mask",
    "signals_deferred",
    "stop_line",
    "stops_raised",
    "take_noted_stop",
]

STOP_SIGNALS = frozenset(
    {signal.SIGINT, signal.SIGTERM} | ({signal.SIGHUP} if hasattr(signal, "SIGHUP") else set())
)
"""The signals that stop a command: Ctrl-C, SIGTERM, and SIGHUP where there is one."""


@contextmanager
def signals_deferred() -> Iterator[frozenset[int] | None]:
    """Hold the stop signals (:data:`STOP_SIGNALS`) back for the block; they arrive as it ends.

    An event loop half-built or half-closed when ``KeyboardInterrupt`` lands in it
    prints "Exception ignored ... no attribute '_ssock'" as it is collected. Blocked
    signals stay pending and their handler runs right after the block instead.
    Yields the signal mask from before the block; outside the main thread (where
    Python never runs signal handlers) it does nothing and yields None.
    """
    with signal_mask(signal.SIG_BLOCK, STOP_SIGNALS) as outside:
        yield outside


@contextmanager
def signal_mask(how: int, signals: Iterable[int]) -> Iterator[frozenset[int] | None]:
    """``pthread_sigmask(how, signals)`` for the block; yields the mask from before it.

    Only on the main thread (where Python runs signal handlers); elsewhere, or where
    the platform has no signal masks, it does nothing and yields None.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "pthread_sigmask"
    ):
        yield None
        return
    previous = frozenset(signal.pthread_sigmask(how, signals))
    try:
        yield previous
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextmanager
def held_until_known() -> Iterator[None]:
    """Hold the stop signals back for the block, then let them in, whatever came before.

    For a command's start, until it is known what the command answers to a stop: the
    console script holds them from its first line (:mod:`gcbridge.console`), so the
    end of this block lets them in rather than putting the previous mask back.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "pthread_sigmask"
    ):
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


def stop_line(name: str, signum: int) -> str:
    """The one line printed when signal ``signum`` stops the command ``name``."""
    return f"{name}: stopped ({signal.Signals(signum).name})"


class Terminated(BaseException):
    """SIGTERM or SIGHUP, raised where it lands as Ctrl-C raises ``KeyboardInterrupt``;
    ``signum`` says which."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signum)
        self.signum = signum


_noted: list[int] | None = None
"""The stop signals that came to the command running (None: no command's run)."""


def _stop(signum: int) -> BaseException:
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def _raise_stop(signum: int, frame: FrameType | None) -> None:
    note_stop(signum)
    raise _stop(signum)


def note_stop(signum: int) -> None:
    """Note that stop signal ``signum`` came (a no-op outside :func:`stops_raised`)."""
    if _noted is not None:
        _noted.append(signum)


def noted_stop() -> int | None:
    """The first stop signal that came to the command running, if one did."""
    return _noted[0] if _noted else None


def take_noted_stop() -> int | None:
    """:func:`noted_stop`, for a command that answers it itself: it is no longer noted."""
    signum = noted_stop()
    if _noted:
        _noted.clear()
    return signum


def raise_if_stopped() -> None:
    """Raise the stop that came, if one did: it was lost where it landed (see the module)."""
    signum = noted_stop()
    if signum is not None:
        raise _stop(signum)


def answers_ctrl_c_as_python(handler: Any) -> bool:
    """Whether ``handler`` answers Ctrl-C as Python does, by raising ``KeyboardInterrupt``
    (Python's own handler, or the one :func:`stops_raised` puts in its place)."""
    return handler is signal.default_int_handler or handler is _raise_stop


@contextmanager
def stops_raised() -> Iterator[None]:
    """For a command's run: each stop signal raises where it lands, and is noted.

    SIGTERM and SIGHUP raise :class:`Terminated`; SIGINT raises ``KeyboardInterrupt``
    where Python's own handler is in place (not where it is ignored: a background job).
    A stop that lands where Python cannot raise it is reported to ``sys.unraisablehook``:
    that report is dropped, as the stop is noted (:func:`raise_if_stopped`). Main thread
    only; elsewhere it does nothing.
    """
    global _noted
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    outer, _noted = _noted, []
    previous: dict[int, Any] = {}
    for sig in STOP_SIGNALS:
        if sig != signal.SIGINT or signal.getsignal(sig) is signal.default_int_handler:
            previous[sig] = signal.signal(sig, _raise_stop)
    hook = sys.unraisablehook
    sys.unraisablehook = _stops_not_reported(hook)
    try:
        yield
    finally:
        sys.unraisablehook = hook
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        _noted = outer


def _stops_not_reported(hook: Callable[[Any], object]) -> Callable[[Any], object]:
    def unraisable(report: Any) -> object:
        if isinstance(report.exc_value, KeyboardInterrupt | Terminated) and noted_stop():
            return None
        return hook(report)

    return unraisable
