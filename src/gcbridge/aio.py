"""Run a coroutine to its end from synchronous code: :func:`run_sync`."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run_sync"]

_T = TypeVar("_T")


def run_sync(coro: Coroutine[Any, Any, _T]) -> _T:
    """``asyncio.run(coro)``, also where an event loop already runs in this thread.

    A notebook, an async test, or a plugin keeping a loop (pytest-playwright's sync
    API): ``asyncio.run`` refuses there, so the coroutine runs in a thread of its own.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
