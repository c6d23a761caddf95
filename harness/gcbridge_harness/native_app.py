"""A native app around the widget, driven in Chromium: the app of spec 6.2.

:class:`NativeApp` does what an iOS, Android or React Native app does:

1. calls thread-load (spec 4.1) and appends ``&api_public_key=`` (optional);
2. installs bridge.js at its injection point (see :mod:`gcbridge_harness.platforms`);
3. receives the widget's events through its platform's transport and reacts:
   on ``gc-ready``, ``gc-loaded`` and ``gc-sso-auth`` (and, at page-finished, on
   page finished) it fetches fresh ssoData from the customer backend and injects
   ``window.gcSsoLogin(<JSON string>)``; on ``gc-sso-conflict`` it asks
   ``on_conflict(username)`` for a corrected username, renames the user on the
   backend and injects again;
4. re-injects when its own login state changes (:meth:`app_login`), calls
   ``window.gcSsoLogout()`` on :meth:`app_logout`;
5. records a :class:`Timeline` of all of it.

Reactions happen inside the transport callback, as in a real app, so scenarios
can wait with Playwright's ``expect`` and the app keeps reacting meanwhile.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import quote, urlsplit

from gcbridge_harness import observe
from gcbridge_harness.backend import AppUser, CustomerBackend
from gcbridge_harness.decisions import (
    DEFAULT_TRIGGERS,
    AppDecisions,
    Injection,
    LoginResponse,
)
from gcbridge_harness.driver import ChromiumDriver, origin_of
from gcbridge_harness.leaks import SsoLeakChecker
from gcbridge_harness.platforms import (
    BINDING,
    NO_DOM_STORAGE_SCRIPT,
    PLATFORM_OF,
    InjectionPoint,
    at_document_end,
    at_document_start,
    at_page_finished,
    shim_script,
)
from gcbridge_harness.service import ServiceClient
from gcbridge_harness.timeline import Timeline, TimelineEntry
from gcbridge_harness.widget_view import WidgetView

__all__ = [
    "NativeApp",
    "Timeline",
    "TimelineEntry",
    "DEFAULT_TRIGGERS",
    "SITE_KEY",
    "LoginResponse",
    "Injection",
]

SITE_KEY = "site"
"""``api_public_key=SITE_KEY``: the site's real key. ``None`` leaves the parameter out."""


class NativeApp(AppDecisions, ChromiumDriver):
    """One launch of the app: a browser context with one WebView page."""

    def __init__(
        self,
        browser: Any,
        *,
        service: ServiceClient,
        backend: CustomerBackend,
        bridge: str,
        injection_point: InjectionPoint,
        user: AppUser | None = None,
        api_public_key: str | None = SITE_KEY,
        triggers: Iterable[str] = DEFAULT_TRIGGERS,
        sso_provider: Callable[[AppUser], str] | None = None,
        on_conflict: Callable[[str], str | None] | None = None,
        injections: int = 1,
        inject_early: bool = False,
        dom_storage: bool = True,
        storage_state: Any = None,
        bypass_csp: bool = False,
        comments_after_page_finished: bool = False,
        uid: str | None = None,
        page_title: str = "Harness thread",
        registry: list[NativeApp] | None = None,
    ) -> None:
        self.browser = browser
        self.service = service
        self.backend = backend
        self.bridge = bridge
        self.injection_point: InjectionPoint = injection_point
        self.platform = PLATFORM_OF[injection_point]
        self.user = user
        self.api_public_key = (
            service.api_public_key if api_public_key == SITE_KEY else api_public_key
        )
        self.triggers = frozenset(triggers)
        self.sso_provider = sso_provider or backend.fetch_sso_data
        self.on_conflict = on_conflict
        self.injections = injections
        self.inject_early = inject_early
        self.dom_storage = dom_storage
        self.storage_state = storage_state
        self.bypass_csp = bypass_csp
        self.comments_after_page_finished = comments_after_page_finished
        self.uid = uid or f"harness-{secrets.token_hex(6)}"
        self.page_title = page_title
        self.thread_url = f"https://news.example.com/articles/{self.uid}"
        self._registry = registry

        self.timeline = Timeline()
        self.leaks = SsoLeakChecker(login_origin=origin_of(service.base_url))
        self.received: list[str] = []  # raw strings the native side got
        self.messages: list[dict[str, Any]] = []  # ... parsed, with a string name
        self.violations: list[str] = []  # transport misuse by the bridge
        self.injected: list[Injection] = []
        self.conflicts: list[str | None] = []
        self.login_responses: list[LoginResponse] = []
        self.requests: list[tuple[str, str]] = []  # (method, url) of every browser request
        self.console: list[tuple[str, str]] = []
        self.page_errors: list[str] = []
        self.app_errors: list[str] = []  # the app's own failures (backend down...)
        self.context: Any = None
        self.page: Any = None
        self.url = ""
        self._inflight = 0
        self._held: list[Any] = []
        self._comments_released = not comments_after_page_finished
        self._finished = False

    # ---- launch ------------------------------------------------------------------

    def launch(self) -> NativeApp:
        """Open the WebView: thread-load, install the bridge, load gc_url."""
        if self._registry is not None:
            self._registry.append(self)
        self.timeline = Timeline()
        context = self.browser.new_context(
            bypass_csp=self.bypass_csp, storage_state=self.storage_state, service_workers="block"
        )
        self.context = context
        self.leaks.watch(context)
        context.on("request", self._on_request)
        context.on("requestfinished", self._on_request_done)
        context.on("requestfailed", self._on_request_done)
        context.on("response", self._on_response)
        context.expose_binding(BINDING, self._on_native)
        observe.attach(self)  # probe, page errors, trace: the failure timeline and report
        context.add_init_script(shim_script(self.platform))
        if not self.dom_storage:
            context.add_init_script(NO_DOM_STORAGE_SCRIPT)
        if self.comments_after_page_finished:
            context.route(
                lambda url: urlsplit(url).path == "/api/pub/comments", self._hold_comments
            )

        early = self._early_login_script() if self.inject_early else ""
        if self.injection_point == "document-start":
            for _ in range(self.injections):
                context.add_init_script(at_document_start(self.bridge))
            if early:
                context.add_init_script(at_document_start(early))
        elif self.injection_point == "document-end":
            for _ in range(self.injections):
                context.add_init_script(at_document_end(self.bridge))
            if early:
                context.add_init_script(at_document_end(early))

        page = context.new_page()
        self.page = page
        page.on("console", lambda msg: self.console.append((msg.type, msg.text)))
        page.on("pageerror", lambda exc: self.page_errors.append(str(exc)))

        gc_url = self.service.thread_load(
            uid=self.uid, url=self.thread_url, page_title=self.page_title
        )
        self.timeline.add("thread-load", f"uid {self.uid}: gc_url issued")
        self.url = gc_url + (
            f"&api_public_key={quote(self.api_public_key, safe='')}" if self.api_public_key else ""
        )
        self.timeline.add("load", self.url)
        page.goto(self.url, wait_until="load")

        if self.injection_point == "page-finished":
            self.timeline.add("page finished")
            for _ in range(self.injections):
                page.evaluate(at_page_finished(self.bridge))
            if early:
                page.evaluate(at_page_finished(early))
            if "page-finished" in self.triggers:
                self._inject_login("page-finished")
        self._release_comments()
        return self

    def relaunch(self, **overrides: Any) -> NativeApp:
        """Quit (keeping the profile's storage) and launch again on the same thread."""
        state = self.context.storage_state()
        self.finish()
        options: dict[str, Any] = {
            "service": self.service,
            "backend": self.backend,
            "bridge": self.bridge,
            "injection_point": self.injection_point,
            "user": self.user,
            "api_public_key": self.api_public_key,
            "triggers": self.triggers,
            "sso_provider": self.sso_provider,
            "on_conflict": self.on_conflict,
            "uid": self.uid,
            "page_title": self.page_title,
            "storage_state": state,
            "registry": self._registry,
        }
        options.update(overrides)
        return NativeApp(self.browser, **options).launch()

    @property
    def widget(self) -> WidgetView:
        """The widget page as a user sees it."""
        return WidgetView(self.page)

    # ---- end -----------------------------------------------------------------------

    def check(self) -> None:
        """The end-of-scenario checks: no ssoData leak, no transport misuse, no page error."""
        self.leaks.check(
            self.context if self.context is not None and self.page is not None else None
        )
        assert not self.violations, f"the bridge misused the native transport: {self.violations}"
        assert not self.page_errors, f"uncaught errors in the page: {self.page_errors}"
        assert not self.app_errors, f"the app failed while reacting: {self.app_errors}"

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
        if self.context is not None:
            observe.before_close(self)  # the report's screenshot and trace
            # The browser may already be gone at the end of the session.
            with contextlib.suppress(Exception):
                self.context.close()
            self.context = None
