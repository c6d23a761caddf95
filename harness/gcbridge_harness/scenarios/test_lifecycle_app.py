"""The app's side of the WebView's life: resumed after the ssoData lifetime,
Android's second page-finished for one document, two WebViews in one app."""

from __future__ import annotations

import json

import pytest

from gcbridge_harness.coordinator import SSO_LIFETIME_SECONDS
from gcbridge_harness.report.probe_words import PROBE_MESSAGE

pytestmark = pytest.mark.browser

PING = PROBE_MESSAGE


def ping(app, tag: str) -> list[dict]:
    """Post a named message from ``app``'s page; what of it reached that app."""
    app.post_in_page(f"JSON.stringify({{name: {json.dumps(PING)}, tag: {json.dumps(tag)}}})")
    app.round_trip()
    app.settle()
    return [m for m in app.events(PING) if m.get("tag") == tag]


def test_resume_after_the_sso_lifetime_logs_in_with_fresh_sso_data(
    native_app, customer_backend, injection_point
):
    user = customer_backend.new_user("resume")
    app = native_app(injection_point, user=user)
    app.widget.expect_signed_in(user.username)
    app.settle()
    injected = len(app.injected)

    app.resume(60)  # a short break: the widget's session is still good, nothing to do
    app.settle()
    assert len(app.injected) == injected

    # Longer than the ssoData lifetime (the harness's clock: no real waiting).
    app.resume(SSO_LIFETIME_SECONDS + 1)
    app.settle()
    new = app.injected[injected:]
    assert [i.trigger for i in new] == ["resume"]
    assert new[0].sso_data not in {i.sso_data for i in app.injected[:injected]}
    answered = app.login_responses[-1]
    assert answered.status == 200, f"the widget refused the ssoData after the resume: {answered}"
    app.widget.expect_signed_in(user.username)
    app.finish()


@pytest.mark.parametrize("injection_point", ["page-finished"])
def test_page_finished_twice_installs_once_and_logs_in_once(
    native_app, customer_backend, injection_point
):
    user = customer_backend.new_user("twice")
    app = native_app(injection_point, user=user, page_finished_twice=True)
    app.widget.expect_signed_in(user.username)
    app.settle()

    triggers = [i.trigger for i in app.injected]
    assert triggers.count("page-finished") == 1, triggers
    assert any(e.detail == "already-finished" for e in app.timeline.find("no action"))
    assert len(ping(app, "after two page-finished")) == 1
    app.reload(by="app")  # and again for the next document
    app.widget.expect_signed_in(user.username)
    app.settle()
    assert [i.trigger for i in app.injected].count("page-finished") == 2
    assert len(ping(app, "after the reload")) == 1
    app.finish()


def test_two_webviews_each_get_their_own_messages(native_app, customer_backend, injection_point):
    user = customer_backend.new_user("views")
    first = native_app(injection_point, user=user, page_title="Thread A")
    second = native_app(injection_point, user=user, page_title="Thread B", share_view_with=first)
    for view in (first, second):
        view.widget.expect_signed_in(user.username)
        view.settle()

    assert [m["tag"] for m in ping(first, "a")] == ["a"]
    assert [m["tag"] for m in ping(second, "b")] == ["b"]
    assert not [m for m in first.events(PING) if m.get("tag") == "b"], "b's message reached a"
    assert not [m for m in second.events(PING) if m.get("tag") == "a"], "a's message reached b"
    for view in (first, second):
        assert view.injected, "a view was never signed in"
        assert all(r.status == 200 for r in view.login_responses)
        if injection_point not in ("page-finished", "page-started"):
            assert view.events("gc-ready") == [{"name": "gc-ready"}]
    second.finish()
    first.finish()
