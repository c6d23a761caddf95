"""The timeline masks secrets and orders entries; diagnoses fit the patterns (no browser)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gcbridge_harness.report.diagnosis import diagnose
from gcbridge_harness.report.html import matrix_text
from gcbridge_harness.report.timeline import Timeline, mask

from gcbridge.sso import SsoIssuer

SECRET = "sso_secret_for_the_timeline_test_0123456789"


def _sso_data() -> str:
    return SsoIssuer(SECRET).issue({"id": "u1", "username": "ada", "email": "ada@example.com"})


def test_mask_keeps_four_characters_and_the_length() -> None:
    assert mask("abcdefghij") == "abcd…[10 chars]"


def test_sso_data_and_secret_fields_never_appear_in_clear() -> None:
    sso_data = _sso_data()
    timeline = Timeline()
    timeline.add("native received", f'{{"name":"x","data":"{sso_data}"}}')
    timeline.add("load", f"http://w/?token=tok_0123456789abcdef&sso={sso_data}")
    timeline.secret("my-api-secret-value")
    timeline.add("app error", "backend said my-api-secret-value is wrong")

    text = timeline.format()
    assert sso_data not in text
    assert sso_data.split(" ")[0] not in text
    assert "tok_0123456789abcdef" not in text and "token=tok_…[20 chars]" in text
    assert "my-api-secret-value" not in text and "my-a…[19 chars]" in text
    assert f"{sso_data[:4]}…[" in text


def test_entries_keep_time_order_and_show_their_side() -> None:
    timeline = Timeline(started=0.0, started_wall=1000.0)
    timeline.add_at(0.5, "native received", '{"name":"gc-ready"}')
    timeline.add_wall(1000_400.0, "widget emitted", "gc-ready (origin http://w, JSON string)")
    timeline.add_at(0.6, "login answered", "401 sso_expired")
    timeline.add_at(0.7, "page error", "boom")

    lines = timeline.format().splitlines()
    assert [line.split()[2] for line in lines] == ["widget", "app", "service", "page"]
    assert lines[2].endswith("login answered         401 refused: sso_expired")
    assert lines[0].startswith("  0.400 s  widget  widget emitted")


@dataclass
class _App:
    injection_point: str = "document-end"
    platform: str = "ios"
    timeline: Timeline = field(default_factory=lambda: Timeline(started=0.0, started_wall=0.0))
    messages: list[dict[str, Any]] = field(default_factory=list)
    received: list[str] = field(default_factory=list)


def _receive(app: _App, at: float, name: str) -> None:
    app.timeline.add_at(at, "native received", f'{{"name":"{name}"}}')
    app.messages.append({"name": name})
    app.received.append(name)


def test_a_dropped_event_is_named_with_its_time() -> None:
    app = _App()
    app.timeline.add_at(0.2, "widget emitted", "gc-ready (origin http://w, JSON string)")
    _receive(app, 0.21, "gc-ready")
    app.timeline.add_at(0.41, "widget emitted", "gc-sso-conflict (origin http://w, JSON string)")

    assert diagnose(app)[0] == (
        "the widget sent gc-sso-conflict at 0.41 s; the app never received it: "
        "your bridge did not forward it"
    )


def test_gc_sso_login_before_gc_ready() -> None:
    app = _App()
    app.timeline.add_at(0.1, "inject gcSsoLogin", "early, at document-end, as app user ada")
    app.timeline.add_at(0.3, "widget emitted", "gc-ready (origin http://w, JSON string)")
    _receive(app, 0.31, "gc-ready")

    assert diagnose(app, "E   AssertionError: signed-out")[0].startswith(
        "gcSsoLogin was called at 0.10 s, before gc-ready (0.30 s); "
        "the widget was not listening yet"
    )


def test_events_before_an_android_bridge_existed_are_not_blamed_on_it() -> None:
    app = _App(injection_point="page-finished", platform="android")
    app.timeline.add_at(0.2, "widget emitted", "gc-ready (origin http://w, JSON string)")
    app.timeline.add_at(0.5, "page finished")

    assert diagnose(app) == []


def test_a_later_documents_events_before_its_android_bridge_are_not_blamed_on_it() -> None:
    # Android injects at each document's page finished: the second document's gc-ready,
    # before its own page finished, never had a bridge to go through (seen in WebKit under
    # load: diagnosed first as "your bridge did not forward it").
    app = _App(injection_point="page-finished", platform="android")
    emitted = "(origin http://w, JSON string)"
    app.timeline.add_at(0.10, "page finished", "document 1")
    app.timeline.add_at(0.30, "page started", "onPageStarted: a new document in this view")
    app.timeline.add_at(0.66, "widget emitted", f"gc-ready {emitted}")

    assert diagnose(app) == []
    app.timeline.add_at(0.70, "page finished", "document 2")
    app.timeline.add_at(0.80, "widget emitted", f"gc-sso-conflict {emitted}")
    assert diagnose(app)[0].startswith("the widget sent gc-sso-conflict at 0.80 s")


def test_events_before_the_bridges_evaluation_returned_are_not_blamed_on_it() -> None:
    # onPageFinished, then evaluateJavascript: gc-ready sent in between found no bridge.
    app = _App(injection_point="page-finished", platform="android")
    emitted = "(origin http://w, JSON string)"
    app.timeline.add_at(0.40, "page finished")
    app.timeline.add_at(0.52, "widget emitted", f"gc-ready {emitted}")
    app.timeline.add_at(0.60, "bridge in page", "its evaluation returned")
    assert diagnose(app) == []
    app.timeline.add_at(0.70, "widget emitted", f"gc-sso-conflict {emitted}")
    assert diagnose(app)[0].startswith("the widget sent gc-sso-conflict at 0.70 s")


def test_a_new_documents_events_stamped_before_its_page_started_belong_to_it() -> None:
    # The page's clock stamps what the widget emitted; the app stamps page started when
    # the callback reaches it, which in Chromium can be after the new document's first
    # events. The reload the app asked for bounds the document all the same.
    app = _App()
    emitted = "(origin http://w, JSON string)"
    app.timeline.add_at(0.40, "widget emitted", f"gc-ready {emitted}")
    _receive(app, 0.41, "gc-ready")
    app.timeline.add_at(0.55, "reload", "by the page")
    app.timeline.add_at(0.605, "widget emitted", f"gc-ready {emitted}")
    app.timeline.add_at(0.609, "widget emitted", f"gc-loaded {emitted}")
    app.timeline.add_at(0.614, "page started", "a new document in this view")

    lines = diagnose(app, "E   AssertionError: 1 x gc-ready after the reload")
    assert lines and lines[0].startswith(
        "after the reload, gc-ready at 0.60 s never reached the app: is your bridge's "
        "install guard kept somewhere that outlives the page"
    ), lines
    assert not any("a re-render in the page" in line for line in lines), lines


def test_a_new_documents_events_before_its_android_bridge_blame_neither_bridge() -> None:
    # Android injects at each document's page finished. After a reload, the new document's
    # gc-ready can be stamped before its page started (the page's clock against the app's
    # callback): it still had no bridge to go through, and the old document's bridge is
    # not the one to blame. A bridge with an allow-list then drops only the probe.
    app = _App(injection_point="page-finished", platform="android")
    emitted = "(origin http://w, JSON string)"
    app.timeline.add_at(0.10, "page started", "a new document in this view")
    app.timeline.add_at(0.15, "widget emitted", f"gc-ready {emitted}")
    app.timeline.add_at(0.20, "page finished", "document 1")
    app.timeline.add_at(0.21, "bridge in page", "its evaluation returned")
    app.timeline.add_at(0.55, "reload", "by the app")
    app.timeline.add_at(0.648, "widget emitted", f"gc-ready {emitted}")
    app.timeline.add_at(0.651, "widget emitted", f"gc-loaded {emitted}")
    app.timeline.add_at(0.660, "page started", "a new document in this view")
    app.timeline.add_at(0.666, "page finished", "document 2")
    app.timeline.add_at(0.668, "bridge in page", "its evaluation returned")
    app.timeline.add_at(0.762, "widget emitted", f"gc-harness-ping {emitted}")

    lines = diagnose(app, "E   AssertionError: gc-harness-ping never reached the app")
    assert lines and lines[0].startswith(
        "the harness's probe message gc-harness-ping, posted by the page at 0.76 s"
    ), lines
    assert not [line for line in lines if "install guard" in line or "did not forward" in line]


def test_the_terminal_matrix_has_a_column_per_engine_and_point() -> None:
    rows = [
        {"scenario": "login: on_ready", "engine": e, "point": p, "outcome": o}
        for e, p, o in [
            ("chromium", "document-start", "passed"),
            ("webkit", "document-end", "failed"),
            ("chromium", "page-finished", "skipped"),
        ]
    ]
    head, line = matrix_text(rows).splitlines()
    assert head.split() == [
        "chromium/document-start",
        "chromium/page-finished",
        "webkit/document-end",
    ]
    assert line.split()[-3:] == ["pass", "skip", "FAIL"]
