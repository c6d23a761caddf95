"""The WebView's life after the first load: reload, back-forward cache, re-render,
a dead content process. Each at the three injection points, in both engines, with each
platform's own re-injection (user scripts run again in every new document; Android's app
runs bridge.js again at page finished)."""

from __future__ import annotations

import json

import pytest

from gcbridge_harness.report.probe_words import PROBE_MESSAGE

pytestmark = pytest.mark.browser

PING = PROBE_MESSAGE
RECOVERY = 20.0  # seconds the app may take to bring a dead view back
EVENT_WAIT = 10.0  # seconds a re-rendered widget's events may take to reach the app


def fetch_counter(backend):
    """An ``sso_provider`` that remembers when each ssoData was fetched (for freshness)."""
    fetched: list[str] = []

    def provider(user):
        sso_data = backend.fetch_sso_data(user)
        fetched.append(sso_data)
        return sso_data

    provider.fetched = fetched
    return provider


def forwarded_once(app, tag: str) -> None:
    """A widget event posted now reaches the app exactly once (one listener, one bridge)."""
    before = len(app.events(PING))
    app.post_in_page(f"JSON.stringify({{name: {json.dumps(PING)}, tag: {json.dumps(tag)}}})")
    app.round_trip()
    app.settle()
    got = [m for m in app.events(PING)[before:] if m.get("tag") == tag]
    assert len(got) == 1, f"{PING} {tag!r} reached the app {len(got)} times, not once"


def fresh_injections_since(app, provider, injected: int, fetched: int) -> list[str]:
    """Triggers of the logins since ``injected``, each with ssoData fetched for it."""
    new = app.injected[injected:]
    assert new, "the app injected nothing afterwards"
    recent = provider.fetched[fetched:]
    assert len(recent) >= len(new), "an injection used ssoData that was not fetched for it"
    assert all(i.sso_data in recent for i in new), "ssoData fetched earlier was injected again"
    return [i.trigger for i in new]


@pytest.mark.parametrize("by", ["page", "app"])
def test_reload_installs_the_bridge_once_and_logs_in_afresh(
    native_app, customer_backend, injection_point, by
):
    user = customer_backend.new_user("reload")
    provider = fetch_counter(customer_backend)
    app = native_app(injection_point, user=user, sso_provider=provider)
    app.widget.expect_signed_in(user.username)
    app.settle()
    injected, fetched = len(app.injected), len(provider.fetched)

    app.reload(by=by)
    app.widget.expect_signed_in(user.username)
    app.settle()

    assert app.documents == 2
    triggers = fresh_injections_since(app, provider, injected, fetched)
    expected = {"page-finished", "gc-ready", "gc-loaded"}
    assert set(triggers) <= expected, triggers
    if injection_point not in ("page-finished", "page-started"):
        # gc-ready of the new document reached the app once, and the app logged in on it.
        assert triggers[0] == "gc-ready", triggers
    assert app.evaluate("() => typeof window.gcSsoLogin", world="bridge") == "function"
    forwarded_once(app, "after the reload")
    assert all(r.status == 200 for r in app.login_responses)
    app.finish()


@pytest.mark.parametrize("where", ["same-origin", "other-origin"])
def test_back_forward_cache_restore_forwards_once_and_updates_login(
    native_app, customer_backend, service, frame_server, injection_point, where
):
    user = customer_backend.new_user("bfcache")
    provider = fetch_counter(customer_backend)
    app = native_app(injection_point, user=user, sso_provider=provider, bfcache=True)
    app.widget.expect_signed_in(user.username)
    app.settle()
    forwarded_once(app, "before leaving")
    if where == "same-origin":
        # Another thread's widget page on the widget's origin (the bridge runs there too).
        away = service.thread_load(
            uid=f"{app.uid}-next", url=f"{app.thread_url}-next", page_title="Next"
        )
    else:
        away = frame_server.serve("/elsewhere.html", "<!doctype html><title>Elsewhere</title>")
    injected, fetched = len(app.injected), len(provider.fetched)

    app.away_and_back(away)
    app.widget.expect_signed_in(user.username)
    app.settle()

    triggers = fresh_injections_since(app, provider, injected, fetched)
    if app.engine == "webkit" and where == "other-origin" and not app.restores:
        # WebKitGTK swaps processes for another origin and, here, loads the page again on
        # the way back instead of restoring it: then it is a new document, as a reload.
        assert app.documents == 3 and triggers[0] in ("gc-ready", "page-finished"), triggers
    else:
        assert app.restores == 1, "the page did not come back from the back-forward cache"
        assert triggers[-1] == "restored", triggers
    forwarded_once(app, "after coming back")
    assert all(r.status == 200 for r in app.login_responses)
    app.finish()


@pytest.mark.parametrize("route", ["push-state", "hash"])
def test_rerender_by_route_forwards_each_event_and_reinjects(
    native_app, customer_backend, service, injection_point, route
):
    user = customer_backend.new_user("route")
    app = native_app(injection_point, user=user)
    app.widget.expect_signed_in(user.username)
    app.settle()
    other = f"{app.uid}-b"
    service.thread_load(uid=other, url=f"{app.thread_url}-b", page_title="Thread B")
    ready, loaded, injected = (
        len(app.events("gc-ready")),
        len(app.events("gc-loaded")),
        len(app.injected),
    )

    if route == "push-state":
        app.evaluate(
            """(uid) => { const u = new URL(location.href); u.searchParams.set('uid', uid);
                          history.pushState(null, '', u.href);
                          window.dispatchEvent(new PopStateEvent('popstate')); }""",
            other,
        )
    else:
        app.evaluate("(uid) => { location.hash = 'uid=' + encodeURIComponent(uid); }", other)
    app.wait_for_event("gc-loaded", count=loaded + 1, timeout=EVENT_WAIT)
    app.widget.expect_signed_in(user.username)
    app.settle()

    assert app.documents == 1, "a route change is no new document"
    assert len(app.events("gc-ready")) == ready + 1, "gc-ready of the re-render: not once"
    assert len(app.events("gc-loaded")) == loaded + 1, "gc-loaded of the re-render: not once"
    assert [i.trigger for i in app.injected[injected:]] == ["gc-ready", "gc-loaded"]
    forwarded_once(app, "after the re-render")
    app.finish()


def test_dead_content_process_comes_back_signed_in(native_app, customer_backend, injection_point):
    user = customer_backend.new_user("crash")
    app = native_app(injection_point, user=user)
    app.widget.expect_signed_in(user.username)
    app.settle()

    app.kill_content_process()
    app.wait_for(
        lambda: app.documents >= 2, "the page to load again after the crash", timeout=RECOVERY
    )
    app.widget.expect_signed_in(user.username)
    app.settle()

    assert app.terminations == 1
    assert app.timeline.find("recover"), "the app did not answer the dead content process"
    forwarded_once(app, "after the crash")
    app.finish()
