"""Synchronous calls that run a coroutine work where an event loop already runs.

``gcbridge webhooks trigger``/``calls`` (``bounded_request``) and the receiver test
poster are synchronous; called from a notebook, an async test or next to
pytest-playwright's sync API (a loop running in the thread), ``asyncio.run`` alone
refuses.
"""

from __future__ import annotations

import asyncio

import httpx

from gcbridge.aio import run_sync
from gcbridge.cli.bounded_http import bounded_request


async def _answer() -> int:
    await asyncio.sleep(0)
    return 42


def test_run_sync_without_a_loop() -> None:
    assert run_sync(_answer()) == 42


def test_run_sync_inside_a_running_loop() -> None:
    async def caller() -> int:
        return run_sync(_answer())  # synchronous code called from a coroutine

    assert asyncio.run(caller()) == 42


def test_bounded_request_inside_a_running_loop() -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json={"ok": True}))

    async def caller() -> object:
        answer = bounded_request("GET", "http://service.test/x", deadline=5, transport=transport)
        return answer.status

    assert asyncio.run(caller()) == 200
