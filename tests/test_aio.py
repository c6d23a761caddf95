"""Synchronous calls that run a coroutine work where an event loop already runs.

``gcbridge webhooks trigger``/``calls`` (``bounded_request``) and the receiver test
poster are synchronous; called from a notebook, an async test or next to
pytest-playwright's sync API (a loop running in the thread), ``asyncio.run`` alone
refuses.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
import sys
import warnings
from asyncio import selector_events
from typing import Any

import httpx
import pytest

from gcbridge.aio import run_sync
from gcbridge.cli.bounded_http import bounded_request


async def _answer() -> int:
    await asyncio.sleep(0)
    return 42


def test_run_sync_without_a_loop() -> None:
    assert run_sync(_answer) == 42


def test_run_sync_inside_a_running_loop() -> None:
    async def caller() -> int:
        return run_sync(_answer)  # synchronous code called from a coroutine

    assert asyncio.run(caller()) == 42


def test_bounded_request_inside_a_running_loop() -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json={"ok": True}))

    async def caller() -> object:
        answer = bounded_request("GET", "http://service.test/x", deadline=5, transport=transport)
        return answer.status

    assert asyncio.run(caller()) == 200


def _interrupted_while_building(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C arrives while the event loop is half-built (before its self-pipe exists)."""
    make_pipe = selector_events.BaseSelectorEventLoop._make_self_pipe

    def interrupted(loop: Any) -> None:
        signal.raise_signal(signal.SIGINT)
        make_pipe(loop)

    monkeypatch.setattr(selector_events.BaseSelectorEventLoop, "_make_self_pipe", interrupted)


def test_ctrl_c_while_the_loop_is_built_is_one_clean_interrupt(monkeypatch) -> None:
    # `webhooks calls --follow` stopped by Ctrl-C between two polls printed
    # "Exception ignored ... no attribute '_ssock'" and "coroutine ... was never awaited".
    _interrupted_while_building(monkeypatch)
    unraisable: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(KeyboardInterrupt):
            run_sync(_answer)
        gc.collect()
    assert unraisable == []
    assert [str(w.message) for w in caught] == []
    monkeypatch.undo()
    assert run_sync(_answer) == 42  # signals are not left blocked


def test_ctrl_c_wins_when_wait_for_returns_the_inner_result_instead() -> None:
    # Python 3.11's asyncio.wait_for returns the inner result when it finished in the
    # same loop iteration as the cancellation: `calls --follow` polled on after Ctrl-C.
    async def answered_as_ctrl_c_lands() -> int:
        signal.raise_signal(signal.SIGINT)
        return 42

    async def request() -> int:
        return await asyncio.wait_for(answered_as_ctrl_c_lands(), 5)

    with pytest.raises(KeyboardInterrupt):
        run_sync(request)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert run_sync(_answer) == 42


def test_ctrl_c_wins_over_a_coroutine_that_swallows_its_cancellation() -> None:
    unwound: list[str] = []

    async def stubborn() -> str:
        try:
            signal.raise_signal(signal.SIGINT)
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            unwound.append("cancelled")
        return "went on"

    with pytest.raises(KeyboardInterrupt):
        run_sync(stubborn)
    assert unwound == ["cancelled"]  # it was asked to stop, and could clean up first


def test_a_second_ctrl_c_ends_a_task_that_will_not() -> None:
    async def deaf() -> None:
        signal.raise_signal(signal.SIGINT)
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(5)
        signal.raise_signal(signal.SIGINT)
        await asyncio.sleep(5)  # never reached: the second one raises at once

    with pytest.raises(KeyboardInterrupt):
        run_sync(deaf)
