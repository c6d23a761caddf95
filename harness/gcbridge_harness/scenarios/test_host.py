"""The app as a complete WebView host: what the page asks of its WebView (a dialog,
a file, a new window), a widget page that fails to load, a content process that dies over and
over. Each at the four injection points, in both engines, with each platform's own answer: the
kits' handling (a native dialog the user answers, the file the user picks, the widget's origin
in place and other pages in the system browser, an error view with Retry, at most three
recoveries a minute) where the platform has none of its own."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

RECOVERY = 20.0  # seconds the app may take to bring a dead view back
MAX_DEATHS = 6  # a page that kills its process this often without an error view: a loop
DOWN = "/widget/"  # the widget's page: answered 503 while its server is down


def test_delete_asks_confirm_and_the_app_answers(native_app, customer_backend, injection_point):
    user = customer_backend.new_user("dialog")
    app = native_app(injection_point, user=user)
    app.widget.expect_signed_in(user.username)
    app.widget.post_comment("Delete me")

    app.widget.delete("Delete me")
    app.wait_for(lambda: app.dialogs, "the widget's confirm() before deleting")
    asked = app.dialogs[-1]
    assert asked.kind == "confirm", f"the widget's Delete asked {asked.kind}(), not confirm()"
    assert asked.answer.confirmed, (
        f"the app's WebView answered confirm({asked.message!r}) with false, without asking the "
        "user: the comment stays"
    )
    app.widget.expect_gone("Delete me")
    app.settle()
    app.finish()


def test_attachment_picked_with_the_file_chooser(
    native_app, customer_backend, service, injection_point
):
    user = customer_backend.new_user("files")
    app = native_app(injection_point, user=user)
    name, media_type, data = app.picked_file
    app.widget.expect_signed_in(user.username)

    app.widget.attach()
    app.wait_for(lambda: app.file_choosers, "the file chooser of the widget's file input")
    assert app.file_choosers[-1], "the widget's file input opened no file chooser: no file"
    app.widget.expect_picked(name)
    app.widget.post_comment("With a file")
    assert name in app.widget.attachment("With a file")
    stored = [c.get("attachment") for c in service.comments(app.uid)]
    assert stored == [{"name": name, "type": media_type, "size": len(data)}], stored
    app.finish()


def test_links_open_in_place_or_in_the_system_browser(
    native_app, customer_backend, service, frame_server, injection_point
):
    user = customer_backend.new_user("links")
    app = native_app(injection_point, user=user)
    app.widget.expect_signed_in(user.username)
    elsewhere = frame_server.serve("/article", "<!doctype html><title>article</title><p>away")
    thread = service.thread_load(
        uid=f"{app.uid}-next", url=f"{app.thread_url}-next", page_title="Next"
    )
    here = f"{thread}&api_public_key={service.api_public_key}"
    text = f"Read {elsewhere} and {here}"
    app.widget.post_comment(text)
    links = app.widget.links(text)
    assert [(link["href"], link["target"]) for link in links] == [
        (elsewhere, "_blank"),
        (here, "_blank"),
    ], links

    documents = app.documents
    app.widget.open_link(text, elsewhere)
    app.wait_for(lambda: app.new_windows, f"the new window for {elsewhere}")
    assert app.outside == [elsewhere], (
        f"the link to another origin ({elsewhere}, target=_blank) went "
        f"{app.new_windows[-1][1]}, not to the system browser"
    )
    assert app.documents == documents, "the page of another origin was loaded in the app's view"

    app.widget.open_link(text, here)
    app.wait_for(lambda: len(app.new_windows) > 1, f"the new window for {here}")
    assert app.new_windows[-1] == (here, "in-place"), (
        f"the link to the widget's own origin (target=_blank) went {app.new_windows[-1][1]}, "
        "not in place"
    )
    app.wait_for(lambda: app.documents > documents, "the linked thread to load in place")
    app.widget.expect_signed_in(user.username)
    app.settle()
    app.finish()


def test_server_down_at_the_first_load_then_retry_signs_in(
    native_app, customer_backend, emulator, injection_point
):
    user = customer_backend.new_user("down")
    with emulator.request_log.unavailable(DOWN):
        app = native_app(injection_point, user=user)
        app.wait_for(lambda: app.timeline.find("load error"), "the load error of the widget's page")
        assert app.error_view, (
            "the widget's page failed to load and the app showed no error view: no Retry"
        )
    # The server is back; the user taps Retry.
    documents = app.documents
    app.retry()
    app.wait_for(lambda: app.documents > documents, "the widget to load again after Retry")
    assert app.error_view is None
    app.widget.expect_signed_in(user.username)
    app.settle()
    app.finish()


def test_dead_process_waits_for_the_foreground_and_a_crash_loop_ends_in_the_error_view(
    native_app, customer_backend, injection_point
):
    user = customer_backend.new_user("crashloop")
    app = native_app(injection_point, user=user)
    app.widget.expect_signed_in(user.username)
    app.settle()

    app.background()
    app.kill_content_process()
    assert not app.recoveries, "the app reloaded the page while it was in the background"
    app.resume(5)
    app.wait_for(lambda: app.documents >= 2, "the page to load again on return", timeout=RECOVERY)
    app.widget.expect_signed_in(user.username)

    # From now on the page kills its content process every time it loads.
    while not app.error_view and app.terminations < MAX_DEATHS:
        documents = app.documents
        app.kill_content_process()
        app.wait_for(
            lambda: app.error_view or app.documents > documents,  # noqa: B023 - waited here
            "the page to load again, or the error view",
            timeout=RECOVERY,
        )
    assert app.error_view, (
        f"the web content process died {app.terminations} times and the app reloaded the page "
        f"{app.recoveries} times: a page that kills its process loops"
    )
    assert (app.terminations, app.recoveries) == (4, 3)

    documents = app.documents
    app.retry()  # a fresh budget; the page loads (and no longer crashes)
    app.wait_for(lambda: app.documents > documents, "the widget to load after Retry")
    app.widget.expect_signed_in(user.username)
    app.settle()
    app.finish()
