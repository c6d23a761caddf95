"""What the app does when its user signs in or out, and what the widget then shows.

One place for both modes: the scripted flow (headless and desktop) and the desktop
window's app bar (:class:`AppActions`, the panel's model, no Qt in it) sign in with
:func:`sign_in_and_watch` and out with :func:`sign_out_and_watch`, so the timeline
says "widget signed in as ..." and "widget signed out" however the sign-in came.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from gcbridge.demo.app import DemoApp
from gcbridge.demo.stopping import DemoStopped

__all__ = ["AppDriver", "AppActions", "sign_in_and_watch", "sign_out_and_watch", "widget_signed_in"]

T = TypeVar("T")


class AppDriver(Protocol):
    """How the app thread is reached and waited on without stalling the host (``FlowDriver``)."""

    def call(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the app thread and return its result."""

    def wait_until(self, check: Callable[[], T | None], timeout: float) -> T | None:
        """Poll ``check`` on the app thread until it returns a value; ``None`` on timeout."""


def widget_signed_in(
    app: DemoApp, driver: AppDriver, username: str, timeout: float
) -> dict[str, Any] | None:
    """Wait until the widget's session is ``username``; record ``widget.signed_in`` then."""

    def signed_in() -> dict[str, Any] | None:
        user = app.widget_user()
        return user if user is not None and user.get("username") == username else None

    user = driver.wait_until(signed_in, timeout)
    if user is not None:
        app.timeline.record(
            "widget.signed_in",
            f"widget signed in as {user['username']} ({user.get('name')})",
            username=user["username"],
        )
    return user


def sign_in_and_watch(
    app: DemoApp, driver: AppDriver, username: str, timeout: float
) -> dict[str, Any] | None:
    """The app's sign-in (it injects ssoData), then :func:`widget_signed_in`."""
    driver.call(lambda: app.sign_in(username))
    return widget_signed_in(app, driver, username, timeout)


def sign_out_and_watch(app: DemoApp, driver: AppDriver, timeout: float) -> bool:
    """The app's sign-out (``gcSsoLogout()``); record ``widget.signed_out`` once it took."""
    driver.call(app.sign_out)
    gone = driver.wait_until(lambda: True if app.widget_user() is None else None, timeout)
    if gone:
        app.timeline.record("widget.signed_out", "widget signed out (gc_token removed)")
    return bool(gone)


def _in_thread(fn: Callable[[], None]) -> None:
    threading.Thread(target=fn, name="app-action", daemon=True).start()


class AppActions:
    """The app bar's buttons: each runs on the app thread, then watches the widget.

    Called from the GUI thread, which must never wait: ``spawn`` runs each action
    elsewhere (a thread of its own by default; tests pass one that runs it inline).
    """

    def __init__(
        self,
        app: DemoApp,
        driver: AppDriver,
        *,
        timeout: float,
        spawn: Callable[[Callable[[], None]], None] = _in_thread,
    ) -> None:
        self._app = app
        self._driver = driver
        self._timeout = timeout
        self._spawn = spawn

    def _run(self, action: Callable[[], object]) -> None:
        def run() -> None:
            try:
                action()
            except DemoStopped:
                pass  # the window closed while the widget was watched
            except Exception as exc:  # noqa: BLE001 - shown in the panel, the window stays
                self._app.timeline.record("demo.error", f"{type(exc).__name__}: {exc}")

        self._spawn(run)

    def sign_in(self, username: str) -> None:
        """Sign ``username`` in to the app; the panel then shows the widget signed in."""
        self._run(lambda: sign_in_and_watch(self._app, self._driver, username, self._timeout))

    def sign_out(self) -> None:
        """Sign the app's user out; the panel then shows the widget signed out."""
        self._run(lambda: sign_out_and_watch(self._app, self._driver, self._timeout))
