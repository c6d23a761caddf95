"""What the bridge must refuse: foreign frames, malformed messages, a second installation."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.browser

SENTINEL = {"name": "gc-harness-sentinel"}

# A third-party frame (an ad, a compromised embed) posting to the widget's window.
_HOSTILE_PAGE = """<!doctype html><title>hostile</title><script>
  parent.postMessage(JSON.stringify({name: "gc-sso-conflict", username: "mallory"}), "*");
  parent.postMessage({name: "gc-sso-conflict", username: "mallory-object"}, "*");
</script>"""


def _send_sentinel(app):
    """A valid same-origin event: once it is forwarded, every earlier message was handled."""
    app.post_in_page(json.dumps(json.dumps(SENTINEL)))
    app.wait_for_event(SENTINEL["name"])


def test_cross_origin_iframe_forgery_is_not_forwarded(
    native_app, customer_backend, frame_server, injection_point
):
    user = customer_backend.new_user("iframe")
    # The widget's CSP would keep the frame out altogether; the bridge must hold without it.
    app = native_app(injection_point, user=user, frames_from=frame_server.origin)
    app.widget.expect_signed_in(user.username)
    url = frame_server.serve("/forge.html", _HOSTILE_PAGE)
    app.evaluate("""() => {
        window.__gcHarnessSeen = [];
        window.addEventListener('message', (e) => window.__gcHarnessSeen.push(e.origin));
    }""")

    app.add_frame(url)
    # The forged messages did reach the widget's window...
    app.wait_for_function(
        f"window.__gcHarnessSeen.filter((o) => o === {json.dumps(frame_server.origin)}).length >= 2"
    )
    _send_sentinel(app)

    # ...and none went to the app, which therefore changed nothing.
    assert app.events("gc-sso-conflict") == []
    assert app.conflicts == []
    app.widget.expect_signed_in(user.username)
    app.finish()


MALFORMED = [
    '"not json at all"',  # a non-JSON string
    json.dumps("[1, 2, 3]"),  # JSON, not an object
    json.dumps('"a string"'),
    json.dumps("null"),
    json.dumps(json.dumps({"name": 42})),  # name not a string
    json.dumps(json.dumps({"info": "gc-harness", "data": "x"})),  # no name
    json.dumps(json.dumps({"name": "gc-harness-big", "pad": "x" * 70_000})),  # over 64 KiB
    "12345",  # not a string, not an object
    "null",
    "[1, 2]",
    "new ArrayBuffer(8)",
]


def test_malformed_messages_are_dropped(native_app, customer_backend, injection_point):
    app = native_app(injection_point, user=customer_backend.new_user("malformed"))
    app.widget.expect_signed_in(app.user.username)
    _send_sentinel(app)
    before = list(app.received)

    for data_js in MALFORMED:
        app.post_in_page(data_js)
    # A plain object with a name is an event too (contract: "taken as is").
    app.post_in_page(json.dumps({"name": "gc-harness-object", "n": 1}))
    app.post_in_page(json.dumps(json.dumps({"name": "gc-harness-sentinel-2"})))
    app.wait_for_event("gc-harness-sentinel-2")

    forwarded = [json.loads(text) for text in app.received[len(before) :]]
    assert forwarded == [{"name": "gc-harness-object", "n": 1}, {"name": "gc-harness-sentinel-2"}]
    assert app.page_errors == []
    app.widget.expect_signed_in(app.user.username)
    app.finish()


def test_double_injection_forwards_once(native_app, customer_backend, injection_point):
    app = native_app(injection_point, user=customer_backend.new_user("twice"), injections=2)
    app.widget.expect_signed_in(app.user.username)
    _send_sentinel(app)
    app.settle()

    assert len(app.events(SENTINEL["name"])) == 1
    assert len(app.events("gc-loaded")) <= 1
    if injection_point not in ("page-finished", "page-started"):  # a late bridge misses it
        assert len(app.events("gc-ready")) == 1
    assert app.evaluate("typeof window.gcSsoLogin", world="bridge") == "function"
    app.finish()


def test_injections_post_to_the_own_origin_only(native_app, customer_backend, injection_point):
    app = native_app(injection_point, user=None)
    app.widget.expect_loaded()
    # Spy on the target origin of every window.postMessage the bridge makes from now on.
    app.evaluate(
        """() => {
        window.__gcHarnessTargets = [];
        const post = window.postMessage;
        window.postMessage = function (message, target, ...rest) {
            const seen = typeof target === 'string' ? target : JSON.stringify(target);
            window.__gcHarnessTargets.push(seen);
            return post.call(this, message, target, ...rest);
        };
    }""",
        world="bridge",
    )
    user = customer_backend.new_user("origin")
    app.app_login(user)
    app.widget.expect_signed_in(user.username)
    app.app_logout()
    app.widget.expect_signed_out()

    origin = app.evaluate("location.origin")
    targets = app.evaluate("window.__gcHarnessTargets", world="bridge")
    assert targets, "gcSsoLogin / gcSsoLogout posted nothing"
    assert set(targets) == {origin}, f"messages posted to {targets}, not only to {origin}"
    app.finish()
