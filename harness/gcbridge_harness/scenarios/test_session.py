"""The widget session across the app's login changes and relaunches
(docs/explanation/service.md#loading-the-widget, docs/explanation/service.md#handling-ssodata)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_logout_clears_session_and_storage(native_app, customer_backend, service, injection_point):
    user = customer_backend.new_user("logout")
    app = native_app(injection_point, user=user)
    app.widget.expect_signed_in(user.username)
    app.settle()
    token = app.local_storage()["gc_token"]
    assert service.me(token).status_code == 200

    app.app_logout()
    app.widget.expect_signed_out()
    app.settle()

    assert "gc_token" not in app.local_storage()
    assert service.me(token).status_code == 401, "the widget's session was not revoked"
    app.finish()


def test_switching_users_leaves_nothing_of_the_first(
    native_app, customer_backend, service, injection_point
):
    first, second = customer_backend.new_user("first"), customer_backend.new_user("second")
    app = native_app(injection_point, user=first)
    app.widget.expect_signed_in(first.username)
    app.widget.post_comment(f"Written by {first.username}")
    assert app.widget.can_edit(f"Written by {first.username}")
    app.settle()
    first_token = app.local_storage()["gc_token"]

    app.app_login(second)
    app.widget.expect_signed_in(second.username)
    app.settle()

    assert service.me(first_token).status_code == 401, "the first user's session is still valid"
    storage = app.local_storage()
    assert storage["gc_token"] != first_token
    assert service.me(storage["gc_token"]).json()["user"]["external_id"] == second.id
    assert first.username not in app.widget.session_text()
    # The first user's comment stays, but nothing lets the second one change it.
    assert not app.widget.can_edit(f"Written by {first.username}")
    assert not app.widget.can_delete(f"Written by {first.username}")
    app.finish()


def test_relaunch_keeps_the_session(native_app, customer_backend, injection_point):
    user = customer_backend.new_user("relaunch")
    app = native_app(injection_point, user=user)
    app.widget.expect_signed_in(user.username)
    app.settle()

    # Same profile, same origin; this time the app injects nothing.
    again = app.relaunch(triggers=())
    again.widget.expect_signed_in(user.username)
    again.settle()
    assert again.requests_to("/api/pub/me", "GET"), "the stored session was not checked"
    assert again.requests_to("/api/pub/sso/login") == []
    again.finish()


def test_relaunch_without_dom_storage_loses_the_session_but_works(
    native_app, customer_backend, injection_point
):
    user = customer_backend.new_user("nostorage")
    app = native_app(injection_point, user=user)
    app.widget.expect_signed_in(user.username)
    app.settle()

    again = app.relaunch(triggers=(), dom_storage=False)
    again.widget.expect_loaded()
    again.settle()
    again.widget.expect_signed_out()
    assert again.requests_to("/api/pub/me") == []

    # The widget still works: the app signs the user in, who can comment.
    again.app_login(user)
    again.widget.expect_signed_in(user.username)
    again.widget.post_comment("Posted without DOM storage")
    again.finish()
