"""The app's model of a WebView host, pure: each platform's default for dialogs, files and new
windows, the kits' window rule, and the crash guard on an injected clock."""

from __future__ import annotations

import pytest
from gcbridge_harness.app import chrome
from gcbridge_harness.app.host import CrashGuard, decide_recovery

WIDGET = "https://comments.example:8443"


@pytest.mark.parametrize(
    ("platform", "dialogs", "files", "windows"),
    [
        # WKUIDelegate.h: confirm as Cancel, no window without createWebViewWith; the upload
        # panel is WebKit's own (WKFileUploadPanel; runOpenPanelWith only customises it).
        ("ios", False, True, False),
        # WebViewContentsClientAdapter: dialogs cancelled; no onShowFileChooser, onCreateWindow.
        ("android", False, False, False),
        # react-native-webview: RNCWebViewImpl.m / RNCWebChromeClient.java do all three.
        ("react-native", True, True, True),
    ],
)
def test_what_each_platform_does_without_the_kits_handling(platform, dialogs, files, windows):
    assert chrome.handles(platform, "dialogs", kit=False) is dialogs
    assert chrome.handles(platform, "file-chooser", kit=False) is files
    assert chrome.handles(platform, "new-windows", kit=False) is windows
    for what in ("dialogs", "file-chooser", "new-windows"):
        assert chrome.handles(platform, what, kit=True)


@pytest.mark.parametrize(
    ("kind", "default", "shown", "page_gets"),
    [
        ("alert", None, False, "returned"),
        ("confirm", None, False, "false"),
        ("prompt", "name", False, "null"),
        ("alert", None, True, "returned"),
        ("confirm", None, True, "true"),
        ("prompt", "name", True, "'name'"),
        ("prompt", None, True, "''"),
    ],
)
def test_a_dialog_not_shown_is_dismissed_and_a_shown_one_is_answered_ok(
    kind, default, shown, page_gets
):
    answer = chrome.dialog_answer(kind, default, shown=shown)
    assert answer.shown is shown
    assert answer.words(kind) == page_gets


@pytest.mark.parametrize(
    ("url", "handled", "gesture", "action"),
    [
        (f"{WIDGET}/widget/?uid=2", True, True, "in-place"),
        ("https://COMMENTS.example:8443/x", True, True, "in-place"),
        ("https://comments.example/x", True, True, "system-browser"),  # another port
        ("http://comments.example:8443/x", True, True, "system-browser"),  # another scheme
        ("https://news.example/article", True, True, "system-browser"),
        ("mailto:ada@example.com", True, True, "os"),
        ("tel:+15551234", True, True, "os"),
        ("javascript:alert(1)", True, True, "nowhere"),
        ("file:///etc/passwd", True, True, "nowhere"),
        ("https://news.example/article", True, False, "nowhere"),  # a pop-up: no tap
        (f"{WIDGET}/widget/", False, True, "nowhere"),  # no handling: no window at all
    ],
)
def test_a_new_window_goes_where_the_kits_send_it(url, handled, gesture, action):
    assert chrome.window_action(url, WIDGET, handled=handled, gesture=gesture) == action


def test_the_crash_guard_allows_three_recoveries_in_any_minute():
    guard = CrashGuard()
    assert [guard.allow(t) for t in (0.0, 10.0, 20.0, 30.0)] == [True, True, True, False]
    assert not guard.allow(59.9)  # the first recovery is still within the minute
    assert guard.allow(60.0)  # ... and now it is not
    assert not guard.allow(61.0)
    guard.reset()  # Retry
    assert guard.allow(61.0)


def test_a_recovery_waits_while_the_app_is_away_and_spends_nothing():
    guard = CrashGuard(limit=1)
    assert decide_recovery(guard, 0.0, foreground=False) == "defer"
    assert decide_recovery(guard, 1.0, foreground=False) == "defer"
    assert decide_recovery(guard, 2.0, foreground=True) == "now"
    assert decide_recovery(guard, 3.0, foreground=True) == "give-up"


def test_a_crash_guard_needs_a_budget():
    with pytest.raises(ValueError):
        CrashGuard(limit=0)
    with pytest.raises(ValueError):
        CrashGuard(window=0)
