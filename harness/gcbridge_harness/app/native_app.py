"""A native app around the widget, in either engine: the app of
docs/explanation/service.md#the-parties.

:class:`NativeApp` does what an iOS, Android or React Native app does:

1. calls thread-load and appends ``&api_public_key=`` (optional)
   (docs/explanation/service.md#loading-the-widget);
2. installs bridge.js at its injection point (see :mod:`gcbridge_harness.app.platforms`);
3. receives the widget's events through its platform's transport and reacts
   (:mod:`gcbridge_harness.app.decisions`): on ``gc-ready``, ``gc-loaded`` and
   ``gc-sso-auth`` (and, at page-finished, on page finished) it fetches fresh
   ssoData from the customer backend and injects ``window.gcSsoLogin(<JSON
   string>)``; on ``gc-sso-conflict`` it asks ``on_conflict(username)``;
4. re-injects when its own login state changes (:meth:`app_login`), calls
   ``window.gcSsoLogout()`` on :meth:`app_logout`;
5. answers what the page asks of its WebView (dialogs, the file chooser, new windows), shows
   its error view with Retry when the widget's page fails to load, and recovers a dead content
   process within a budget, as gc-bridge's kits do (:mod:`gcbridge_harness.app.host`);
6. records a :class:`Timeline` of all of it.

The engine underneath is a subclass: :class:`~gcbridge_harness.engines.chromium.ChromiumApp`
(Playwright) or :class:`~gcbridge_harness.engines.webkit.app.WebKitApp` (WebKitGTK).
What they share, and what scenarios may use in both, is here.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import replace
from typing import Any, ClassVar
from urllib.parse import quote, urlsplit

from gcbridge_harness.app.decisions import AppDecisions, Injection, LoginResponse
from gcbridge_harness.app.host import Host
from gcbridge_harness.app.navigation import SENDER_FRAME_KNOWN, document_message
from gcbridge_harness.app.options import APP_TRIGGERS, SITE_KEY, AppOptions
from gcbridge_harness.app.page_waits import PageWaits
from gcbridge_harness.app.platforms import (
    EVALUATED_AT_PAGE_FINISHED,
    PLATFORM_OF,
    InjectionPoint,
    at_page_finished,
)
from gcbridge_harness.report.leaks import SsoLeakChecker
from gcbridge_harness.report.timeline import Timeline, TimelineEntry

__all__ = [
    "NativeApp",
    "AppOptions",
    "Timeline",
    "TimelineEntry",
    "APP_TRIGGERS",
    "SITE_KEY",
    "LoginResponse",
    "Injection",
    "origin_of",
]


def origin_of(url: str) -> str:
    """``scheme://host:port`` of ``url``."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


class NativeApp(PageWaits, AppDecisions, Host):
    """One launch of the app: one WebView showing the widget."""

    engine: ClassVar[str] = ""
    isolated_world: bool = False  # bridge.js runs in a world of its own

    def __init__(self, runtime: Any, options: AppOptions) -> None:
        self.runtime = runtime  # the engine: a Playwright browser, a WebKit process
        self.options = options  # as launched; a relaunch replaces some of them
        service, backend = options.service, options.backend
        self.service = service
        self.backend = backend
        self.bridge = options.bridge
        self.injection_point: InjectionPoint = options.injection_point
        self.platform = PLATFORM_OF[options.injection_point]
        self.user = options.user  # the app's user now (app_login / app_logout change it)
        key = options.api_public_key
        self.api_public_key = service.api_public_key if key == SITE_KEY else key
        self.triggers = frozenset(options.triggers)
        self.sso_provider = options.sso_provider or backend.fetch_sso_data
        self.on_conflict = options.on_conflict
        self.injections = options.injections
        self.inject_early = options.inject_early
        self.dom_storage = options.dom_storage
        self.storage_state = options.storage_state
        self.bypass_csp = options.bypass_csp
        self.comments_after_page_finished = options.comments_after_page_finished
        self.late_transport = options.late_transport
        self.frames_from = options.frames_from
        self.request_log = options.request_log
        self._frames: Any = None
        self.uid = options.uid or f"harness-{secrets.token_hex(6)}"
        self.page_title = options.page_title
        self.thread_url = f"https://news.example.com/articles/{self.uid}"
        self._registry = options.registry
        self.clock = options.clock
        self.bfcache = options.bfcache
        self.page_finished_twice = options.page_finished_twice
        self.share_view_with = options.share_view_with

        self.widget_origin = origin_of(service.base_url)
        self.timeline = Timeline()
        self.leaks = SsoLeakChecker(login_origin=self.widget_origin)
        self.received: list[str] = []  # raw strings the native side got
        self.messages: list[dict[str, Any]] = []  # ... parsed, with a string name
        self.refused: list[str] = []  # sent from another frame or origin: not accepted
        self.violations: list[str] = []  # transport misuse by the bridge
        self.injected: list[Injection] = []
        self.conflicts: list[str | None] = []
        self.login_responses: list[LoginResponse] = []
        self.requests: list[tuple[str, str]] = []  # (method, url) of every request seen
        self.console: list[tuple[str, str]] = []
        self.page_errors: list[str] = []
        self.app_errors: list[str] = []  # the app's own failures (backend down...)
        self.url = ""
        self.loaded = False
        self.opened_at = 0.0
        self.ready_at: float | None = None  # first gc-ready / gc-loaded, seconds after open
        self._finished = False

    # ---- what each engine provides -------------------------------------------------

    def _open_view(self, early: str) -> None:
        raise NotImplementedError

    def _load(self, url: str) -> None:
        raise NotImplementedError

    def _close_view(self) -> None:
        raise NotImplementedError

    def _kept_storage(self) -> Any:
        """What a relaunch on the same profile finds (``storage_state=``)."""
        raise NotImplementedError

    def _release_comments(self) -> None:
        raise NotImplementedError

    def _run_script(self, source: str) -> None:
        """Run ``source`` as a global script where bridge.js runs (``evaluateJavascript``)."""
        raise NotImplementedError

    def evaluate(self, script: str, arg: Any = None, *, world: str = "page") -> Any:
        """Run ``script`` (an expression or a function of ``arg``) and return its JSON value.

        ``world="bridge"`` runs it where bridge.js runs (its isolated world, if any).
        """
        raise NotImplementedError

    def add_frame(self, url: str) -> None:
        """Append an ``<iframe src=url>`` to the widget page."""
        self.evaluate(
            """(url) => { const f = document.createElement('iframe');
                          f.src = url; document.body.appendChild(f); }""",
            url,
        )

    def expose_transport(self) -> None:
        """A late transport arrives (``late_transport=True``): install it, fire pywebviewready."""
        self.timeline.add("transport exposed")
        self.evaluate(
            "() => { window.__gcHarnessExposeTransport();"
            " window.dispatchEvent(new Event('pywebviewready')); }"
        )

    # ---- launch ------------------------------------------------------------------

    def launch(self) -> NativeApp:
        """Open the WebView: thread-load, install the bridge, load gc_url."""
        if self._registry is not None:
            self._registry.append(self)
        self.timeline = Timeline()
        self.opened_at = time.monotonic()
        early = self._early_login_script() if self.inject_early else ""
        if self.frames_from:
            # The widget's CSP keeps frames out; this test page must get in.
            self._frames = self.request_log.allow_frames(self.frames_from)
            self._frames.__enter__()
        self._open_view(early)
        gc_url = self.service.thread_load(
            uid=self.uid, url=self.thread_url, page_title=self.page_title
        )
        self.timeline.add("thread-load", f"uid {self.uid}: gc_url issued")
        self.url = gc_url + (
            f"&api_public_key={quote(self.api_public_key, safe='')}" if self.api_public_key else ""
        )
        self.timeline.add("load", self.url)
        self._load(self.url)
        self.loaded = True
        if self.injection_point in EVALUATED_AT_PAGE_FINISHED:
            if self.options.race_lost and self.injection_point == "page-started":
                self._evaluate_after_the_race()
            self.timeline.add("page finished")
            self._evaluate_bridge()
            if early:
                self._run_script(at_page_finished(early))
        self._page_finished_once()  # the platform's page-finished callback of this document
        if self.page_finished_twice and self.platform == "android":
            self._page_finished_again()
        self.__dict__["_documents"] = 1
        self.__dict__["_live"] = True  # later documents are the lifecycle's (Lifecycle)
        self._release_comments()
        return self

    def _evaluate_after_the_race(self) -> None:
        """``race_lost``: the evaluation at page started lands once gc-ready and gc-loaded went."""

        def loaded_emitted() -> bool:
            emitted = self.timeline.find("widget emitted")
            return any(e.detail.startswith("gc-loaded") for e in emitted)

        self.wait_for(loaded_emitted, "the widget's gc-loaded, before the bridge (the race lost)")
        self.timeline.add("bridge evaluated", "at page started, after gc-ready and gc-loaded")
        self._evaluate_bridge()

    def relaunch(self, **overrides: Any) -> NativeApp:
        """Quit (keeping the profile's storage) and launch again on the same thread.

        Every option is kept (the app's user as it is now), but for ``overrides``.
        """
        state = self._kept_storage()
        self.finish()
        kept = {"user": self.user, "uid": self.uid, "storage_state": state}
        options = replace(self.options, **{**kept, **overrides})
        return type(self)(self.runtime, options).launch()

    def _evaluate_call(self, call: str) -> str | None:
        script = f"(() => {{ try {{ {call}; return null; }} catch (e) {{ return String(e); }} }})()"
        try:
            error: str | None = self.evaluate(script, world="bridge")
        except Exception as exc:  # noqa: BLE001 - a navigating or closed page: evaluateJavascript fails too
            error = f"{type(exc).__name__}: {exc}"
        if error:
            self.timeline.add("injection failed", error)
        return error

    def _native(self, platform: str, kind: str, text: str, *, top: bool, origin: str) -> None:
        """A message reached the native side, from a frame that is ``top`` or not, of ``origin``.

        The app checks what its platform tells it: the frame and its origin (iOS, Android),
        the sending frame's origin alone (React Native's ``nativeEvent.url``).
        """
        frame_known = SENDER_FRAME_KNOWN[self.injection_point]
        if origin != self.widget_origin or (frame_known and not top):
            where = "another origin" if origin != self.widget_origin else "a subframe"
            self._on_refused(text, f"{where} ({origin}{'' if top else ', a subframe'})")
            return
        complete = document_message(text) if platform == "react-native" else None
        if complete is not None:
            self._document_message(complete)  # the React Native kit's lifecycle script
            return
        if self.ready_at is None and '"gc-' in text:
            self.ready_at = time.monotonic() - self.opened_at
        self._on_native(platform, kind, text)

    # ---- end -----------------------------------------------------------------------

    def check(self) -> None:
        """The end-of-scenario checks: no ssoData leak, no transport misuse, no page error."""
        self._check_leaks()
        assert not self.violations, f"the bridge misused the native transport: {self.violations}"
        assert not self.page_errors, f"uncaught errors in the page: {self.page_errors}"
        assert not self.app_errors, f"the app failed while reacting: {self.app_errors}"

    def _check_leaks(self) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        """Run :meth:`check` and close the WebView."""
        if self._finished:
            return
        self._finished = True
        try:
            self.check()
        finally:
            self.close()

    def close(self) -> None:
        """Close the WebView without checks."""
        self._finished = True
        try:
            self._close_view()
        finally:
            if self._frames is not None:
                self._frames.__exit__(None, None, None)
                self._frames = None
