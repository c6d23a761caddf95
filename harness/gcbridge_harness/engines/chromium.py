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

from gcbridge_harness.app.chrome import PICKED_FILE
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


def _failed_load_is_an_event(load: Any) -> None:
    """Run ``load``; a load that fails for the network raises nothing here (a WebView's load
    call does not either): the request's failure reaches the app (``_on_request_failed``)."""
    try:
        load()
    except Exception as exc:
        if "net::ERR_" not in str(exc):
            raise


class ChromiumApp(NativeApp):
    """One launch in Chromium: a browser context with one page."""

    engine: ClassVar[str] = "chromium"

    context: Any = None
    page: Any = None

    def _open_view(self, early: str) -> None:
        self._inflight_requests: dict[Any, Any] = {}  # request -> its page
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
        self._opening = [0]  # pages the app is opening now (any other page is a new window)
        self.leaks.watch(context)
        context.on("request", lambda r: self._to_view(r, "_on_request"))
        context.on("requestfinished", lambda r: self._to_view(r, "_on_request_done"))
        context.on("requestfailed", lambda r: self._to_view(r, "_on_request_failed"))
        context.on("response", lambda r: self._to_view(r, "_on_response"))
        context.on("page", self._on_page)
        context.expose_binding(
            BINDING, lambda source, *a: self._routed(source, "_on_binding", source, *a)
        )
        context.expose_binding(
            LIFE_BINDING, lambda source, what: self._routed(source, "_on_life", what)
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
        self._opening = first._opening
        self._new_page()

    def _new_page(self) -> None:
        self._opening[0] += 1
        try:
            page = self.context.new_page()
        finally:
            self._opening[0] -= 1
        self.page = page
        self._views[page] = self
        page.on("console", lambda msg: self.console.append((msg.type, msg.text)))
        page.on("pageerror", lambda exc: self.page_errors.append(str(exc)))
        page.on("load", lambda _page: self._navigation("finished"))
        page.on("crash", lambda _page: self._terminated())
        page.on("dialog", self._on_dialog)
        page.on("filechooser", self._on_file_chooser)

    def _routed(self, source: Any, method: str, *args: Any) -> None:
        """A binding's call, to the view it came from; never from a page that is no view."""
        app = self._views.get(source.get("page"))
        if app is not None:
            getattr(app, method)(*args)

    # ---- what the page asks of its WebView (Host) ------------------------------------

    def _on_dialog(self, dialog: Any) -> None:
        kind = dialog.type
        if kind not in ("alert", "confirm", "prompt"):  # before-unload: leave the page
            with contextlib.suppress(Exception):
                dialog.accept()
            return
        origin = origin_of(self.page.url) if self.page is not None else ""
        answer = self._dialog(kind, dialog.message, dialog.default_value, origin)
        with contextlib.suppress(Exception):  # the page went away meanwhile
            if not answer.confirmed:
                dialog.dismiss()
            elif kind == "prompt":
                dialog.accept(answer.text or "")
            else:
                dialog.accept()

    def _on_file_chooser(self, chooser: Any) -> None:
        if self._file_chooser():
            name, media_type, data = PICKED_FILE
            chooser.set_files({"name": name, "mimeType": media_type, "buffer": data})
        # else nothing: the input gets no file, as with no chooser at all

    def _on_page(self, page: Any) -> None:
        """A page the app did not open: the page opened a new window (a popup).

        Chromium opens it (Playwright allows popups); the app's WebView would not: it is
        closed at once and the app decides where its URL goes (the kits never keep a second
        view). Chromium does not say whether a tap opened it: the harness's clicks are taps.
        """
        if self._opening[0]:
            return
        url = page.url
        with contextlib.suppress(Exception):
            page.close()
        self._new_window(url, gesture=True)

    def _to_view(self, request_or_response: Any, method: str) -> None:
        """A request's event, to the view whose page sent it. A request of no known page (a
        new window's, closed at once by :meth:`_on_page`; a detached frame's) is no view's,
        but its end is every view's (one of them may have counted it in flight)."""
        try:
            request = getattr(request_or_response, "request", request_or_response)
            app = self._views.get(request.frame.page)
        except Exception:  # noqa: BLE001 - a frame already gone
            app = None
        if app is not None:
            getattr(app, method)(request_or_response)
        elif method in ("_on_request_done", "_on_request_failed"):
            for view in list(self._views.values()):
                view._on_request_done(request_or_response)

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
            if self._page_crashed and (self.error_view or self.recovery_deferred):
                return  # dead on purpose: the error view, or a recovery deferred while away
            if self._page_crashed:  # reported, and the app left it dead: fail now
                raise AssertionError(
                    f"the web content process is dead and the view was not reloaded ({exc})"
                ) from None
            raise

    # ---- network bookkeeping -------------------------------------------------------

    def _on_request(self, request: Any) -> None:
        self._inflight_requests[request] = self.page
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
        self._inflight_requests.pop(request, None)

    def _on_request_failed(self, request: Any) -> None:
        self._on_request_done(request)
        failure = str(request.failure or "")
        if "ERR_ABORTED" in failure or self._page_crashed or self._recovering:
            return  # replaced by a newer navigation, or the view is going
        if self._main_frame_navigation(request) and origin_of(request.url) == self.widget_origin:
            self._load_failed(request.url, failure or "network error")

    def _inflight(self) -> int:
        return len(self._inflight_requests)

    def _on_response(self, response: Any) -> None:
        if response.status in NO_COMMIT and self._main_frame_navigation(response.request):
            self._navigation("failed")  # Chromium commits no 204 / 205: the page shown stays
            return
        if (
            response.status >= 400
            and self._main_frame_navigation(response.request)
            and origin_of(response.url) == self.widget_origin
        ):
            self._load_failed(response.url, f"HTTP {response.status}")
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
        _failed_load_is_an_event(lambda: self.page.reload(wait_until="commit"))

    def _navigate(self, url: str) -> None:
        _failed_load_is_an_event(lambda: self.page.goto(url, wait_until="commit"))

    def _load_again(self) -> None:
        if self._page_crashed:
            self._recreate_view()  # a crashed page loads nothing: a new page, as Chrome's tab
            return
        self._navigate(self.url)

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
            # A crashed page's requests end with no event: none of them is in flight any more.
            self._inflight_requests = {
                r: p for r, p in self._inflight_requests.items() if p is not dead
            }
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
