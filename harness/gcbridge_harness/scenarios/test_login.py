"""Signing in through the bridge: on gc-ready, on gc-loaded, too early, on gc-sso-auth."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_login_on_ready(native_app, customer_backend, injection_point):
    user = customer_backend.new_user("ready")
    app = native_app(injection_point, user=user, triggers={"gc-ready", "page-finished"})

    app.widget.expect_signed_in(user.username)
    triggers = [injection.trigger for injection in app.injected]
    if injection_point == "page-finished":
        # The app logs in at page finished. gc-ready usually fired before an onPageFinished
        # bridge existed; where the engine dispatches it after page finished (WebKit often
        # does), the bridge forwards it and the app injects fresh ssoData once more.
        assert triggers[0] == "page-finished"
        assert triggers[1:] in ([], ["gc-ready"]), triggers
    elif injection_point == "page-started":
        # React Native on Android: the bridge, evaluated at page started, races the widget's
        # gc-ready; the app logs in at page finished whatever the race left, and on gc-ready
        # when the bridge was there for it.
        assert sorted(triggers) in (["page-finished"], ["gc-ready", "page-finished"]), triggers
    else:
        assert app.events("gc-ready") == [{"name": "gc-ready"}]
        assert triggers == ["gc-ready"]
    assert app.login_responses[-1].status == 200
    app.finish()


def test_login_on_loaded(native_app, customer_backend, service, injection_point):
    user = customer_backend.new_user("loaded")
    seed_uid = f"loaded-{user.id}"
    author = service.session_token(
        customer_backend.fetch_sso_data(customer_backend.new_user("seed"))
    )
    first = service.post_comment(author, uid=seed_uid, content="First!")
    service.post_comment(author, uid=seed_uid, content="A reply", parent_id=first["id"])

    # Comments arriving after the load event: the common case on a phone, and the
    # one where even an onPageFinished bridge sees gc-loaded.
    app = native_app(
        injection_point,
        user=user,
        uid=seed_uid,
        triggers={"gc-loaded"},
        comments_after_page_finished=True,
    )

    loaded = app.wait_for_event("gc-loaded")
    assert loaded == [{"name": "gc-loaded", "count": 2}]
    app.widget.expect_signed_in(user.username)
    assert [injection.trigger for injection in app.injected] == ["gc-loaded"]
    assert app.widget.comment_contents() == ["First!", "A reply"]
    app.finish()


def test_login_before_ready_is_not_relied_on(native_app, customer_backend, injection_point):
    user = customer_backend.new_user("early")
    app = native_app(injection_point, user=user, inject_early=True)

    app.widget.expect_signed_in(user.username)
    app.settle()
    early = app.injected[0]
    assert early.trigger == "early"
    if injection_point == "document-start":
        # Before the widget's script ran nobody listened: that injection did nothing,
        # the app's injection after gc-ready / gc-loaded signed the user in
        # (docs/explanation/service.md#handling-ssodata).
        assert [i.trigger for i in app.injected[1:]][:1] == ["gc-ready"]
        assert len(app.login_responses) == len(app.injected) - 1
    assert all(response.status == 200 for response in app.login_responses)
    app.finish()


def test_sso_auth_reinjection(native_app, customer_backend, service, injection_point):
    user = customer_backend.new_user("guest")
    # An app that logs in only when the widget asks for it.
    app = native_app(injection_point, user=user, triggers={"gc-sso-auth"})
    app.widget.expect_loaded()
    app.widget.expect_signed_out()
    assert app.injected == []

    app.widget.write_comment("Hello from a guest")
    app.wait_for_event("gc-sso-auth")
    app.widget.expect_signed_in(user.username)
    assert [i.trigger for i in app.injected] == ["gc-sso-auth"]

    # The draft survived; posting again now works, as the SSO user.
    app.widget.click_post()
    app.widget.expect_signed_in(user.username)
    app.widget.wait_for_comment("Hello from a guest")
    comments = service.comments(app.uid)
    assert [(c["content"], c["author"]["external_id"]) for c in comments] == [
        ("Hello from a guest", user.id)
    ]
    app.finish()
