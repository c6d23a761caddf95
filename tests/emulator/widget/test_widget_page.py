"""The emulator's widget page, driven as a user in the harness's app (one injection point)."""

from __future__ import annotations

import httpx
import pytest

from gcbridge.emulator.widget import WIDGET_FILES

pytestmark = pytest.mark.browser

# Playwright locators drive the widget here: Chromium only (the scenarios run in both engines).
chromium_only = pytest.mark.parametrize("engine", ["chromium"])

POINT = "document-start"


def test_widget_is_served_with_strict_headers(emulator):
    for path in ["/widget/"] + [f"/widget/{name}" for name in WIDGET_FILES]:
        response = httpx.get(emulator.url + path)
        assert response.status_code == 200
        csp = response.headers["content-security-policy"]
        assert "default-src 'none'" in csp and "script-src 'self'" in csp
        assert "connect-src 'self'" in csp and "form-action 'none'" in csp
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "no-referrer"
        if path.endswith(".js"):
            # ES modules: the browser refuses any other media type.
            assert response.headers["content-type"].startswith("text/javascript")
    assert "main.js" in WIDGET_FILES
    # The query string never reaches the HTML: the page is the same static file.
    assert (
        httpx.get(emulator.url + "/widget/?uid=<script>").text
        == httpx.get(emulator.url + "/widget/").text
    )


@chromium_only
def test_user_content_is_shown_as_text(native_app, customer_backend, service):
    hostile = '<img src=x onerror="window.__pwned=1"><b>bold</b>'
    seed = customer_backend.new_user("<i>name</i>")
    token = service.session_token(customer_backend.fetch_sso_data(seed))
    uid = f"xss-{seed.id}"
    service.post_comment(token, uid=uid, content=hostile, page_title="<script>t()</script>")

    app = native_app(POINT, user=None, uid=uid, page_title="<script>t()</script>")
    app.widget.expect_loaded()

    assert app.widget.comment_contents() == [hostile]
    assert app.page.get_by_test_id("page-title").inner_text() == "<script>t()</script>"
    assert app.page.locator(".gc-comments img, .gc-comments b").count() == 0
    assert app.page.evaluate("window.__pwned") is None
    app.finish()


@chromium_only
def test_reply_edit_and_delete_own_comments(native_app, customer_backend, service):
    other = customer_backend.new_user("other")
    other_token = service.session_token(customer_backend.fetch_sso_data(other))
    user = customer_backend.new_user("author")
    uid = f"thread-{user.id}"
    service.post_comment(other_token, uid=uid, content="Someone else's comment")

    app = native_app(POINT, user=user, uid=uid)
    app.widget.expect_signed_in(user.username)
    theirs = app.widget.comment("Someone else's comment")
    assert theirs.get_by_test_id("edit").count() == 0

    theirs.get_by_test_id("reply").click()
    reply_form = app.page.get_by_test_id("reply-form")
    reply_form.locator("textarea").fill("My reply")
    reply_form.get_by_role("button", name="Reply").click()
    mine = app.widget.comment("My reply")
    mine.wait_for()
    assert theirs.locator(".gc-replies").get_by_text("My reply").count() == 1

    mine.get_by_test_id("edit").click()
    edit_form = app.page.get_by_test_id("edit-form")
    edit_form.locator("textarea").fill("My edited reply")
    edit_form.get_by_role("button", name="Save").click()
    edited = app.widget.comment("My edited reply")
    edited.wait_for()
    assert edited.get_by_text("(edited)").count() == 1

    edited.get_by_test_id(
        "delete"
    ).click()  # confirm(): the app's WebView shows it, the user says OK
    edited.wait_for(state="detached")
    assert [(d.kind, d.message, d.answer.confirmed) for d in app.dialogs] == [
        ("confirm", "Delete this comment?", True)
    ]

    server = service.comments(uid)
    assert [c["content"] for c in server] == ["Someone else's comment"]
    app.finish()


@chromium_only
def test_own_accounts_without_sso(native_app, customer_backend):
    app = native_app(POINT, user=None, api_public_key=None)
    app.widget.expect_loaded()
    assert app.widget.accounts_offered()

    # A guest trying to comment is told to sign in; no gc-sso-auth without SSO.
    app.widget.write_comment("Hello")
    assert app.page.get_by_test_id("notice").inner_text().startswith("Sign in or create")
    name = customer_backend.new_user("own").username

    register = app.page.get_by_test_id("register-form")
    register.get_by_label("Username").fill(name)
    register.get_by_label("E-mail").fill(f"{name}@example.com")
    register.get_by_label("Password").fill("correct horse battery")
    register.get_by_role("button", name="Register").click()
    app.widget.expect_signed_in(name)
    app.widget.post_comment("Signed up and posting")

    app.page.get_by_test_id("sign-out").click()
    app.widget.expect_signed_out()
    sign_in = app.page.get_by_test_id("sign-in-form")
    sign_in.get_by_label("Username").fill(name)
    sign_in.get_by_label("Password").fill("wrong password")
    sign_in.get_by_role("button", name="Sign in").click()
    app.page.get_by_test_id("notice").get_by_text("Wrong username or password.").wait_for()
    sign_in.get_by_label("Password").fill("correct horse battery")
    sign_in.get_by_role("button", name="Sign in").click()
    app.widget.expect_signed_in(name)

    assert app.events("gc-sso-auth") == []
    assert all("password" not in url for _, url in app.requests)
    app.finish()


@chromium_only
def test_sso_logout_on_a_page_without_a_session_is_harmless(native_app, customer_backend):
    app = native_app(POINT, user=None)
    app.widget.expect_loaded()
    app.app_logout()
    app.settle()
    app.widget.expect_signed_out()
    assert app.requests_to("/api/pub/auth/logout") == []
    assert app.console == []
    app.finish()


@chromium_only
@pytest.mark.parametrize("logins", [1, 2], ids=["one-new-login", "two-new-logins"])
def test_a_comment_sent_as_new_logins_replace_the_session_is_kept(
    native_app, customer_backend, service, logins
):
    # The app injects ssoData again (gc-ready, then gc-loaded, a resume; three times in
    # all at page-started) while the user's comment is on its way: each new login revokes
    # the token the comment, or its resend, was sent with. Before, the 401 lost the
    # comment (once one login, then two, each seen in a flaky WebKit scenario).
    user = customer_backend.new_user("typist")
    app = native_app(POINT, user=user)
    app.widget.expect_signed_in(user.username)
    app.settle()
    held: list = []

    def hold_posts(route):
        if route.request.method == "POST" and len(held) < logins:
            held.append(route)
        else:
            route.continue_()

    app.page.route("**/api/pub/comments", hold_posts)
    app.widget.write_comment("Sent while the app logs in again")
    for sent in range(1, logins + 1):
        app.wait_for(lambda sent=sent: len(held) == sent, f"the comment's POST number {sent}")
        with app.page.expect_response(lambda r: r.url.endswith("/api/pub/auth/logout")) as out:
            app.inject_login(customer_backend.fetch_sso_data(user))
        assert out.value.ok  # the token the held POST carries is revoked now
        held[sent - 1].continue_()  # 401: sent again with the session now shown

    app.widget.comment("Sent while the app logs in again").wait_for()
    app.widget.expect_signed_in(user.username)
    assert [c["content"] for c in service.comments(app.uid)] == ["Sent while the app logs in again"]
    app.finish()


@chromium_only
def test_links_in_a_comment_open_in_a_new_window_and_stay_text(
    native_app, customer_backend, service
):
    seed = customer_backend.new_user("linker")
    token = service.session_token(customer_backend.fetch_sso_data(seed))
    uid = f"links-{seed.id}"
    text = (
        "See https://example.org/a?b=1&c=2. Or (http://example.net/x), "
        'javascript:alert(1) and <a href="https://evil.example">x</a>'
    )
    service.post_comment(token, uid=uid, content=text)

    app = native_app(POINT, user=None, uid=uid)
    app.widget.expect_loaded()
    assert app.widget.comment_contents() == [text]  # the same words, links or not
    assert app.widget.links(text) == [
        {
            "href": "https://example.org/a?b=1&c=2",
            "target": "_blank",
            "rel": "noopener noreferrer ugc",
        },
        {"href": "http://example.net/x", "target": "_blank", "rel": "noopener noreferrer ugc"},
        {"href": "https://evil.example/", "target": "_blank", "rel": "noopener noreferrer ugc"},
    ]
    assert app.page.locator(".gc-comments a[href^='javascript']").count() == 0
    app.finish()
