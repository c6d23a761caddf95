"""The demo's native app: what an app team writes around the WebView.

:class:`DemoApp` is host-agnostic: the Qt window and headless Chromium each give it a
:class:`WebViewHost` (``evaluate_js``) and call :meth:`DemoApp.page_finished` and
:meth:`DemoApp.on_bridge_message`, on one "app thread" the host chooses.

Installed after page finished, the bridge has usually missed ``gc-ready``: so, as on
Android, the app injects fresh ssoData right after installing it when its user is signed
in, and again on every ``gc-ready`` / ``gc-loaded`` / ``gc-sso-auth`` and login change.
ssoData is fetched fresh from the backend each time and never logged or put in a URL.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from gcbridge.demo.timeline import Timeline

__all__ = ["DemoApp", "WebViewHost", "LOGIN_TRIGGERS"]

LOGIN_TRIGGERS = ("gc-ready", "gc-loaded", "gc-sso-auth")

# reads the widget's session token key, not a secret
_READ_TOKEN = "(function(){try{return localStorage.getItem('gc_token')}catch(e){return null}})()"  # noqa: S105
# what the widget shows of its session: [data-gc-session, the session line's text]
_READ_SESSION_LINE = (
    "(function(){var p=document.querySelector('[data-testid=\"session\"]');"
    "return [document.documentElement.getAttribute('data-gc-session'),p?p.textContent:'']})()"
)


class WebViewHost(Protocol):
    """What the app needs from its WebView: evaluate JavaScript in the widget's top document."""

    def evaluate_js(self, script: str) -> Any:
        """Evaluate ``script`` in the page and return its (JSON-able) value."""


class DemoApp:
    """The app logic: its own sign-in, the bridge, ssoData injection, the widget's state."""

    def __init__(
        self,
        host: WebViewHost,
        timeline: Timeline,
        *,
        backend_url: str,
        emulator_url: str,
        bridge_source: str,
        bridge_version: str,
        install_at: str = "page-finished",
        login_key: str = "",
    ) -> None:
        import httpx

        self.host = host
        self.timeline = timeline
        self.bridge_source = bridge_source
        self.bridge_version = bridge_version
        self.install_at = install_at  # "page-finished" (Android) or "document-start" (host did it)
        self._backend = httpx.Client(base_url=backend_url, timeout=10)
        self._emulator = httpx.Client(base_url=emulator_url, timeout=10)
        self.username: str | None = None
        self._token: str | None = None
        self._login_key = login_key  # the run's key for the passwordless /app/login

    # -- WebView lifecycle -------------------------------------------------------------

    def page_finished(self) -> None:
        """onPageFinished: report a restored widget session, install the bridge, inject."""
        self.timeline.record("widget.loaded", "widget page finished loading (top-level document)")
        restored = self.widget_user()
        if restored is not None:
            self.timeline.record(
                "widget.restored",
                f"widget session restored from localStorage: signed in as {restored['username']} "
                "(before any injection)",
                username=restored["username"],
            )
        if self.install_at == "page-finished":
            self.host.evaluate_js(self.bridge_source)
            self.timeline.record(
                "bridge.installed", f"bridge.js {self.bridge_version} installed at page-finished"
            )
        if self.username is not None:
            self.inject_sso("page finished, app user signed in")

    def bridge_registered(self, how: str) -> None:
        """The host installed bridge.js before the page's scripts (``how`` names the mechanism)."""
        self.timeline.record(
            "bridge.installed",
            f"bridge.js {self.bridge_version} installed at document-start ({how})",
        )

    def on_bridge_message(self, raw: str) -> None:
        """A string forwarded by bridge.js: parse it and act on its ``name``."""
        try:
            message = json.loads(raw)
            name = message["name"]
        except (ValueError, TypeError, KeyError):
            self.timeline.record("bridge.dropped", "bridge sent a malformed message (dropped)")
            return
        extra = {k: v for k, v in message.items() if k != "name"}
        suffix = f" {json.dumps(extra)}" if extra else ""
        self.timeline.record("bridge.message", f"bridge message {name}{suffix}", name=name)
        if name in LOGIN_TRIGGERS:
            if self.username is not None:
                self.inject_sso(f"on {name}")
        elif name == "gc-sso-conflict":
            # a real app shows a resolution UI and has its backend re-issue ssoData with a
            # corrected username; the demo users never conflict, so say so and move on
            self.timeline.record(
                "sso.conflict", f"username conflict reported: {extra.get('username')!r}"
            )

    # -- the app's own login state -----------------------------------------------------

    def sign_in(self, username: str) -> None:
        """The app's own sign-in; a login-state change re-injects ssoData."""
        from gcbridge.demo.backend import LOGIN_KEY_HEADER

        answer = self._backend.post(
            "/app/login", json={"username": username}, headers={LOGIN_KEY_HEADER: self._login_key}
        )
        answer.raise_for_status()
        self._token = answer.json()["token"]
        self.username = username
        self.timeline.record(
            "app.signed_in", f"app: {username} signed in to the app", username=username
        )
        self.inject_sso("app login state changed")

    def sign_out(self) -> None:
        """The app's sign-out: gcSsoLogout() in the widget, then forget the app credential."""
        self.host.evaluate_js("window.gcSsoLogout && window.gcSsoLogout()")
        self.timeline.record("sso.logout", "gcSsoLogout() injected")
        who, self.username, self._token = self.username, None, None
        self.timeline.record("app.signed_out", f"app: {who} signed out of the app")

    def inject_sso(self, trigger: str) -> None:
        """Fetch fresh ssoData from the backend and inject ``gcSsoLogin`` at once."""
        answer = self._backend.get("/sso-data", headers={"Authorization": f"Bearer {self._token}"})
        answer.raise_for_status()
        sso_data = answer.json()["ssoData"]
        self.timeline.record(
            "sso.fetched",
            f"ssoData fetched from the backend ({trigger}; {len(sso_data)} chars, not logged)",
        )
        self.host.evaluate_js(f"window.gcSsoLogin({json.dumps(sso_data)})")
        self.timeline.record("sso.injected", "gcSsoLogin(ssoData) injected")

    # -- observing the widget (the demo's instruments, not app logic) ------------------

    def widget_user(self) -> dict[str, Any] | None:
        """Who the widget is signed in as: its stored session token, checked with /api/pub/me."""
        token = self.host.evaluate_js(_READ_TOKEN)
        if not token:
            return None
        me = self._emulator.get("/api/pub/me", headers={"Authorization": f"Bearer {token}"})
        if me.status_code != 200:
            return None
        user: dict[str, Any] = me.json()["user"]
        return user

    def session_line(self, signed_in: bool) -> str | None:
        """The widget's session line once it shows ``signed_in`` (else ``None``)."""
        state, text = self.host.evaluate_js(_READ_SESSION_LINE) or [None, ""]
        wanted = "signed-in" if signed_in else "signed-out"
        return str(text) if state == wanted and text else None

    def close(self) -> None:
        """Close the HTTP clients."""
        self._backend.close()
        self._emulator.close()
