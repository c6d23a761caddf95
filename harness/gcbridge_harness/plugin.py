"""pytest plugin ``gcbridge_harness`` (registered through the ``pytest11`` entry point).

Options: ``--gc-bridge PATH`` (the bridge.js under test), ``--gc-browser PATH``
(a Chromium; otherwise :func:`gcbridge.browser.find_chromium`).
"""

from __future__ import annotations

from typing import Any

import pytest

from gcbridge.browser import BrowserNotFound, find_chromium


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("gcbridge", "gc-bridge harness")
    group.addoption("--gc-bridge", dest="gc_bridge", default=None, metavar="PATH",
                    help="bridge.js to test (default: the one shipped with gc-bridge)")
    group.addoption("--gc-browser", dest="gc_browser", default=None, metavar="PATH",
                    help="Chromium executable (default: GC_BROWSER, Playwright's, then the system's)")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any], pytestconfig: pytest.Config) -> dict[str, Any]:
    """Point Playwright at a discovered Chromium (it cannot always download its own)."""
    try:
        path = find_chromium(pytestconfig.getoption("gc_browser"))
    except BrowserNotFound as exc:
        pytest.skip(str(exc))
    return {**browser_type_launch_args, "executable_path": path}
