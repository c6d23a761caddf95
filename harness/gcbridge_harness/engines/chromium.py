"""The app in Chromium: :class:`ChromiumApp`, one Playwright browser context per launch.

Playwright gives what a Chromium WebView gives a native app and more: every
request (so the ssoData leak check sees URLs, headers and bodies), request
interception (the comments answer held until the page finished loading), the
DevTools protocol (navigation history, localStorage as the browser keeps it).
"""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar
from urllib.parse import urlsplit

from gcbridge_harness.app.decisions import LoginResponse
from gcbridge_harness.app.native_app import NativeApp, origin_of
from gcbridge_harness.app.platforms import (
    BINDING,
    NO_DOM_STORAGE_SCRIPT,
    at_document_end,
    at_document_start,
    shim_script,
)
from gcbridge_harness.app.widget_view import WidgetView
from gcbridge_harness.report import observe
from gcbridge_harness.report.leaks import LOGIN_PATH

__all__ = ["ChromiumApp", "origin_of"]


class ChromiumApp(NativeApp):
    """One launch in Chromium: a browser context with one page."""

    engine: ClassVar[str] = "chromium"

    context: Any = None
    page: Any = None

    def _open_view(self, early: str) -> None:
        self._inflight_count = 0
        self._held: list[Any] = []
        self._comments_released = not self.comments_after_page_finished
        context = self.runtime.new_context(
            bypass_csp=self.bypass_csp, storage_state=self.storage_state, service_workers="block"
        )
        self.context = context
        self.leaks.watch(context)
        context.on("request", self._on_request)
        context.on("requestfinished", self._on_request_done)
        context.on("requestfailed", self._on_request_done)
        context.on("response", self._on_response)
        context.expose_binding(BINDING, self._on_binding)
        observe.attach(self)  # probe, page errors, trace: the failure timeline and report
        context.add_init_script(shim_script(self.platform, late=self.late_transport))
        if not self.dom_storage:
            context.add_init_script(NO_DOM_STORAGE_SCRIPT)
        if self.comments_after_page_finished:
            context.route(
                lambda url: urlsplit(url).path == "/api/pub/comments", self._hold_comments
            )
        at = {"document-start": at_document_start, "document-end": at_document_end}
        if self.injection_point in at:
            wrap = at[self.injection_point]
            for _ in range(self.injections):
                context.add_init_script(wrap(self.bridge))
            if early:
                context.add_init_script(wrap(early))
        page = context.new_page()
        self.page = page
        page.on("console", lambda msg: self.console.append((msg.type, msg.text)))
        page.on("pageerror", lambda exc: self.page_errors.append(str(exc)))

    def _load(self, url: str) -> None:
        self.page.goto(url, wait_until="load")

    def _on_binding(self, source: Any, platform: str, kind: str, text: str) -> None:
        frame = source.get("frame")
        top = frame is None or self.page is None or frame is self.page.main_frame
        origin = origin_of(frame.url) if frame is not None else self.widget_origin
        self._native(platform, kind, text, top=top, origin=origin)

    def _run_script(self, source: str) -> None:
        self.page.evaluate(source)

    def evaluate(self, script: str, arg: Any = None, *, world: str = "page") -> Any:
        return self.page.evaluate(script, arg)

    @property
    def widget(self) -> WidgetView:
        """The widget page as a user sees it."""
        return WidgetView(self.page, timeout_ms=self.wait_seconds * 1000)

    def _pump(self, seconds: float) -> None:
        self.page.wait_for_timeout(seconds * 1000)

    # ---- network bookkeeping -------------------------------------------------------

    def _on_request(self, request: Any) -> None:
        self._inflight_count += 1
        self.requests.append((request.method, request.url))

    def _on_request_done(self, request: Any) -> None:
        self._inflight_count -= 1

    def _inflight(self) -> int:
        return self._inflight_count

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

    # ---- end -----------------------------------------------------------------------

    def _kept_storage(self) -> Any:
        return self.context.storage_state()

    def _check_leaks(self) -> None:
        self.leaks.check(
            self.context if self.context is not None and self.page is not None else None
        )

    def _close_view(self) -> None:
        if self.context is not None:
            observe.before_close(self)  # the report's screenshot and trace
            # The browser may already be gone at the end of the session.
            with contextlib.suppress(Exception):
                self.context.close()
            self.context = None
