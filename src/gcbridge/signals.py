"""Stop signals: which they are, holding them back, and the line a stopped command prints.

SIGINT (Ctrl-C) and SIGTERM stop every long-running command, and so does SIGHUP (the
terminal or the session went away), taken as a SIGTERM. Each one ends with one
line, :func:`stop_line`, and the shell's status 128 + the signal number. Where an
object must not be half-made when a signal lands (an event loop, a coroutine, the
CLI's parser while it imports), :func:`signals_deferred` holds them back.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

__all__ = ["STOP_SIGNALS", "held_until_known", "signal_mask", "signals_deferred", "stop_line"]

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
