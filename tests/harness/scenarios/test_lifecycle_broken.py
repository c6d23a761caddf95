"""Broken bridges and apps over the WebView's life fail the lifecycle scenarios, with a
diagnosis in the team's words, in both engines.

Cheap by design: each broken bridge or app runs only the scenario that must catch it, at
one injection point, in this process (the session's browser, WebKit driver and emulator),
and stops at its first failure.
"""

from __future__ import annotations

import pytest
from gcbridge_harness.coordinator import SSO_LIFETIME_SECONDS, SsoCoordinator
from gcbridge_harness.report.probe_words import PROBE_MESSAGE
from gcbridge_harness.scenarios import test_lifecycle as lifecycle
from gcbridge_harness.scenarios import test_lifecycle_app as app_life

from gcbridge.bridge import script
from tests.harness.scenarios.diagnosed import diagnosed_failure

pytestmark = pytest.mark.browser

SHIPPED = script().text
GUARD = "    if (hasOwn.call(win, MARKER)) {\n      return win[MARKER];\n    }\n"
LISTEN = "    win.addEventListener('message', onMessage, false);\n"
SEND = "        if (text !== null) {\n          send(text);\n"


def _broken(find: str, replace: str) -> str:
    assert SHIPPED.count(find) == 1, f"bridge.js changed: {find!r} not found once"
    return SHIPPED.replace(find, replace)


BROKEN = {
    # The guard lives in sessionStorage: the reloaded page finds it and installs nothing.
    "guard-in-session-storage": _broken(
        GUARD,
        GUARD + "    try { if (win.sessionStorage.getItem('gcInstalled')) { return null; }\n"
        "      win.sessionStorage.setItem('gcInstalled', '1'); } catch (e) {}\n",
    ),
    # Re-installs its listener when the page is shown again from the back-forward cache.
    "listener-again-on-pageshow": _broken(
        LISTEN,
        LISTEN + "    win.addEventListener('pageshow', function (e) { if (e.persisted) {\n"
        "      win.addEventListener('message', function (m) { onMessage(m); }, false); } });\n",
    ),
    # Forwards each event name once per page: a re-render's gc-ready never gets through.
    "each-name-once-per-page": _broken(
        SEND,
        "        var seenName = text === null ? null : parseJson(text).name;\n"
        "        if (seenName !== null && seenNames[seenName]) { return; }\n"
        "        if (seenName !== null) { seenNames[seenName] = true; }\n" + SEND,
    ).replace(GUARD, GUARD + "    var seenNames = {};\n", 1),
    # Forwards an allow-list of the widget's events only: the harness's own probe
    # message (gc-harness-ping) never gets through, nor does gc-sso-conflict.
    "allow-list": _broken(
        SEND,
        "        var allowedName = text === null ? null : parseJson(text).name;\n"
        "        if (allowedName !== 'gc-ready' && allowedName !== 'gc-loaded' &&\n"
        "            allowedName !== 'gc-sso-auth') { return; }\n" + SEND,
    ),
}


@pytest.fixture
def bridge_script(request: pytest.FixtureRequest) -> str:
    """The broken bridge.js of the test (overrides the plugin's), else the shipped one."""
    return BROKEN[request.param] if hasattr(request, "param") else SHIPPED


@pytest.mark.parametrize("bridge_script", ["guard-in-session-storage"], indirect=True)
@pytest.mark.parametrize("injection_point", ["document-end"])
def test_install_guard_that_outlives_the_page(
    request, native_app, customer_backend, injection_point
):
    lines = diagnosed_failure(
        request,
        lifecycle.test_reload_installs_the_bridge_once_and_logs_in_afresh,
        native_app,
        customer_backend,
        injection_point,
        "page",
    )
    assert any(
        "after the reload, gc-ready" in line and "install guard" in line for line in lines
    ), lines


@pytest.mark.parametrize("bridge_script", ["listener-again-on-pageshow"], indirect=True)
@pytest.mark.parametrize("injection_point", ["document-start"])
def test_listener_added_again_on_pageshow(
    request, native_app, customer_backend, service, frame_server, injection_point
):
    lines = diagnosed_failure(
        request,
        lifecycle.test_back_forward_cache_restore_forwards_once_and_updates_login,
        native_app,
        customer_backend,
        service,
        frame_server,
        injection_point,
        "same-origin",
    )
    assert any("after the back navigation" in line and "pageshow" in line for line in lines), lines


@pytest.mark.parametrize("bridge_script", ["each-name-once-per-page"], indirect=True)
@pytest.mark.parametrize("injection_point", ["document-end"])
def test_bridge_forwarding_each_name_once_per_page(
    request, native_app, customer_backend, service, injection_point, monkeypatch
):
    monkeypatch.setattr(lifecycle, "EVENT_WAIT", 3.0)
    lines = diagnosed_failure(
        request,
        lifecycle.test_rerender_by_route_forwards_each_event_and_reinjects,
        native_app,
        customer_backend,
        service,
        injection_point,
        "hash",
    )
    assert any("once per page" in line for line in lines), lines


class _CachingCoordinator(SsoCoordinator):
    """An app that keeps the ssoData it fetched and injects it again on a late resume."""

    cached: str | None = None

    def fetch_result(self, fetch: int, sso_data: str | None = None, error: str | None = None):
        effects = super().fetch_result(fetch, sso_data, error)
        self.cached = sso_data or self.cached
        return effects

    def resume(self, seconds: float):
        if seconds >= SSO_LIFETIME_SECONDS and self.cached:
            return [{"do": "login", "ssoData": self.cached, "trigger": "resume"}]
        return super().resume(seconds)


class _IdleCoordinator(SsoCoordinator):
    """An app that does nothing when the web content process dies."""

    def content_terminated(self):
        self.page_started()
        return []


@pytest.mark.parametrize("injection_point", ["document-end"])
def test_app_caching_sso_data_across_a_resume(
    request, native_app, customer_backend, injection_point, monkeypatch
):
    monkeypatch.setattr("gcbridge_harness.app.decisions.SsoCoordinator", _CachingCoordinator)
    lines = diagnosed_failure(
        request,
        app_life.test_resume_after_the_sso_lifetime_logs_in_with_fresh_sso_data,
        native_app,
        customer_backend,
        injection_point,
    )
    assert any(
        "after the resume" in line and "fetched before the resume" in line for line in lines
    ), lines


@pytest.mark.parametrize("injection_point", ["document-start"])
def test_app_doing_nothing_when_the_content_process_dies(
    request, native_app, customer_backend, injection_point, monkeypatch
):
    monkeypatch.setattr("gcbridge_harness.app.decisions.SsoCoordinator", _IdleCoordinator)
    monkeypatch.setattr(lifecycle, "RECOVERY", 3.0)
    lines = diagnosed_failure(
        request,
        lifecycle.test_dead_content_process_comes_back_signed_in,
        native_app,
        customer_backend,
        injection_point,
    )
    assert any("content process died" in line and "did nothing" in line for line in lines), lines


ALLOW_LIST_SCENARIOS = {
    "reload": (lifecycle.test_reload_installs_the_bridge_once_and_logs_in_afresh, "page"),
    "re-render": (lifecycle.test_rerender_by_route_forwards_each_event_and_reinjects, "hash"),
}


@pytest.mark.parametrize("bridge_script", ["allow-list"], indirect=True)
@pytest.mark.parametrize("injection_point", ["page-finished"])
@pytest.mark.parametrize("scenario", list(ALLOW_LIST_SCENARIOS))
def test_bridge_with_an_allow_list_is_told_first_that_the_probe_was_dropped(
    request, native_app, customer_backend, service, injection_point, scenario, monkeypatch
):
    monkeypatch.setattr(lifecycle, "EVENT_WAIT", 3.0)
    run, how = ALLOW_LIST_SCENARIOS[scenario]
    args = [native_app, customer_backend]
    if scenario == "re-render":
        args.append(service)
    lines = diagnosed_failure(request, run, *args, injection_point, how)
    assert lines and PROBE_MESSAGE in lines[0] and "allow-list" in lines[0], lines
    # the guesses it once led with: gc-ready and gc-loaded did reach the app
    assert not [line for line in lines if "install guard" in line or "once per page" in line]
