"""The app's decisions, taken by the protocol coordinator and performed here
(docs/explanation/service.md#the-widgets-events).

:class:`AppDecisions` is mixed into :class:`~gcbridge_harness.app.native_app.NativeApp`;
it hands what the bridge forwards (``_on_native``), page finished and the app's own
login state (``app_login``/``app_logout``) to a
:class:`~gcbridge_harness.coordinator.SsoCoordinator`, which decides (when to fetch,
inject, sign out, ask the conflict UI, discard a stale answer), and performs the
effects it returns: fetch ssoData from the customer backend, ask ``on_conflict``,
and ask the engine to evaluate a call in the page (``_evaluate_call``).
The same coordinator is held to ``bridge/protocol/app-protocol.json``, like the kits'.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from gcbridge_harness.app.options import APP_TRIGGERS
from gcbridge_harness.app.platforms import EVALUATED_AT_PAGE_FINISHED
from gcbridge_harness.coordinator import MAX_CONFLICT_ROUNDS, Effect, SsoCoordinator
from gcbridge_harness.world.backend import AppUser

__all__ = ["AppDecisions", "APP_TRIGGERS", "Injection", "LoginResponse", "MAX_CONFLICT_ROUNDS"]


DROPPED = frozenset({"foreign", "oversized", "too-deep", "malformed", "unnamed"})


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
    options: Any  # AppOptions
    refused: list[str]
    loaded: bool = False  # the WebView has loaded gc_url

    # ---- the coordinator -------------------------------------------------------------

    def _coordinator(self) -> SsoCoordinator:
        """This launch's coordinator (made on first use; a relaunch is a new NativeApp)."""
        existing: SsoCoordinator | None = self.__dict__.get("_sso_coordinator")
        if existing is None:
            # Page finished is a trigger where bridge.js may miss gc-ready and gc-loaded: Android,
            # React Native on Android.
            triggers = set(self.triggers)
            if self.injection_point not in EVALUATED_AT_PAGE_FINISHED:
                triggers.discard("page-finished")
            user = self.user.id if self.user is not None else None
            # The harness app injects even without api_public_key, which the widget then ignores
            # silently (docs/explanation/service.md#loading-the-widget).
            existing = SsoCoordinator(
                user=user,
                sso=True,
                triggers=frozenset(triggers),
                keep_widget_session=self.options.keep_widget_session,
            )
            self.__dict__["_sso_coordinator"] = existing
        return existing

    def _page_finished_once(self) -> None:
        """The launch's document finished loading: the platform's page-finished callback.

        Later documents' come from :meth:`Lifecycle._navigation`; the coordinator decides
        whether page finished is a trigger (Android, React Native on Android) or only says
        the page is there.
        """
        if self.__dict__.get("_page_finished_seen") or not self.loaded:
            return
        self.__dict__["_page_finished_seen"] = True
        self._perform(self._coordinator().page_finished())

    # ---- the app's own login state: re-inject when it changes ----------------------
    # (docs/explanation/service.md#handling-ssodata)

    def app_login(self, user: AppUser) -> None:
        """The app's user signs in (or another one does): inject fresh ssoData."""
        self.user = user
        self.timeline.add("app login", user.username)
        self._perform(self._coordinator().app_login(user.id))

    def app_logout(self) -> None:
        """The app's user signs out: ``window.gcSsoLogout()``."""
        self.user = None
        self.timeline.add("app logout")
        self._perform(self._coordinator().app_logout())

    # ---- reactions -----------------------------------------------------------------

    def _on_refused(self, text: str, where: str) -> None:
        """A message from another frame or origin: not accepted; the coordinator ignores it."""
        self.refused.append(text)
        self.timeline.add("native refused", f"from {where}: {text[:80]!r}")
        self._perform(self._coordinator().message(text, from_widget=False))

    def _on_native(self, platform: str, kind: str, text: str) -> None:
        """A message from the widget's main frame (the engine checked frame and origin)."""
        if kind != "string":
            self._violation(f"{platform} transport got a {kind}, not a string: {text[:80]!r}")
            if platform == "ios":
                return  # the app's `body as? String` is nil
        self.received.append(text)
        self.timeline.add("native received", text[:200])
        effects = self._coordinator().message(text)
        for effect in effects:
            if effect["do"] == "notify":
                # What arrived is recorded before the app acts, as the scenarios read it.
                self.messages.append(effect["event"])
                if effect["name"] == "gc-sso-conflict":
                    username = effect["event"].get("username")
                    self.conflicts.append(username if isinstance(username, str) else None)
                    self.timeline.add("conflict", repr(username))
        self._perform(effects)

    def _violation(self, what: str) -> None:
        self.violations.append(what)
        self.timeline.add("transport violation", what)

    # ---- effects ---------------------------------------------------------------------

    def _perform(self, effects: list[Effect]) -> None:
        """Do what the coordinator decided, in order."""
        for effect in effects:
            kind = effect["do"]
            if kind == "fetch":
                self._fetch(effect["fetch"], effect["trigger"])
            elif kind == "login":
                self._login(effect["ssoData"], effect["trigger"])
            elif kind == "logout":
                self.timeline.add("inject gcSsoLogout")
                self._evaluate_call("window.gcSsoLogout()")
            elif kind == "ask-conflict":
                self._ask_conflict(effect["conflict"], effect["username"])
            elif kind == "error":
                self.app_errors.append(f"{effect['reason']}: {effect['error']}")
                self.timeline.add("app error", self.app_errors[-1])
            elif kind == "ignore":
                self._ignored(effect["reason"])
            elif kind == "discard":
                self.timeline.add("discarded", effect["reason"])
            elif kind == "reload":
                self._recover_content()  # Lifecycle: each platform's answer to a dead process

    def _ignored(self, reason: str) -> None:
        if reason in DROPPED:
            self.timeline.add("native dropped", reason)
        elif reason == "signed-out":
            self.timeline.add("no login", "nobody signed in to the app")
        else:
            self.timeline.add("no action", reason)

    def _fetch(self, fetch: int, trigger: str) -> None:
        coordinator = self._coordinator()
        try:
            sso_data = self.sso_provider(self.user)
        except Exception as exc:  # noqa: BLE001 - the coordinator reports it, never thrown into the page
            error = f"{trigger}: {type(exc).__name__}: {exc}"
            self._perform(coordinator.fetch_result(fetch, error=error))
            return
        self.leaks.remember(sso_data)
        self._perform(coordinator.fetch_result(fetch, sso_data))

    def _login(self, sso_data: str, trigger: str) -> None:
        username = self.user.username if self.user is not None else "?"
        self.timeline.add("inject gcSsoLogin", f"after {trigger}, as app user {username}")
        # Recorded first: while the engine evaluates, the app may already react to the
        # next event (as a native app does while evaluateJavaScript runs).
        index = len(self.injected)
        self.injected.append(Injection(trigger, sso_data))
        # What a native app evaluates: the ssoData as a JSON string literal.
        error = self._evaluate_call(f"window.gcSsoLogin({json.dumps(sso_data)})")
        if error:
            self.injected[index] = Injection(trigger, sso_data, error)

    def inject_login(self, sso_data: str, trigger: str = "scenario") -> None:
        """Inject ``sso_data`` as the app's login effect does (JSON-encoded, never pasted)."""
        self.leaks.remember(sso_data)
        self._login(sso_data, trigger)

    def _ask_conflict(self, conflict: int, username: str) -> None:
        """The resolution UI (``on_conflict``), then ssoData issued with the corrected name."""
        coordinator = self._coordinator()
        corrected = self.on_conflict(username) if self.on_conflict is not None else None
        if not corrected:
            self._perform(coordinator.conflict_result(conflict, None))
            return
        try:
            self.user = self.backend.rename(self.user, corrected)
            self.timeline.add("username corrected", corrected)
            sso_data = self.sso_provider(self.user)
        except Exception as exc:  # noqa: BLE001 - reported by check(), never thrown into the page
            error = f"gc-sso-conflict: {type(exc).__name__}: {exc}"
            self._perform(coordinator.conflict_result(conflict, error=error))
            return
        self.leaks.remember(sso_data)
        self._perform(coordinator.conflict_result(conflict, sso_data))

    def _early_login_script(self) -> str:
        """``inject_early``: a deliberately premature injection, no decision of the coordinator."""
        if self.user is None:
            return ""
        sso_data = self.sso_provider(self.user)
        self.leaks.remember(sso_data)
        self.injected.append(Injection("early", sso_data))
        self.timeline.add(
            "inject gcSsoLogin",
            f"early, at {self.injection_point}, as app user {self.user.username}",
        )
        return f"try {{ window.gcSsoLogin({json.dumps(sso_data)}); }} catch (e) {{}}"
