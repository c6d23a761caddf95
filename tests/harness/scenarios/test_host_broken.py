"""An app without the kits' WebView-host handling fails the host scenarios, with a diagnosis in
the team's words, in both engines.

Each broken app runs only the scenario that must catch it, at one injection point whose
platform has no handling of its own (iOS: document-end; Android: page-finished), in this
process, and stops at its first failure. React Native has react-native-webview's own dialogs,
file chooser and new windows: the same scenarios pass there without the kit's handling.
"""

from __future__ import annotations

from typing import Any

import pytest
from gcbridge_harness.scenarios import test_host as host

from tests.harness.scenarios.diagnosed import diagnosed_failure

pytestmark = pytest.mark.browser


def _without(native_app: Any, **handling: bool) -> Any:
    """``native_app`` launching apps without the handling named (``web_chrome=False``, ...)."""

    def launch(point: str, **options: Any) -> Any:
        return native_app(point, **{**options, **handling})

    return launch


@pytest.mark.parametrize("injection_point", ["document-end", "page-finished"])
def test_no_ui_delegate_or_chrome_client_answers_confirm_false(
    request, native_app, customer_backend, injection_point
):
    app = _without(native_app, web_chrome=False)
    lines = diagnosed_failure(
        request,
        host.test_delete_asks_confirm_and_the_app_answers,
        app,
        customer_backend,
        injection_point,
    )
    api = {"document-end": "WKUIDelegate", "page-finished": "WebChromeClient"}[injection_point]
    assert any(
        "confirm('Delete this comment?')" in line and "answered false" in line and api in line
        for line in lines
    ), lines


@pytest.mark.parametrize("injection_point", ["page-finished"])
def test_no_chrome_client_gives_no_file(
    request, native_app, customer_backend, service, injection_point
):
    lines = diagnosed_failure(
        request,
        host.test_attachment_picked_with_the_file_chooser,
        _without(native_app, web_chrome=False),
        customer_backend,
        service,
        injection_point,
    )
    assert any("file input" in line and "onShowFileChooser" in line for line in lines), lines


@pytest.mark.parametrize("injection_point", ["document-end"])
def test_no_ui_delegate_opens_no_new_window(
    request, native_app, customer_backend, service, frame_server, injection_point
):
    lines = diagnosed_failure(
        request,
        host.test_links_open_in_place_or_in_the_system_browser,
        _without(native_app, web_chrome=False),
        customer_backend,
        service,
        frame_server,
        injection_point,
    )
    assert any("opened nowhere" in line and "createWebViewWith" in line for line in lines), lines


@pytest.mark.parametrize("injection_point", ["page-finished"])
def test_no_error_view_leaves_no_retry(
    request, native_app, customer_backend, emulator, injection_point
):
    lines = diagnosed_failure(
        request,
        host.test_server_down_at_the_first_load_then_retry_signs_in,
        _without(native_app, error_view=False),
        customer_backend,
        emulator,
        injection_point,
    )
    assert any(
        "failed to load" in line and "HTTP 503" in line and "onReceivedHttpError" in line
        for line in lines
    ), lines


@pytest.mark.parametrize("injection_point", ["document-end"])
def test_no_crash_guard_reloads_in_the_background(
    request, native_app, customer_backend, injection_point
):
    lines = diagnosed_failure(
        request,
        host.test_dead_process_waits_for_the_foreground_and_a_crash_loop_ends_in_the_error_view,
        _without(native_app, crash_guard=False),
        customer_backend,
        injection_point,
    )
    assert any(
        "in the background" in line and "willEnterForegroundNotification" in line for line in lines
    ), lines


@pytest.mark.parametrize("injection_point", ["document-start"])
def test_recoveries_without_a_limit_loop(
    request, native_app, customer_backend, injection_point, monkeypatch
):
    monkeypatch.setattr("gcbridge_harness.app.host.RECOVERY_LIMIT", 1000)
    lines = diagnosed_failure(
        request,
        host.test_dead_process_waits_for_the_foreground_and_a_crash_loop_ends_in_the_error_view,
        native_app,
        customer_backend,
        injection_point,
    )
    assert any("died 6 times" in line and "GcCrashGuard" in line for line in lines), lines


@pytest.mark.parametrize("injection_point", ["document-start", "page-started"])
def test_react_native_needs_no_kit_handling(
    native_app, customer_backend, service, frame_server, injection_point
):
    """react-native-webview shows dialogs, opens its file chooser and loads new windows itself."""
    app = _without(native_app, web_chrome=False)
    host.test_delete_asks_confirm_and_the_app_answers(app, customer_backend, injection_point)
    host.test_attachment_picked_with_the_file_chooser(
        app, customer_backend, service, injection_point
    )


@pytest.mark.parametrize("injection_point", ["document-end"])
def test_ios_file_input_needs_no_ui_delegate(
    native_app, customer_backend, service, injection_point
):
    """iOS's WebKit opens its own upload panel; a UI delegate would only replace it."""
    host.test_attachment_picked_with_the_file_chooser(
        _without(native_app, web_chrome=False), customer_backend, service, injection_point
    )
