"""The Chromium Playwright launches: ``browser_type_launch_args`` over pytest-playwright's.

A plugin of its own, registered by :func:`gcbridge_harness.plugin.pytest_configure`
after every entry-point plugin: a fixture of the same name in a plugin registered
later wins, and the order of entry points depends on how the packages were
installed (from a wheel in a fresh environment, pytest-playwright comes last).
"""

from __future__ import annotations

from typing import Any

import pytest

from gcbridge.browser import BrowserNotFound, find_headless_chromium, install_hint


@pytest.fixture(scope="session")
def browser_type_launch_args(
    browser_type_launch_args: dict[str, Any], pytestconfig: pytest.Config
) -> dict[str, Any]:
    """Point Playwright at a discovered Chromium (it cannot always download its own).

    Headless, as Playwright does: its headless shell where there is one (the
    back-forward cache scenarios launch the full browser: ``bfcache_browser``).
    """
    try:
        path = find_headless_chromium(pytestconfig.getoption("gc_browser"))
    except BrowserNotFound as exc:  # a browser asked for and missing is never a skip
        from gcbridge_harness.engines.selection import EngineStatus, not_usable

        status = EngineStatus("chromium", False, str(exc), install_hint())
        pytest.exit(not_usable(status), returncode=pytest.ExitCode.USAGE_ERROR)
    return {**browser_type_launch_args, "executable_path": path}
