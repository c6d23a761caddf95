"""A test that does not use Playwright can run an event loop, whatever its worker ran before.

Playwright's sync API marks its loop as the thread's running loop between its calls, for
as long as a worker's session-scoped Playwright lives (tests/conftest.py,
``_outside_playwrights_event_loop``). A later ``asyncio.run`` in that worker failed or
passed by which tests xdist had given it first.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]


def test_asyncio_run_works_after_a_test_that_left_a_loop_marked_running(
    pytester: pytest.Pytester,
) -> None:
    conftest = Path(__file__).with_name("conftest.py").read_text(encoding="utf-8")
    pytester.makeconftest(conftest)
    pytester.makepyfile(
        test_order="""
        import asyncio

        def test_a_playwright_like_caller_leaves_its_loop_marked():
            # what playwright/_impl/_greenlets.py's wait_for_future does after each call
            asyncio._set_running_loop(asyncio.new_event_loop())

        def test_then_asyncio_run_works():
            async def answer():
                await asyncio.sleep(0)
                return 42

            assert asyncio.run(answer()) == 42
        """
    )
    try:
        result = pytester.runpytest_inprocess(
            "-p", "no:xdist", "-p", "no:cacheprovider", "-p", "no:playwright"
        )
    finally:
        left = asyncio._get_running_loop()
        asyncio._set_running_loop(None)
        if left is not None:
            left.close()
    result.assert_outcomes(passed=2)
