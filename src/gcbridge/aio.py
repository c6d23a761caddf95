"""Run a coroutine function to its end from synchronous code: :func:`run_sync`.

Ctrl-C may land at any instant. :func:`run_sync` takes the coroutine *function*
and its arguments, not a coroutine, so that no coroutine or event loop exists
outside its protection: the loop is built and closed with SIGINT and SIGTERM held
back, and the coroutine is made inside the task that runs it. A stop before the
task ran cancels it with nothing started, so no "coroutine ... was never awaited"
warning and no "Exception ignored" can follow.

Ctrl-C always wins. ``asyncio.Runner`` answers it by cancelling the task and raises
``KeyboardInterrupt`` only if the cancellation comes out of it; a coroutine may
swallow it (Python 3.11's ``asyncio.wait_for`` returns the inner result when that
finished in the same loop iteration as the cancellation), and the interrupt was
lost: ``calls --follow`` then polled on. Here a Ctrl-C, once taken, is raised when
the task ends, however it ended.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import inspect
import signal
import threading
from collections.abc import Awaitable, Callable, Iterator
from types import FrameType
from typing import Any, ParamSpec, TypeVar

from gcbridge.signals import (
    answers_ctrl_c_as_python,
    note_stop,
    raise_if_stopped,
    signal_mask,
    signals_deferred,
)

__all__ = ["run_sync"]

_T = TypeVar("_T")
_P = ParamSpec("_P")


def _run_here(fn: Callable[_P, Awaitable[_T]], *args: _P.args, **kwargs: _P.kwargs) -> _T:
    """``asyncio.run(fn(*args, **kwargs))`` with signals let in only while it runs."""

    async def main() -> _T:
        ctrl_c.task = asyncio.current_task()
        if ctrl_c.taken:  # before this first step: nothing of fn's is made
            raise asyncio.CancelledError
        return await fn(*args, **kwargs)

    with signals_deferred() as outside:
        raise_if_stopped()  # a stop that came before, where it could not be raised
        runner = asyncio.Runner()
        coro = main()
        ctrl_c = _CtrlC(runner.get_loop())
        try:
            # the caller's own mask while it runs (it may hold signals back itself)
            with ctrl_c.answered(), signal_mask(signal.SIG_SETMASK, outside or ()):
                result = runner.run(coro)
            ctrl_c.raise_if_taken()
            return result
        except asyncio.CancelledError:
            ctrl_c.raise_if_taken()
            raise
        finally:
            runner.close()
            if inspect.getcoroutinestate(coro) == inspect.CORO_CREATED:
                coro.close()


class _CtrlC:
    """SIGINT while a task runs: cancel it once, and remember that it came.

    In place only where Python's own Ctrl-C answer is (the main thread, with
    ``signal.default_int_handler`` or the command line's equivalent installed), as
    ``asyncio.Runner`` does it. A second Ctrl-C raises ``KeyboardInterrupt`` at once,
    for a task that will not end.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.taken = False
        self.task: asyncio.Task[Any] | None = None

    @contextlib.contextmanager
    def answered(self) -> Iterator[None]:
        previous = signal.getsignal(signal.SIGINT)
        if threading.current_thread() is not threading.main_thread() or not (
            answers_ctrl_c_as_python(previous)
        ):
            yield
            return
        signal.signal(signal.SIGINT, self._on_sigint)
        try:
            yield
        finally:
            if signal.getsignal(signal.SIGINT) == self._on_sigint:
                signal.signal(signal.SIGINT, previous)

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        if self.taken:
            raise KeyboardInterrupt
        self.taken = True
        note_stop(signum)
        if self.task is not None:
            self.task.cancel()
        self.loop.call_soon_threadsafe(lambda: None)  # wake a loop waiting in select()

    def raise_if_taken(self) -> None:
        if self.taken:
            raise KeyboardInterrupt from None


def run_sync(fn: Callable[_P, Awaitable[_T]], /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
    """``asyncio.run(fn(*args, **kwargs))``, also where an event loop already runs here.

    A notebook, an async test, or a plugin keeping a loop (pytest-playwright's sync
    API): ``asyncio.run`` refuses there, so the coroutine runs in a thread of its own.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run_here(fn, *args, **kwargs)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(functools.partial(_run_here, fn, *args, **kwargs)).result()
