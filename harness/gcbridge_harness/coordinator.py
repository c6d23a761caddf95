"""The app's side of the protocol as a pure state machine: inputs in, effects out (the reference).

:class:`SsoCoordinator` decides what an app around the widget does: when to fetch ssoData,
when to inject ``gcSsoLogin`` / ``gcSsoLogout``, when to ask the conflict UI, which results
are stale. It performs nothing itself; the platform glue (here
:class:`~gcbridge_harness.app.decisions.AppDecisions`) performs the effects it returns.

``bridge/protocol/app-protocol.json`` lists its cases (inputs -> exact ordered effects); the
kits' coordinators (``coordinator.ts``, ``GcSsoCoordinator.kt``, ``GcSsoCoordinator.swift``)
are held to the same table. Standard library only, no I/O, no clock: the glue says how long the
app was away (``resume(seconds)``).

The WebView's life after the first load is part of the same decisions: a new document
(``page_started``), a page back from the back-forward cache (``restored``), a dead web content
process (``content_terminated`` -> a ``reload`` effect), the app back in the foreground
(``resume``), Android's second ``onPageFinished`` for one document (``already-finished``). An
answer to a fetch made for another document, or before a resume, is never injected.

The widget is signed in as exactly the app's user, and nobody else: with SSO on and
no app user, a widget that becomes ready is signed out (it may have restored a previous user's
session from its storage), once per document; a sign-out or a user switch before the widget is
ready is applied when it is. ``keep_widget_session=True`` leaves a signed-out app's widget to
the service's own accounts (the app's own sign-out still lands).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = [
    "DEFAULT_TRIGGERS",
    "KEEP_WIDGET_SESSION",
    "MAX_CONFLICT_ROUNDS",
    "MAX_DEPTH",
    "MAX_MESSAGE_CHARS",
    "PROTOCOL",
    "SSO_LIFETIME_SECONDS",
    "Effect",
    "SsoCoordinator",
]

PROTOCOL = 1
"""The bridge protocol these decisions belong to (``app-protocol.json`` ``protocol``)."""

DEFAULT_TRIGGERS = frozenset({"gc-ready", "gc-loaded", "gc-sso-auth"})
"""Widget events after which the app fetches and injects ssoData
(docs/explanation/service.md#the-widgets-events)."""

KEEP_WIDGET_SESSION = False
"""Default: a ready widget is signed out while the app has no user (its stored session goes)."""

READY_EVENTS = frozenset({"gc-ready", "gc-loaded"})
KNOWN_EVENTS = frozenset({"gc-ready", "gc-loaded", "gc-sso-auth", "gc-sso-conflict"})
MAX_MESSAGE_CHARS = 65536
"""bridge.js forwards at most 64 KiB (UTF-16 code units); anything larger is not from it."""
MAX_DEPTH = 32
MAX_CONFLICT_ROUNDS = 3
SSO_LIFETIME_SECONDS = 300
"""How long the service accepts ssoData after its timestamp; a resume this late re-injects."""

Effect = dict[str, Any]
"""``{"do": ...}`` plus the fields of that effect (see bridge/README.md, "The app-side table")."""


def _utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _within_depth(text: str, limit: int) -> bool:
    """Whether ``text`` nests at most ``limit`` objects/arrays (one linear scan, as bridge.js)."""
    depth = 0
    in_string = False
    i = 0
    while i < len(text):
        c = text[i]
        if in_string:
            if c == "\\":
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "{[":
            depth += 1
            if depth > limit:
                return False
        elif c in "}]":
            depth -= 1
        i += 1
    return True


def _ignore(reason: str) -> Effect:
    return {"do": "ignore", "reason": reason}


def signs_out_at_ready(keep_widget_session: bool, logout_owed: bool) -> bool:
    """Whether a ready widget is signed out while the app has no user.

    Always, unless the app keeps the widget's own session; even then when the app's sign-out
    came before the widget was ready (it may still show the user who signed out).
    """
    return logout_owed or not keep_widget_session


class SsoCoordinator:
    """The app's decisions for one WebView showing the widget.

    See docs/explanation/service.md#signing-the-apps-user-in.
    """

    def __init__(
        self,
        *,
        user: str | None = None,
        sso: bool = True,
        triggers: frozenset[str] | set[str] | None = None,
        keep_widget_session: bool = KEEP_WIDGET_SESSION,
    ) -> None:
        self.user = user
        self.sso = sso
        self.triggers = frozenset(DEFAULT_TRIGGERS if triggers is None else triggers)
        # True: while the app has no user, the widget may keep a session of the service's own
        # accounts (an app that lets signed-out users sign in there); the app's sign-out lands.
        self.keep_widget_session = keep_widget_session
        self.ready = False
        self._next = 0
        self._fetching: int | None = None
        self._fetch_trigger = ""
        self._asking: int | None = None
        self._asked_username = ""
        self._resolved: set[str] = set()
        self._rounds = 0
        self._finished = False  # page-finished already seen for this document
        self._stale: dict[int, str] = {}  # fetch / conflict id -> why its answer is discarded
        self._signed_out = False  # a logout went to this document
        self._logout_owed = False  # the app signed out while no document was ready

    # ---- inputs ----------------------------------------------------------------------

    def message(self, data: str, *, from_widget: bool = True) -> list[Effect]:
        """A string the bridge forwarded (``from_widget``: the glue's sender check passed)."""
        if not from_widget:
            return [_ignore("foreign")]
        if _utf16_length(data) > MAX_MESSAGE_CHARS:
            return [_ignore("oversized")]
        if not _within_depth(data, MAX_DEPTH):
            return [_ignore("too-deep")]
        try:
            event = json.loads(data)
        except ValueError:
            return [_ignore("malformed")]
        if not isinstance(event, dict) or not isinstance(event.get("name"), str):
            return [_ignore("unnamed")]
        name: str = event["name"]
        if name in READY_EVENTS:
            self.ready = True
        if name == "gc-sso-conflict":
            effects = self._conflict(event.get("username"))
        elif name in self.triggers:
            effects = self._trigger(name)
        elif name in KNOWN_EVENTS:
            effects = [_ignore("not-a-trigger")]
        else:
            effects = [_ignore("unknown-event")]
        return [*effects, {"do": "notify", "name": name, "event": event}]

    def page_finished(self) -> list[Effect]:
        """The main frame finished loading the widget page (Android's ``onPageFinished``).

        Android may report it twice for one document: the second is ignored
        (``already-finished``), so one document gets one fetch and one login.
        """
        if self._finished:
            return [_ignore("already-finished")]
        self._finished = True
        self.ready = True
        if "page-finished" not in self.triggers:
            return [_ignore("not-a-trigger")]
        return self._trigger("page-finished")

    def app_login(self, user: str) -> list[Effect]:
        """The app's own user signed in, or another one did (a switch), or re-authenticated."""
        self._new_login_state(user)
        return self._trigger("app-login")

    def app_logout(self) -> list[Effect]:
        """The app's own user signed out."""
        self._new_login_state(None)
        if not self.sso:
            return [_ignore("sso-off")]
        if not self.ready:
            self._logout_owed = True  # applied when the widget is ready
            return [_ignore("not-ready")]
        return self._logout()

    def fetch_result(
        self, fetch: int, sso_data: str | None = None, error: str | None = None
    ) -> list[Effect]:
        """The answer to a ``fetch`` effect: ssoData, None (no app session) or an error."""
        if fetch != self._fetching:
            return [{"do": "discard", "reason": self._stale.pop(fetch, "stale")}]
        self._fetching = None
        if error is not None:
            return [{"do": "logout"}, {"do": "error", "reason": "fetch-failed", "error": error}]
        if not sso_data:
            return [{"do": "logout"}]
        return [{"do": "login", "ssoData": sso_data, "trigger": self._fetch_trigger}]

    def conflict_result(
        self, conflict: int, sso_data: str | None = None, error: str | None = None
    ) -> list[Effect]:
        """The answer to an ``ask-conflict`` effect: new ssoData, None (cancelled) or an error."""
        if conflict != self._asking:
            return [{"do": "discard", "reason": self._stale.pop(conflict, "stale")}]
        self._asking = None
        if error is not None:
            return [{"do": "error", "reason": "conflict-failed", "error": error}]
        if not sso_data:
            return [_ignore("conflict-cancelled")]
        self._resolved.add(self._asked_username.lower())
        return [{"do": "login", "ssoData": sso_data, "trigger": "gc-sso-conflict"}]

    def relaunch(self) -> list[Effect]:
        """The main frame starts loading a page (launch, reload, navigation): wait for ready.

        The older, coarser form of :meth:`page_started`: answers in flight are plain ``stale``.
        """
        self.ready = False
        self._finished = False
        self._signed_out = False
        self._fetching = None
        self._asking = None
        return []

    # ---- the WebView's life ----------------------------------------------------------

    def page_started(self) -> list[Effect]:
        """A new document started loading in this view (reload, navigation, a new WebView).

        Not ready until the new document's gc-ready / gc-loaded (or page-finished); an answer
        still in flight belongs to the old document (``stale-document``).
        """
        self._new_document()
        return []

    def restored(self) -> list[Effect]:
        """The page came back from the back-forward cache (``pageshow`` with ``persisted``).

        The document is ready as it was, but its login state may be old: fetch fresh ssoData
        for the app's user, or sign the widget out when nobody is signed in.
        """
        self._orphan("stale-document")
        self.ready = True
        self._finished = True
        self._signed_out = False  # what happened to it while it was away is unknown
        return self._trigger("restored")

    def content_terminated(self) -> list[Effect]:
        """The web content process died (blank view, dead bridge): reload the page."""
        self._new_document()
        return [{"do": "reload", "reason": "content-process-terminated"}]

    def resume(self, seconds: float) -> list[Effect]:
        """The app came back to the foreground after ``seconds`` away.

        A fetch in flight was made before: its answer is discarded (``fetched-before-resume``)
        and a fresh one replaces it. After the ssoData lifetime the widget's login is renewed.
        A conflict question stays open (the user answers it in the app's own UI).
        """
        was_fetching = self._fetching is not None
        self._orphan("fetched-before-resume", conflicts=False)
        if not (was_fetching or seconds >= SSO_LIFETIME_SECONDS):
            return []
        if not self.sso or not self.ready or self.user is None:
            return []
        return self._trigger("resume")

    # ---- decisions -------------------------------------------------------------------

    def _orphan(self, reason: str, *, conflicts: bool = True) -> None:
        """Answers in flight (fetches; conflicts unless told) are discarded with ``reason``."""
        if self._fetching is not None:
            self._stale[self._fetching] = reason
            self._fetching = None
        if conflicts and self._asking is not None:
            self._stale[self._asking] = reason
            self._asking = None

    def _new_document(self) -> None:
        self._orphan("stale-document")
        self.ready = False
        self._finished = False
        self._signed_out = False

    def _new_login_state(self, user: str | None) -> None:
        self.user = user
        self._logout_owed = False  # a login at ready replaces whatever session the widget has
        self._fetching = None  # a fetch for the previous state is stale from now on
        self._asking = None
        self._resolved.clear()
        self._rounds = 0

    def _trigger(self, trigger: str) -> list[Effect]:
        if not self.sso:
            return [_ignore("sso-off")]
        if not self.ready:
            return [_ignore("not-ready")]
        if self.user is None:
            return self._no_app_user()
        if self._fetching is not None:
            return [_ignore("fetch-in-flight")]
        self._next += 1
        self._fetching = self._next
        self._fetch_trigger = trigger
        return [{"do": "fetch", "fetch": self._next, "user": self.user, "trigger": trigger}]

    def _no_app_user(self) -> list[Effect]:
        """A ready widget and nobody signed in to the app: sign it out, once per document.

        Its own stored session may be a previous app user's (the widget restores it without any
        injection). ``keep_widget_session`` leaves it, unless the app signed out before ready.
        """
        if self._signed_out or not signs_out_at_ready(self.keep_widget_session, self._logout_owed):
            return [_ignore("signed-out")]
        return self._logout()

    def _logout(self) -> list[Effect]:
        self._signed_out = True
        self._logout_owed = False
        return [{"do": "logout"}]

    def _conflict(self, username: Any) -> list[Effect]:
        if not self.sso:
            return [_ignore("sso-off")]
        if self.user is None:
            return [_ignore("signed-out")]
        if not isinstance(username, str) or not username:
            return [_ignore("no-username")]
        if self._asking is not None:
            return [_ignore("conflict-pending")]
        if username.lower() in self._resolved:
            return [_ignore("conflict-resolved")]
        if self._rounds >= MAX_CONFLICT_ROUNDS:
            return [_ignore("too-many-conflicts")]
        self._rounds += 1
        self._next += 1
        self._asking = self._next
        self._asked_username = username
        return [{"do": "ask-conflict", "conflict": self._next, "username": username}]
