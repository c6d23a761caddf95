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
import json
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

from gcbridge_harness.backend import AppUser, CustomerBackend
from gcbridge_harness.leaks import LOGIN_PATH, SsoLeakChecker
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
from gcbridge_harness.widget_view import WidgetView

__all__ = [
    "NativeApp",
    "Timeline",
    "TimelineEntry",
    "DEFAULT_TRIGGERS",
    "SITE_KEY",
    "LoginResponse",
]

DEFAULT_TRIGGERS = frozenset({"gc-ready", "gc-loaded", "gc-sso-auth", "page-finished"})
"""What makes the app fetch and inject ssoData (spec 6.2; page-finished is the Android habit)."""

SITE_KEY = "site"
"""``api_public_key=SITE_KEY``: the site's real key. ``None`` leaves the parameter out."""

MAX_CONFLICT_ROUNDS = 3


@dataclass(frozen=True)
class TimelineEntry:
    """One thing the app saw or did, ``at`` seconds after launch."""

    at: float
    kind: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.at * 1000:8.1f} ms  {self.kind:<18} {self.detail}"


@dataclass
class Timeline:
    """What the app saw and did, in order."""

    entries: list[TimelineEntry] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    def add(self, kind: str, detail: str = "") -> None:
        """Append an entry stamped with the time since launch."""
        self.entries.append(TimelineEntry(time.monotonic() - self.started, kind, detail))

    def kinds(self) -> list[str]:
        """The entry kinds, in order."""
        return [entry.kind for entry in self.entries]

    def format(self) -> str:
        """One line per entry, for logs and the demo."""
        return "\n".join(str(entry) for entry in self.entries)


@dataclass(frozen=True)
class LoginResponse:
    """An answer of ``POST /api/pub/sso/login`` seen by the browser."""

    status: int
    error: str | None


@dataclass(frozen=True)
class Injection:
    """One ``gcSsoLogin`` the app injected, and why."""

    trigger: str
    sso_data: str
    error: str | None = None


class NativeApp:
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
        self.leaks = SsoLeakChecker(login_origin=_origin(service.base_url))
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

    # ---- the app's own login state (spec 6.2: re-inject when it changes) -----------

    def app_login(self, user: AppUser) -> None:
        """The app's user signs in (or another one does): inject fresh ssoData."""
        self.user = user
        self.timeline.add("app login", user.username)
        self._inject_login("app-login")

    def app_logout(self) -> None:
        """The app's user signs out: ``window.gcSsoLogout()``."""
        self.user = None
        self.timeline.add("app logout")
        self.timeline.add("inject gcSsoLogout")
        self._evaluate_call("window.gcSsoLogout()")

    # ---- reactions -----------------------------------------------------------------

    def _on_native(self, source: Any, platform: str, kind: str, text: str) -> None:
        frame = source.get("frame")
        if self.page is not None and frame is not None and frame is not self.page.main_frame:
            self._violation(f"native object called from a subframe: {text[:80]!r}")
            return
        if kind != "string":
            self._violation(f"{platform} transport got a {kind}, not a string: {text[:80]!r}")
            if platform == "ios":
                return  # the app's `body as? String` is nil
        self.received.append(text)
        self.timeline.add("native received", text[:200])
        try:
            message = json.loads(text)
        except ValueError:
            self.timeline.add("native dropped", "not JSON")
            return
        if not isinstance(message, dict) or not isinstance(message.get("name"), str):
            self.timeline.add("native dropped", "no name")
            return
        self.messages.append(message)
        name = message["name"]
        try:
            if name == "gc-sso-conflict":
                self._resolve_conflict(message.get("username"))
            elif name in self.triggers:
                self._inject_login(name)
        except Exception as exc:  # noqa: BLE001 - reported by check(), never thrown into the page
            self.app_errors.append(f"{name}: {type(exc).__name__}: {exc}")
            self.timeline.add("app error", self.app_errors[-1])

    def _violation(self, what: str) -> None:
        self.violations.append(what)
        self.timeline.add("transport violation", what)

    def _inject_login(self, trigger: str) -> None:
        if self.user is None:
            self.timeline.add("no login", f"{trigger}: nobody signed in to the app")
            return
        sso_data = self.sso_provider(self.user)
        self.leaks.remember(sso_data)
        self.timeline.add("inject gcSsoLogin", f"after {trigger}, as {self.user.username}")
        # What a native app evaluates: the ssoData as a JSON string literal.
        error = self._evaluate_call(f"window.gcSsoLogin({json.dumps(sso_data)})")
        self.injected.append(Injection(trigger, sso_data, error))

    def _evaluate_call(self, call: str) -> str | None:
        script = f"(() => {{ try {{ {call}; return null; }} catch (e) {{ return String(e); }} }})()"
        try:
            error: str | None = self.page.evaluate(script)
        except Exception as exc:  # noqa: BLE001 - a navigating or closed page: evaluateJavascript fails too
            error = f"{type(exc).__name__}: {exc}"
        if error:
            self.timeline.add("injection failed", error)
        return error

    def _resolve_conflict(self, username: Any) -> None:
        self.conflicts.append(username if isinstance(username, str) else None)
        self.timeline.add("conflict", repr(username))
        if self.on_conflict is None or self.user is None or not isinstance(username, str):
            return
        if username.casefold() != self.user.username.casefold():
            # An answer to ssoData injected before the correction: already resolved.
            self.timeline.add("conflict stale", f"the app's user is now {self.user.username}")
            return
        if len(self.conflicts) > MAX_CONFLICT_ROUNDS:
            self.timeline.add("conflict unresolved", "too many rounds")
            return
        corrected = self.on_conflict(username)
        if not corrected:
            return
        self.user = self.backend.rename(self.user, corrected)
        self.timeline.add("username corrected", corrected)
        self._inject_login("gc-sso-conflict")

    def _early_login_script(self) -> str:
        if self.user is None:
            return ""
        sso_data = self.sso_provider(self.user)
        self.leaks.remember(sso_data)
        self.injected.append(Injection("early", sso_data))
        self.timeline.add(
            "inject gcSsoLogin", f"early, at {self.injection_point}, as {self.user.username}"
        )
        return f"try {{ window.gcSsoLogin({json.dumps(sso_data)}); }} catch (e) {{}}"

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
            storage_id = {"securityOrigin": _origin(self.page.url), "isLocalStorage": True}
            entries = cdp.send("DOMStorage.getDOMStorageItems", {"storageId": storage_id})[
                "entries"
            ]
        finally:
            cdp.detach()
        return {key: value for key, value in entries}

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
            # The browser may already be gone at the end of the session.
            with contextlib.suppress(Exception):
                self.context.close()
            self.context = None


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
