"""Known ways an app leaves the widget signed in as someone it cannot vouch for, in its words.

Read from a launch's timeline: what the app did (``app logout``, ``no login``, ``no action``),
what its WebView told it (``navigation``, ``page started`` with the callback it came from,
``bridge evaluated``) and what the widget emitted, e.g.::

    React Native's onLoadStart at 0.91 s came from a same-document navigation (hash) and the
    app took it for a new page: it waited for a gc-ready that never came, and its sign-out at
    1.02 s did nothing (not-ready): the previous user stays signed in. ...

:func:`identity_diagnoses` is one of the patterns of
:func:`gcbridge_harness.report.diagnosis.diagnose`; it speaks only when the failure is about
who the widget shows signed in.
"""

from __future__ import annotations

from typing import Any

from gcbridge_harness.report.timeline import Timeline, TimelineEntry, when

__all__ = ["identity_diagnoses"]

# What a scenario says when the widget shows someone (test_identity's words, Playwright's).
_ABOUT_SIGN_IN = ("signed-in", "signed-out", "signed in", "gc_token", "session still works")
_PLATFORM_OF = {
    "onLoadStart": "React Native's onLoadStart",
    "didStartProvisionalNavigation": "iOS didStartProvisionalNavigation",
}


def _callback(entry: TimelineEntry) -> str:
    name = entry.detail.split(":", 1)[0]
    return _PLATFORM_OF.get(name, name)


def _ignored_sign_out(timeline: Timeline, since: float) -> TimelineEntry | None:
    """The app's sign-out after ``since`` that its coordinator left for later (not ready)."""
    entries = timeline.entries
    for index, entry in enumerate(entries):
        if entry.kind == "app logout" and entry.at >= since:
            after = entries[index + 1 : index + 3]
            if any(e.kind == "no action" and e.detail == "not-ready" for e in after):
                return entry
    return None


def _taken_for_a_new_page(app: Any, timeline: Timeline) -> list[str]:
    """A page-started callback of a navigation that never brought a new document."""
    entries = timeline.entries
    for index, entry in enumerate(entries):
        if entry.kind != "navigation" or entry.detail.startswith("started"):
            continue
        same = entry.detail.startswith("same-document")
        if same:  # the callbacks of the navigation follow its entry
            window = entries[index + 1 : index + 4]
        else:  # a failed one: what came after its start
            start = max(
                (i for i, e in enumerate(entries[:index]) if e.kind == "navigation"), default=-1
            )
            window = entries[start + 1 : index] if start >= 0 else []
        page = next((e for e in window if e.kind == "page started"), None)
        if page is None:
            continue
        logout = _ignored_sign_out(timeline, entry.at)
        effect = (
            f"its sign-out at {when(logout)} did nothing (not-ready)"
            if logout is not None
            else "it ignored what came next"
        )
        if same:
            kind = entry.detail.split("(", 1)[-1].rstrip(")")
            return [
                f"{_callback(page)} at {when(page)} came from a same-document navigation ({kind}) "
                f"and the app took it for a new page: it waited for a gc-ready that never came, "
                f"and {effect}: the previous user stays signed in. React Native fires "
                "onLoadStart for same-document navigations (hash, pushState): take a new "
                "document from the page itself (the kit's lifecycle message); iOS didCommit and "
                "Android onPageStarted fire for new documents only"
            ]
        return [
            f"{_callback(page)} at {when(page)} started a navigation that failed before it "
            f"committed ({when(entry)}): the page stayed, but the app took the start for a new "
            f"page and waited for a gc-ready that never came, and {effect}: the previous user "
            "stays signed in. A new document begins when it commits (iOS didCommit), not when "
            "it is asked for (didStartProvisionalNavigation, React Native's onLoadStart on iOS)"
        ]
    return []


def _ready_with_nobody(app: Any, timeline: Timeline) -> list[str]:
    """The widget was ready, the app had no user, and no gcSsoLogout went to the widget."""
    nobody = timeline.find("no login")
    if not nobody or timeline.find("inject gcSsoLogout"):
        return []
    first = nobody[0]
    early = _ignored_sign_out(timeline, 0.0)
    if early is not None and early.at <= first.at:
        return [
            f"the app signed out at {when(early)}, before the widget was ready (not-ready), and "
            f"did not sign the widget out once it was ({when(first)}): it shows the user who "
            "signed out. A sign-out before ready must be remembered and applied at ready "
            "(gcSsoLogout), keep_widget_session or not"
        ]
    return [
        f"the widget became ready at {when(first)} while nobody was signed in to the app, and the "
        "app left it as it was: the widget restores its stored session by itself, so it shows "
        "the previous user, and anyone holding the device posts as them. Sign the widget out "
        "(gcSsoLogout) when it is ready and the app has no user (keep_widget_session only for "
        "apps that let signed-out users use the service's own accounts)"
    ]


def _no_login_after_the_race(app: Any, timeline: Timeline) -> list[str]:
    """React Native on Android: the bridge came after gc-ready and gc-loaded, and no trigger
    was left to sign in with."""
    evaluated = timeline.find("bridge evaluated")
    if getattr(app, "injection_point", "") != "page-started" or not evaluated:
        return []
    if timeline.find("inject gcSsoLogin") or not any(
        e.detail == "not-a-trigger" for e in timeline.find("no action")
    ):
        return []
    emitted = {
        e.detail.split(" ", 1)[0]: e
        for e in reversed(timeline.find("widget emitted"))
        if e.at <= evaluated[0].at
    }
    if "gc-ready" not in emitted or "gc-loaded" not in emitted:
        return []
    return [
        f"the bridge was evaluated at {when(evaluated[0])}, after the widget's gc-ready "
        f"({when(emitted['gc-ready'])}) and gc-loaded ({when(emitted['gc-loaded'])}): React Native "
        "on Android evaluates injectedJavaScriptBeforeContentLoaded in onPageStarted, racing the "
        "page's scripts. And the app does not sign in at page finished: nobody was signed in. "
        "On Android, page finished (onLoad) is a trigger too"
    ]


def identity_diagnoses(app: Any, timeline: Timeline, failure: str) -> list[str]:
    """Diagnosis lines when the widget shows someone the app does not (none if nothing fits)."""
    if not any(words in failure for words in _ABOUT_SIGN_IN):
        return []
    for pattern in (_taken_for_a_new_page, _no_login_after_the_race, _ready_with_nobody):
        lines = pattern(app, timeline)
        if lines:
            return lines
    return []
