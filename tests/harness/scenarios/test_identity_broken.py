"""Apps that leave the widget signed in as someone they cannot vouch for fail the identity
scenarios, in both engines, with a diagnosis in the team's words.

Each broken app is the shipped one with one decision or one platform mapping changed back to
what a kit did before (or to a mistake a port could make), and runs only the scenario that
must catch it, at one injection point, in this process (the session's browser, WebKit driver
and emulator). The scenarios check who the widget shows once the page settled: no wait runs
out, a broken app fails in about the time a passing one takes.
"""

from __future__ import annotations

from typing import Any

import pytest
from gcbridge_harness.app import navigation
from gcbridge_harness.coordinator import SsoCoordinator
from gcbridge_harness.scenarios import test_identity as identity

from tests.harness.scenarios.diagnosed import diagnosed_failure

pytestmark = pytest.mark.browser


class _LeavesTheWidgetAlone(SsoCoordinator):
    """The table as it was: gc-ready with no app user gives ignore(signed-out), leaving the
    widget's own session (someone the app cannot vouch for) signed in."""

    def _no_app_user(self) -> list[dict[str, Any]]:
        return [{"do": "ignore", "reason": "signed-out"}]


class _ForgetsAnEarlySignOut(SsoCoordinator):
    """A sign-out before ready dropped (ignore(not-ready) and nothing more)."""

    def app_logout(self) -> list[dict[str, Any]]:
        effects = super().app_logout()
        self._logout_owed = False
        return effects


@pytest.mark.parametrize("injection_point", ["document-end"])
def test_app_ignoring_ready_with_no_user(
    request, native_app, customer_backend, service, injection_point, monkeypatch
):
    monkeypatch.setattr("gcbridge_harness.app.decisions.SsoCoordinator", _LeavesTheWidgetAlone)
    lines = diagnosed_failure(
        request,
        identity.test_sign_out_while_the_screen_is_away_then_reopen,
        native_app,
        customer_backend,
        service,
        injection_point,
    )
    assert "nobody was signed in to the app" in lines[0] and "gcSsoLogout" in lines[0], lines


@pytest.mark.parametrize("injection_point", ["page-finished"])
def test_app_forgetting_a_sign_out_before_ready(
    request, native_app, customer_backend, service, injection_point, monkeypatch
):
    monkeypatch.setattr("gcbridge_harness.app.decisions.SsoCoordinator", _ForgetsAnEarlySignOut)
    lines = diagnosed_failure(
        request,
        identity.test_sign_out_before_ready_is_applied_at_ready,
        native_app,
        customer_backend,
        service,
        injection_point,
    )
    assert "before the widget was ready" in lines[0] and "remembered" in lines[0], lines


@pytest.mark.parametrize(
    ("injection_point", "route"), [("document-start", "hash"), ("page-started", "push-state")]
)
def test_react_native_app_taking_on_load_start_for_a_new_page(
    request, native_app, customer_backend, service, injection_point, route, monkeypatch
):
    # A React Native kit taking onLoadStart for a new page: a same-document navigation
    # then looks like one.
    old_kit = {"onLoadStart": "page-started", "onLoad": "page-finished"}
    monkeypatch.setitem(navigation.REACTIONS, injection_point, old_kit)  # type: ignore[index]
    lines = diagnosed_failure(
        request,
        identity.test_sign_out_after_a_same_document_navigation,
        native_app,
        customer_backend,
        service,
        injection_point,
        route,
    )
    assert "React Native's onLoadStart" in lines[0] and "same-document" in lines[0], lines
    assert "did nothing (not-ready)" in lines[0], lines


@pytest.mark.parametrize("injection_point", ["document-end"])
def test_ios_app_taking_a_provisional_start_for_a_new_page(
    request, native_app, customer_backend, service, emulator, injection_point, monkeypatch
):
    # An iOS kit taking didStartProvisionalNavigation for a new page: a load that fails
    # before it commits then looks like one.
    old_kit = {"didStartProvisionalNavigation": "page-started", "didFinish": "page-finished"}
    monkeypatch.setitem(navigation.REACTIONS, injection_point, old_kit)  # type: ignore[index]
    lines = diagnosed_failure(
        request,
        identity.test_failed_provisional_load_then_sign_out,
        native_app,
        customer_backend,
        service,
        emulator,
        injection_point,
    )
    assert "didStartProvisionalNavigation" in lines[0], lines
    assert "failed before it committed" in lines[0] and "didCommit" in lines[0], lines


@pytest.mark.parametrize("injection_point", ["page-started"])
def test_react_native_android_app_without_page_finished(
    request, native_app, customer_backend, injection_point, monkeypatch
):
    # A React Native kit on Android for which page finished is no trigger (as on iOS).
    monkeypatch.setattr(
        "gcbridge_harness.app.decisions.EVALUATED_AT_PAGE_FINISHED", frozenset({"page-finished"})
    )

    def sooner(point: str, **options: Any) -> Any:
        app = native_app(point, **options)
        app.wait_seconds = 3.0  # it waits for a login that never comes: fail sooner
        return app

    lines = diagnosed_failure(
        request,
        identity.test_login_when_the_bridge_misses_ready_and_loaded,
        sooner,
        customer_backend,
        injection_point,
    )
    assert "racing the page's scripts" in lines[0] and "page finished (onLoad)" in lines[0], lines
