"""Run a coroutine to its end from synchronous code: :func:`run_sync`."""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import signal
import threading
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["run_sync"]

_T = TypeVar("_T")

_DEFERRED = frozenset({signal.SIGINT, signal.SIGTERM})


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM back for the block; they arrive as it ends.

    An event loop half-built or half-closed when ``KeyboardInterrupt`` lands in it
    prints "Exception ignored ... no attribute '_ssock'" as it is collected. Blocked
    signals stay pending and their handler runs right after the block instead.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "pthread_sigmask"
    ):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _run_here(coro: Coroutine[Any, Any, _T]) -> _T:
    """``asyncio.run(coro)`` with the loop built and closed out of a signal's reach.

    While the coroutine runs, Ctrl-C cancels it as ``asyncio.run`` does (the
    ``KeyboardInterrupt`` comes out after the task has unwound). A stop before it
    started closes the coroutine, so no "was never awaited" warning follows.
    """
    runner = asyncio.Runner()
    try:
        with _signals_deferred():
            runner.get_loop()
        return runner.run(coro)
    finally:
        with _signals_deferred():
            runner.close()
        if inspect.getcoroutinestate(coro) == inspect.CORO_CREATED:
            coro.close()


def run_sync(coro: Coroutine[Any, Any, _T]) -> _T:
    """``asyncio.run(coro)``, also where an event loop already runs in this thread.

    A notebook, an async test, or a plugin keeping a loop (pytest-playwright's sync
    API): ``asyncio.run`` refuses there, so the coroutine runs in a thread of its own.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run_here(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(_run_here, coro).result()
