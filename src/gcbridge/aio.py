"""Run a coroutine function to its end from synchronous code: :func:`run_sync`.

Ctrl-C may land at any instant. :func:`run_sync` takes the coroutine *function*
and its arguments, not a coroutine, so that no coroutine or event loop exists
outside its protection: the loop is built and closed with SIGINT and SIGTERM held
back, and the coroutine is made inside the task that runs it. A stop before the
task ran cancels it with nothing started, so no "coroutine ... was never awaited"
warning and no "Exception ignored" can follow.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import inspect
import signal
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from gcbridge.signals import signal_mask, signals_deferred

__all__ = ["run_sync"]

_T = TypeVar("_T")
_P = ParamSpec("_P")


def _run_here(fn: Callable[_P, Awaitable[_T]], *args: _P.args, **kwargs: _P.kwargs) -> _T:
    """``asyncio.run(fn(*args, **kwargs))`` with signals let in only while it runs.

    Everything is made and closed with SIGINT and SIGTERM held back: the runner, its
    loop, and the coroutine, which calls ``fn`` only at the task's first step. Only
    ``runner.run`` lets them in. There Ctrl-C cancels the task as ``asyncio.run``
    does (the ``KeyboardInterrupt`` comes out after it has unwound); a stop before the
    task's first step leaves a coroutine that never started, which is closed.
    """

    async def main() -> _T:
        return await fn(*args, **kwargs)

    with signals_deferred() as outside:
        runner = asyncio.Runner()
        coro = main()
        try:
            runner.get_loop()
            # the caller's own mask while it runs (it may hold signals back itself)
            with signal_mask(signal.SIG_SETMASK, outside or ()):
                return runner.run(coro)
        finally:
            runner.close()
            if inspect.getcoroutinestate(coro) == inspect.CORO_CREATED:
                coro.close()


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
