"""The app's decisions (spec 6.2): when to fetch ssoData and inject it, how to answer a conflict.

:class:`AppDecisions` is mixed into :class:`~gcbridge_harness.native_app.NativeApp`;
it reacts to what the bridge forwards (``_on_native``) and to the app's own login
state (``app_login``/``app_logout``), and asks the engine only to evaluate
a call in the page (``_evaluate_call``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from gcbridge_harness.backend import AppUser

__all__ = ["AppDecisions", "DEFAULT_TRIGGERS", "Injection", "LoginResponse", "MAX_CONFLICT_ROUNDS"]

DEFAULT_TRIGGERS = frozenset({"gc-ready", "gc-loaded", "gc-sso-auth", "page-finished"})
"""What makes the app fetch and inject ssoData (spec 6.2; page-finished is the Android habit)."""

MAX_CONFLICT_ROUNDS = 3


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


class AppDecisions:
    """What the app does when the widget speaks or its own login state changes."""

    # Provided by NativeApp.
    user: Any
    timeline: Any
    triggers: frozenset[str]

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

    def _on_native(self, platform: str, kind: str, text: str) -> None:
        """A message from the widget's main frame (the engine checked frame and origin)."""
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
        # Recorded first: while the engine evaluates, the app may already react to the
        # next event (as a native app does while evaluateJavaScript runs).
        index = len(self.injected)
        self.injected.append(Injection(trigger, sso_data))
        # What a native app evaluates: the ssoData as a JSON string literal.
        error = self._evaluate_call(f"window.gcSsoLogin({json.dumps(sso_data)})")
        if error:
            self.injected[index] = Injection(trigger, sso_data, error)

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
