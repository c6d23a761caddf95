"""Headless mode: the same app, with headless Chromium (Playwright) as its WebView.

Chromium stands in for a React Native WebView (docs/guides/demo.md, "Two modes, two
platforms' timing"). The profile lives in ``<data dir>/chromium``. Playwright's sync API is
single-threaded: the app thread *is* this thread, and waiting pumps Playwright's event loop.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from gcbridge.demo.qtlog import is_root
from gcbridge.demo.stopping import DemoStopped
from gcbridge.driver_after_stop import quiet_dead_driver_after_stop

__all__ = ["run_headless", "PlaywrightHost"]

T = TypeVar("T")

# react-native-webview's channel: postMessage takes one string.
_RN_SHIM = """
window.ReactNativeWebView = { postMessage: function (s) { window.__gcbridgeNative(String(s)); } };
"""


class PlaywrightHost:
    """A :class:`~gcbridge.demo.app.WebViewHost` and :class:`~gcbridge.demo.flow.FlowDriver`."""

    def __init__(self, page: Any, stopped: Callable[[], bool] = lambda: False) -> None:
        self.page = page
        self.stopped = stopped
        self.inbox: list[str] = []
        self.on_message: Callable[[str], None] = lambda raw: None

    def receive(self, raw: str) -> None:
        """The transport's native end: queue the string for the app thread."""
        self.inbox.append(str(raw))

    def evaluate_js(self, script: str) -> Any:
        """Evaluate like ``evaluateJavascript``: a global (indirect) eval of the script text."""
        return self.page.evaluate("source => (0, eval)(source)", script)

    def pump(self, ms: int = 50) -> None:
        """Let Playwright deliver events, then hand queued bridge messages to the app.

        Raises :class:`~gcbridge.demo.stopping.DemoStopped` once a stop was requested:
        between Playwright calls, never inside one.
        """
        if self.stopped():
            raise DemoStopped("stop requested")
        self.page.wait_for_timeout(ms)
        while self.inbox:
            self.on_message(self.inbox.pop(0))

    def call(self, fn: Callable[[], T]) -> T:
        """The app thread is this thread."""
        return fn()

    def wait_until(self, check: Callable[[], T | None], timeout: float) -> T | None:
        """Poll ``check`` while pumping Playwright."""
        deadline = time.monotonic() + timeout
        while True:
            self.pump()
            found = check()
            if found is not None or time.monotonic() > deadline:
                return found


def run_headless(
    widget_url: str,
    profile_dir: Path,
    make_app: Callable[[PlaywrightHost], Any],
    run: Callable[[Any, PlaywrightHost], int],
    *,
    stopped: Callable[[], bool] = lambda: False,
) -> int:
    """Open the widget in headless Chromium, wire the app, then hand over to ``run``."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    from gcbridge.browser import find_headless_chromium

    quiet_dead_driver_after_stop(stopped)
    executable = find_headless_chromium()
    args = ["--no-sandbox"] if is_root() else []
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile_dir),
            executable_path=executable,
            headless=True,
            args=args,
            viewport={"width": 900, "height": 800},
        )
        app = None
        try:
            page = context.pages[0] if context.pages else context.new_page()
            host = PlaywrightHost(page, stopped)
            page.expose_function("__gcbridgeNative", host.receive)
            page.add_init_script(_RN_SHIM)
            app = make_app(host)
            page.add_init_script(app.bridge_source)
            app.bridge_registered("React Native injectedJavaScriptBeforeContentLoaded")
            host.on_message = app.on_bridge_message
            page.goto(widget_url, wait_until="load")
            app.page_finished()
            code: int = run(app, host)
            return code
        finally:
            # Ctrl-C in a terminal may have stopped the browser and driver already
            with contextlib.suppress(PlaywrightError):
                context.close()
            if app is not None:
                app.close()
