"""Signed in as exactly the user the app says, and nobody else, through the WebView's whole
life: a sign-out or a user switch while the comments screen is away, a same-document
navigation, a sign-out before the widget is ready, a navigation that fails before it commits.

The widget keeps its own session in its storage and restores it at start without any
injection, so whatever the app's user did meanwhile, the app must bring the widget to it.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

# A same-document navigation the widget does not answer with gc-ready: an anchor, a route
# of the page's own (the widget follows #uid=... and popstate only).
SAME_DOCUMENT = {
    "hash": "() => { location.hash = 'comments-end'; }",
    "push-state": "() => { history.pushState(null, '', location.href.split('#')[0] + '&page=2'); }",
}
NO_CONTENT = "/widget/moved"  # a navigation the emulator answers 204: it never commits


def signed_out_now(app, service, token: str) -> None:
    """Once the page settled, the widget shows nobody, keeps no token, and the old one is dead."""
    app.settle()
    shown = app.widget.session
    assert shown == "signed-out", (
        f"the widget is {shown} ({app.widget.session_text()!r}); nobody is signed in to the app"
    )
    assert "gc_token" not in app.local_storage(), "the widget kept a session token"
    assert service.me(token).status_code == 401, "the previous user's session still works"


def signed_in(app, user) -> str:
    """``user`` shown signed in once the page settled; the widget's session token."""
    app.widget.expect_signed_in(user.username)
    app.settle()
    token: str = app.local_storage()["gc_token"]
    return token


def test_sign_out_while_the_screen_is_away_then_reopen(
    native_app, customer_backend, service, injection_point
):
    user = customer_backend.new_user("away")
    app = native_app(injection_point, user=user)
    token = signed_in(app, user)

    # The comments screen closes; the user signs out on the app's settings screen; the
    # comments screen opens again (same profile: the widget restores its stored session).
    again = app.relaunch(user=None)

    signed_out_now(again, service, token)
    assert again.injected == [], "nothing to sign in with"
    again.finish()


def test_user_switch_while_the_screen_is_away(
    native_app, customer_backend, service, injection_point
):
    first, second = customer_backend.new_user("away1"), customer_backend.new_user("away2")
    app = native_app(injection_point, user=first)
    first_token = signed_in(app, first)

    again = app.relaunch(user=second)

    second_token = signed_in(again, second)
    assert second_token != first_token
    assert service.me(first_token).status_code == 401, "the first user's session still works"
    assert service.me(second_token).json()["user"]["external_id"] == second.id
    assert first.username not in again.widget.session_text()
    again.finish()


@pytest.mark.parametrize("route", ["hash", "push-state"])
def test_sign_out_after_a_same_document_navigation(
    native_app, customer_backend, service, injection_point, route
):
    user = customer_backend.new_user("samedoc")
    app = native_app(injection_point, user=user)
    token = signed_in(app, user)
    ready = len(app.events("gc-ready"))

    app.evaluate(SAME_DOCUMENT[route])
    app.wait_for(
        lambda: any(e.detail.startswith("same-document") for e in app.timeline.find("navigation")),
        "the WebView to report the same-document navigation",
    )
    app.settle()
    assert app.documents == 1, "a same-document navigation is no new document"
    assert len(app.events("gc-ready")) == ready, "the widget announced itself again"

    app.app_logout()

    signed_out_now(app, service, token)
    # And the next user is signed in at once: the widget is as ready as it was.
    other = customer_backend.new_user("samedoc2")
    app.app_login(other)
    signed_in(app, other)
    app.finish()


def test_sign_out_before_ready_is_applied_at_ready(
    native_app, customer_backend, service, injection_point
):
    user = customer_backend.new_user("early-out")
    # An app that lets signed-out users keep the service's own accounts: only the app's own
    # sign-out, remembered until the widget is ready, can take the user's session away.
    app = native_app(injection_point, user=user, keep_widget_session=True)
    token = signed_in(app, user)

    # The comments screen opens again and, while its page loads, the app's user signs out.
    again = app.relaunch(on_commit=lambda view: view.app_logout())

    signed_out_now(again, service, token)
    again.finish()


def test_failed_provisional_load_then_sign_out(
    native_app, customer_backend, service, emulator, injection_point
):
    user = customer_backend.new_user("nocommit")
    app = native_app(injection_point, user=user)
    token = signed_in(app, user)

    with emulator.request_log.no_content(NO_CONTENT):
        # A link of the widget's origin whose load fails before it commits (iOS:
        # didFailProvisionalNavigation): the document shown stays.
        app.evaluate("(path) => { setTimeout(() => { location.href = path; }, 0); }", NO_CONTENT)
        app.wait_for(
            lambda: any(e.detail.startswith("failed") for e in app.timeline.find("navigation")),
            "the WebView to report the failed navigation",
        )
        app.settle()
    assert app.documents == 1, "the failed navigation replaced the document"

    app.app_logout()

    signed_out_now(app, service, token)
    app.finish()


@pytest.mark.parametrize("injection_point", ["page-started"])
def test_login_when_the_bridge_misses_ready_and_loaded(
    native_app, customer_backend, injection_point
):
    user = customer_backend.new_user("race")
    # React Native on Android: the evaluation at page started lost the race to the widget's
    # gc-ready and gc-loaded (react-native-webview documents it as unreliable there).
    app = native_app(injection_point, user=user, race_lost=True)

    app.widget.expect_signed_in(user.username)
    app.settle()
    assert app.events("gc-ready") == [] and app.events("gc-loaded") == []
    assert [i.trigger for i in app.injected] == ["page-finished"]
    app.finish()
