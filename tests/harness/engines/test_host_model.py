"""The engines under the app's host model: a page's three dialogs answered as the model says
(Chromium's dialog events, WebKitGTK's script-dialog), and a load that fails for the network
(Chromium: the request fails; the scenarios use an HTTP 503 in both engines)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

DIALOGS = "() => [alert('Note'), confirm('Sure?'), prompt('Name?', 'Ada')]"


@pytest.mark.parametrize("injection_point", ["document-end"])
@pytest.mark.parametrize(
    ("web_chrome", "page_got"), [(True, [None, True, "Ada"]), (False, [None, False, None])]
)
def test_the_three_dialogs_are_answered_as_the_model_says(
    native_app, injection_point, web_chrome, page_got
):
    app = native_app(injection_point, web_chrome=web_chrome)
    assert app.evaluate(DIALOGS) == page_got
    assert [(d.kind, d.message, d.answer.shown) for d in app.dialogs] == [
        ("alert", "Note", web_chrome),
        ("confirm", "Sure?", web_chrome),
        ("prompt", "Name?", web_chrome),
    ]
    app.finish()


@pytest.mark.parametrize("engine", ["chromium"])
@pytest.mark.parametrize("injection_point", ["page-finished"])
def test_a_network_error_of_the_widgets_page_is_a_load_error(
    native_app, customer_backend, injection_point
):
    user = customer_backend.new_user("offline")
    app = native_app(injection_point, user=user)
    app.widget.expect_signed_in(user.username)
    app.settle()

    def refused(route):
        route.abort("connectionrefused")

    app.context.route(lambda url: "/widget/" in url, refused)
    app._app_reload()
    app.wait_for(lambda: app.error_view, "the error view after the refused load")
    assert "ERR_CONNECTION_REFUSED" in app.error_view
    app.context.unroute_all()
    documents = app.documents
    app.retry()
    app.wait_for(lambda: app.documents > documents, "the widget after Retry")
    app.widget.expect_signed_in(user.username)
    app.finish()
