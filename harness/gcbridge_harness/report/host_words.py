"""Known ways an app fails as a WebView host, in the app team's words.

Read from a launch's timeline: the page's dialogs, file choosers and new windows and how the
app's WebView answered them (``dialog``, ``file chooser``, ``new window``), load errors
(``load error``, ``error view``, ``no error view``) and a dead content process
(``background``, ``content process terminated``, ``recover``, ``resume``), e.g.::

    the widget asked confirm('Delete this comment?') at 1.02 s and the app's WebView answered
    false without showing it: iOS without a WKUIDelegate answers as if the user pressed
    Cancel (runJavaScriptConfirmPanelWithMessage) ...

:func:`host_diagnoses` is one of the patterns of
:func:`gcbridge_harness.report.diagnosis.diagnose`.
"""

from __future__ import annotations

from typing import Any

from gcbridge_harness.report.timeline import Timeline, TimelineEntry, when

__all__ = ["host_diagnoses"]

# Why the platform left the page alone, and what the kit does instead: per platform.
_DIALOGS = {
    "ios": "iOS without a WKUIDelegate answers as if the user pressed Cancel "
    "(webView(_:runJavaScriptConfirmPanelWithMessage:...), WKUIDelegate). Set a UI delegate "
    "that shows the page's alert, confirm and prompt (the iOS kit's GcUIDelegate)",
    "android": "Android's WebView without a WebChromeClient cancels every JavaScript dialog "
    "(WebChromeClient.onJsConfirm). Set a WebChromeClient that shows them (the Android kit's "
    "GcChromeClient)",
}
_FILES = {
    "android": "Android's WebView without a WebChromeClient ignores <input type=file> "
    "(WebChromeClient.onShowFileChooser): the user cannot attach a file. Open a chooser there "
    "(the Android kit's GcChromeClient: FileChooserParams.createIntent(), and the camera)",
}
_WINDOWS = {
    "ios": "iOS without a WKUIDelegate cancels every new window "
    "(webView(_:createWebViewWith:for:windowFeatures:))",
    "android": "Android's WebView with setSupportMultipleWindows(true) and no "
    "WebChromeClient.onCreateWindow opens none",
}
_LEFT_WITH = {
    "ios": "the server's error page (a blank view for a network error)",
    "android": "the server's error page (Chrome's for a network error)",
    "react-native": "react-native-webview's error text",
}
_LOAD_ERRORS = {
    "ios": "didFailProvisionalNavigation / didFail, and an HTTP status >= 400 in "
    "decidePolicyFor navigationResponse",
    "android": "onReceivedError / onReceivedHttpError of the main frame",
    "react-native": "onError / onHttpError",
}
_FOREGROUND = {
    "ios": "willEnterForegroundNotification",
    "android": "Activity.onResume",
    "react-native": "AppState 'active'",
}


def _not_shown_dialog(app: Any, timeline: Timeline) -> list[str]:
    for entry in timeline.find("dialog"):
        if entry.detail.endswith("(not shown)"):
            call, _, answer = entry.detail.partition(" -> ")
            why = _DIALOGS.get(getattr(app, "platform", ""), "the WebView shows no dialogs")
            return [
                f"the widget asked {call} at {when(entry)} and the app's WebView answered "
                f"{answer.removesuffix(' (not shown)')} without showing it: {why}"
            ]
    return []


def _no_file(app: Any, timeline: Timeline) -> list[str]:
    for entry in timeline.find("file chooser"):
        if entry.detail.startswith("no chooser"):
            why = _FILES.get(getattr(app, "platform", ""), "the WebView opens no file chooser")
            return [f"the widget's file input at {when(entry)} got no file: {why}"]
    return []


def _window_nowhere(app: Any, timeline: Timeline) -> list[str]:
    for entry in timeline.find("new window"):
        url, _, action = entry.detail.rpartition(": ")
        if action == "nowhere":
            why = _WINDOWS.get(getattr(app, "platform", ""), "the WebView opens no new window")
            return [
                f"the link to {url} (target=_blank) at {when(entry)} opened nowhere: {why}. Open "
                "the widget's origin in place and other pages in the system browser (the kits' "
                "GcLinkPolicy.forNewWindow)"
            ]
    return []


def _no_error_view(app: Any, timeline: Timeline) -> list[str]:
    if not timeline.find("no error view"):
        return []
    error = timeline.find("load error")[0]
    why = error.detail.partition(": ")[0]
    platform = getattr(app, "platform", "")
    left = _LEFT_WITH.get(platform, "whatever the WebView shows")
    hooks = _LOAD_ERRORS.get(platform, "the WebView's load error callbacks")
    return [
        f"the widget's page failed to load at {when(error)} ({why}) and the app showed no error "
        f"view: the user is left with {left} and no way to try again. Handle {hooks} with an "
        "error view and Retry (the kits' onLoadError)"
    ]


def _recovered_while_away(app: Any, timeline: Timeline) -> list[str]:
    away = False
    dead: TimelineEntry | None = None
    for entry in timeline.entries:
        if entry.kind == "background":
            away = True
        elif entry.kind == "resume":
            away = False
        elif entry.kind == "content process terminated" and away:
            dead = entry
        elif entry.kind == "recover" and away and dead is not None:
            back = _FOREGROUND.get(getattr(app, "platform", ""), "the return to the foreground")
            return [
                f"the web content process died at {when(dead)} while the app was in the "
                "background, and the app reloaded the page at once: the system may kill the "
                "new process too, and nobody sees the page. Defer the recovery until the app "
                f"is back ({back}), as the kits' GcRecoveryPolicy does"
            ]
    return []


def _crash_loop(app: Any, timeline: Timeline) -> list[str]:
    deaths = timeline.find("content process terminated")
    recoveries = timeline.find("recover")
    if len(deaths) <= 3 or len(recoveries) <= 3 or timeline.find("error view"):
        return []
    span = deaths[-1].at - deaths[0].at
    return [
        f"the web content process died {len(deaths)} times in {span:.1f} s and the app "
        f"reloaded the page {len(recoveries)} times: a page that kills its process loops (a "
        "blank view, a load and battery each time). Allow at most 3 recoveries a minute, then "
        "show the error view with Retry (the kits' GcCrashGuard)"
    ]


def host_diagnoses(app: Any, timeline: Timeline, failure: str) -> list[str]:
    """Diagnosis lines for what the app's WebView did not do for the page (none if none fits)."""
    return [line for pattern in _PATTERNS for line in pattern(app, timeline)]


_PATTERNS = (
    _not_shown_dialog,
    _no_file,
    _window_nowhere,
    _no_error_view,
    _recovered_while_away,
    _crash_loop,
)
