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
    LIFE_BINDING,
    LIFE_SCRIPT,
    NO_DOM_STORAGE_SCRIPT,
    at_document_end,
    at_document_start,
    shim_script,
)
from gcbridge_harness.app.widget_view import WidgetView
from gcbridge_harness.report import observe
from gcbridge_harness.report.leaks import LOGIN_PATH

__all__ = ["ChromiumApp", "origin_of"]

NO_COMMIT = (204, 205)
"""Answers to a navigation that Chromium never commits (the document shown stays)."""


class ChromiumApp(NativeApp):
    """One launch in Chromium: a browser context with one page."""

    engine: ClassVar[str] = "chromium"

    context: Any = None
    page: Any = None

    def _open_view(self, early: str) -> None:
        self._inflight_count = 0
        self._held: list[Any] = []
        self._comments_released = not self.comments_after_page_finished
        if self.share_view_with is not None:
            self._open_second_view()
            return
        context = self.runtime.new_context(
            bypass_csp=self.bypass_csp, storage_state=self.storage_state, service_workers="block"
        )
        self.context = context
        self._views: dict[Any, ChromiumApp] = {}  # page -> app: the WebViews of this app
        self.leaks.watch(context)
        context.on("request", lambda request: self._view_of(request)._on_request(request))
        context.on("requestfinished", lambda r: self._view_of(r)._on_request_done(r))
        context.on("requestfailed", lambda r: self._view_of(r)._on_request_done(r))
        context.on("response", lambda response: self._view_of(response)._on_response(response))
        context.expose_binding(
            BINDING, lambda source, *a: self._routed(source)._on_binding(source, *a)
        )
        context.expose_binding(
            LIFE_BINDING, lambda source, what: self._routed(source)._on_life(what)
        )
        observe.attach(self)  # probe, page errors, trace: the failure timeline and report
        context.add_init_script(shim_script(self.platform, late=self.late_transport))
        context.add_init_script(LIFE_SCRIPT)
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
                context.add_init_script(wrap(self._injected_source()))
            if early:
                context.add_init_script(wrap(early))
        self._new_page()

    def _open_second_view(self) -> None:
        """A second WebView of the same app: a page of the first one's context (its storage)."""
        first = self.share_view_with
        assert isinstance(first, ChromiumApp) and first.context is not None
        self.context = first.context
        self._views = first._views
        self._new_page()

    def _new_page(self) -> None:
        page = self.context.new_page()
        self.page = page
        self._views[page] = self
        page.on("console", lambda msg: self.console.append((msg.type, msg.text)))
        page.on("pageerror", lambda exc: self.page_errors.append(str(exc)))
        page.on("load", lambda _page: self._navigation("finished"))
        page.on("crash", lambda _page: self._terminated())

    def _routed(self, source: Any) -> ChromiumApp:
        return self._views.get(source.get("page"), self)

    def _view_of(self, request_or_response: Any) -> ChromiumApp:
        try:
            request = getattr(request_or_response, "request", request_or_response)
            page = request.frame.page
        except Exception:  # noqa: BLE001 - a request of no page (a worker): the first view's
            return self
        return self._views.get(page, self)

    def _on_life(self, what: str) -> None:
        if what == "restored":
            self._restored()
        elif what in ("committed", "hash", "history"):
            self._navigation(what)

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

    def _pump_for_wait(self, seconds: float) -> None:
        # Playwright cannot end a wait early when a binding call arrives: look more often.
        self._pump(min(seconds, 0.005))

    def _pump(self, seconds: float) -> None:
        page = self.page
        try:
            page.wait_for_timeout(seconds * 1000)
        except Exception as exc:
            if page is not self.page or self._recovering:
                return  # the app replaces the dead view meanwhile (its crash callback runs)
            if self._page_crashed and not self.terminations:
                return  # the crash callback has not run yet: it runs at the next call
            if self._page_crashed:  # reported, and the app left it dead: fail now
                raise AssertionError(
                    f"the web content process is dead and the view was not reloaded ({exc})"
                ) from None
            raise

    # ---- network bookkeeping -------------------------------------------------------

    def _on_request(self, request: Any) -> None:
        self._inflight_count += 1
        self.requests.append((request.method, request.url))
        if request.is_navigation_request() and self.page is not None:
            with contextlib.suppress(Exception):  # a frame already gone
                if request.frame == self.page.main_frame:
                    self._navigation("started")

    def _main_frame_navigation(self, request: Any) -> bool:
        try:
            return bool(request.is_navigation_request() and request.frame == self.page.main_frame)
        except Exception:  # noqa: BLE001 - a frame already gone
            return False

    def _on_request_done(self, request: Any) -> None:
        self._inflight_count -= 1

    def _inflight(self) -> int:
        return self._inflight_count

    def _on_response(self, response: Any) -> None:
        if response.status in NO_COMMIT and self._main_frame_navigation(response.request):
            self._navigation("failed")  # Chromium commits no 204 / 205: the page shown stays
            return
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

    # ---- the WebView's life (Lifecycle) -------------------------------------------------

    def _app_reload(self) -> None:
        if self.terminations and self._page_crashed:
            # A crashed page cannot be reloaded through Playwright: the tab gets a new
            # renderer, as Chrome's reload of a crashed tab does.
            self._recreate_view()
            return
        self.page.reload(wait_until="commit")

    def _navigate(self, url: str) -> None:
        self.page.goto(url, wait_until="commit")

    def _go_back(self) -> None:
        # A page restored from the back-forward cache fires no load event.
        self.page.go_back(wait_until="commit")

    def _kill_content(self) -> None:
        cdp = self.context.new_cdp_session(self.page)
        self._page_crashed = True
        with contextlib.suppress(Exception):  # a crashed target never answers
            cdp.send("Page.crash", timeout=200)

    _page_crashed = False
    _recovering = False

    def _recreate_view(self) -> None:
        # Runs in the crash callback: a wait of the scenario on the dead page may resume
        # at any Playwright call here, and must see the recovery under way (_pump).
        dead = self.page
        self._recovering = True
        try:
            self._views.pop(dead, None)
            self._new_page()
            self._page_crashed = False
            with contextlib.suppress(Exception):
                dead.close()
            self.timeline.add("load", self.url)
            self.page.goto(self.url, wait_until="commit")
        finally:
            self._recovering = False

    def _close_view(self) -> None:
        if self.share_view_with is not None:
            if self.page is not None:
                self._views.pop(self.page, None)
                with contextlib.suppress(Exception):
                    self.page.close()
                self.page = None
            return
        if self.context is not None:
            observe.before_close(self)  # the report's screenshot and trace
            # The browser may already be gone at the end of the session.
            with contextlib.suppress(Exception):
                self.context.close()
            self.context = None
