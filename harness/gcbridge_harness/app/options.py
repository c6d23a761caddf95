"""What a launch of the app is given: :class:`AppOptions`, one frozen dataclass.

Every option of :class:`~gcbridge_harness.app.native_app.NativeApp` lives here, so that a
relaunch (:meth:`NativeApp.relaunch`) is ``dataclasses.replace`` of the options it was
launched with: an option added here is kept by a relaunch without anyone remembering to copy it.
``native_app(point, **options)`` (the pytest fixture) builds one from its keywords.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from gcbridge_harness.app.platforms import InjectionPoint
from gcbridge_harness.coordinator import DEFAULT_TRIGGERS
from gcbridge_harness.world.backend import AppUser, CustomerBackend
from gcbridge_harness.world.service import ServiceClient

__all__ = ["AppOptions", "APP_TRIGGERS", "SITE_KEY"]

SITE_KEY = "site"
"""``api_public_key=SITE_KEY``: the site's real key. ``None`` leaves the parameter out."""

APP_TRIGGERS = DEFAULT_TRIGGERS | {"page-finished"}
"""What makes the app fetch and inject ssoData, by default: the coordinator's
``DEFAULT_TRIGGERS`` (docs/explanation/service.md#the-widgets-events), and page-finished
where the platform has it as a trigger (Android, React Native on Android), as the kits'
``ANDROID_TRIGGERS``; a launch elsewhere drops it (``AppDecisions``)."""


@dataclass(frozen=True)
class AppOptions:
    """One launch's options (see harness/README.md, "Use the fixtures in your own tests")."""

    service: ServiceClient
    backend: CustomerBackend
    bridge: str  # the bridge.js under test
    injection_point: InjectionPoint
    user: AppUser | None = None  # the app's signed-in user
    api_public_key: str | None = SITE_KEY
    triggers: Iterable[str] = APP_TRIGGERS
    sso_provider: Callable[[AppUser], str] | None = None  # replaces the backend's ssoData
    on_conflict: Callable[[str], str | None] | None = None  # the resolution UI
    injections: int = 1  # bridge.js installed this many times
    inject_early: bool = False  # a gcSsoLogin at the injection point, before any decision
    dom_storage: bool = True
    storage_state: Any = None  # what a relaunch finds (the profile kept)
    bypass_csp: bool = False  # Chromium only
    comments_after_page_finished: bool = False
    late_transport: bool = False  # no transport until app.expose_transport()
    frames_from: str | None = None  # an origin the widget may frame
    request_log: Any = None  # the emulator's (gcbridge.emulator.requestlog)
    uid: str | None = None  # the thread (a new one by default)
    page_title: str = "Harness thread"
    registry: list[Any] | None = field(default=None, compare=False)  # the launched NativeApps
    clock: Any = None  # the harness's (backend and emulator): resume() moves it
    bfcache: bool | None = None  # None: the engine's default (WebKit on, Playwright's off)
    page_finished_twice: bool = False  # Android's onPageFinished, twice for one document
    share_view_with: Any = field(default=None, compare=False)  # a NativeApp: its second WebView
    # The app lets signed-out users keep a session of the service's own accounts (the
    # coordinator's keep_widget_session; by default a ready widget is signed out then).
    keep_widget_session: bool = False
    # The app's own code run as each new document commits, before the widget in it is ready
    # (the launch's first document too): a sign-out or a user switch while the page loads.
    on_commit: Callable[[Any], None] | None = field(default=None, compare=False)
    # page-started (React Native on Android): the evaluation at page started lands after the
    # widget's gc-ready and gc-loaded went out (the race lost), in the launch's document.
    race_lost: bool = False
    # The kit's handling around the page; False: the platform's default without it.
    # web_chrome: the WKUIDelegate (iOS) / WebChromeClient (Android): dialogs, the file chooser,
    # new windows (React Native: react-native-webview's own, either way).
    web_chrome: bool = True
    # error_view: onLoadError and the error view with Retry when the widget's page fails to load.
    error_view: bool = True
    # crash_guard: a dead process's recovery deferred while away, 3 a minute, then the error view
    # (False: a reload at once, every time, as the kits did before the guard).
    crash_guard: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "triggers", frozenset(self.triggers))
