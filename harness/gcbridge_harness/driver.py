"""The browser side of the native app: Playwright (Chromium) bookkeeping, waits and evaluation.

:class:`ChromiumDriver` is mixed into :class:`~gcbridge_harness.native_app.NativeApp`;
it owns what the WebView engine gives a native app (evaluate a script, see the
network, read localStorage), so the app's decisions need none of it.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from gcbridge_harness.decisions import LoginResponse
from gcbridge_harness.leaks import LOGIN_PATH

__all__ = ["ChromiumDriver", "origin_of"]


class ChromiumDriver:
    """Network bookkeeping, waiting and page evaluation of one WebView page."""

    # Provided by NativeApp.
    page: Any
    context: Any
    timeline: Any
    requests: list[tuple[str, str]]
    messages: list[dict[str, Any]]
    login_responses: list[LoginResponse]

    def _evaluate_call(self, call: str) -> str | None:
        script = f"(() => {{ try {{ {call}; return null; }} catch (e) {{ return String(e); }} }})()"
        try:
            error: str | None = self.page.evaluate(script)
        except Exception as exc:  # noqa: BLE001 - a navigating or closed page: evaluateJavascript fails too
            error = f"{type(exc).__name__}: {exc}"
        if error:
            self.timeline.add("injection failed", error)
        return error

    # ---- network bookkeeping -------------------------------------------------------

    def _on_request(self, request: Any) -> None:
        self._inflight += 1
        self.requests.append((request.method, request.url))

    def _on_request_done(self, request: Any) -> None:
        self._inflight -= 1

    def _on_response(self, response: Any) -> None:
        if urlsplit(response.url).path != LOGIN_PATH or response.request.method != "POST":
            return
        try:
            error = response.json().get("error")
        except Exception:  # noqa: BLE001 - body gone (page closed) or not JSON
            error = None
        self.login_responses.append(LoginResponse(response.status, error))
        self.timeline.add("login answered", f"{response.status} {error or ''}".strip())

    def _hold_comments(self, route: Any) -> None:
        if self._comments_released or route.request.method != "GET":
            route.continue_()
        else:
            self._held.append(route)

    def _release_comments(self) -> None:
        self._comments_released = True
        held, self._held = self._held, []
        for route in held:
            route.continue_()

    def requests_to(self, path: str, method: str | None = None) -> list[str]:
        """URLs of browser requests to ``path`` (on any origin)."""
        return [
            url
            for m, url in self.requests
            if urlsplit(url).path == path and (method is None or m == method)
        ]

    # ---- waiting -------------------------------------------------------------------

    def wait_for(self, predicate: Callable[[], bool], what: str, *, timeout: float = 10.0) -> None:
        """Let the page run until ``predicate()`` holds; fail naming ``what`` after ``timeout``."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"timed out waiting for {what}\ntimeline:\n{self.timeline.format()}"
                )
            self.page.wait_for_timeout(20)

    def events(self, name: str | None = None) -> list[dict[str, Any]]:
        """Forwarded widget events (optionally only those called ``name``)."""
        return [m for m in self.messages if name is None or m["name"] == name]

    def wait_for_event(
        self, name: str, *, count: int = 1, timeout: float = 10.0
    ) -> list[dict[str, Any]]:
        """Wait until ``count`` events ``name`` reached the native side; returns them."""
        self.wait_for(lambda: len(self.events(name)) >= count, f"{count} x {name}", timeout=timeout)
        return self.events(name)

    def post_in_page(self, data_js: str) -> None:
        """``window.postMessage(<data_js>, location.origin)`` from the page itself."""
        self.page.evaluate(f"() => window.postMessage({data_js}, location.origin)")

    def round_trip(self) -> None:
        """Wait until every window message posted so far has been dispatched."""
        token = f"gc-harness-flush:{secrets.token_hex(6)}"
        self.page.evaluate(
            """(token) => new Promise((resolve) => {
                 const done = (e) => { if (e.source === window && e.data === token) {
                   window.removeEventListener('message', done); resolve(); } };
                 window.addEventListener('message', done);
                 window.postMessage(token, location.origin);
               })""",
            token,
        )

    def settle(self, *, timeout: float = 10.0) -> None:
        """Wait until the page has handled every message and its network is idle, twice running."""
        deadline = time.monotonic() + timeout
        while True:
            before = len(self.requests)
            self.round_trip()
            self.wait_for(
                lambda: self._inflight <= 0,
                "network idle",
                timeout=max(0.1, deadline - time.monotonic()),
            )
            self.page.wait_for_timeout(30)
            if len(self.requests) == before and self._inflight <= 0:
                return
            if time.monotonic() > deadline:
                raise AssertionError("page did not settle\n" + self.timeline.format())

    def local_storage(self) -> dict[str, str]:
        """The widget origin's localStorage as the browser keeps it (whatever page JS sees)."""
        # Read through DevTools: the page may shadow window.localStorage (DOM
        # storage off), and storage_state() would open extra pages.
        cdp = self.context.new_cdp_session(self.page)
        try:
            storage_id = {"securityOrigin": origin_of(self.page.url), "isLocalStorage": True}
            entries = cdp.send("DOMStorage.getDOMStorageItems", {"storageId": storage_id})[
                "entries"
            ]
        finally:
            cdp.detach()
        return {key: value for key, value in entries}


def origin_of(url: str) -> str:
    """``scheme://host:port`` of ``url``."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
