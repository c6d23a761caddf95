"""Only the own window and origin (or allowedOrigins) reach the app; bad messages drop quietly."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

pytestmark = pytest.mark.browser

CAPTURE = "window.ReactNativeWebView = {postMessage: function (s) { window.__sent.push(s); }};"
FORGED = json.dumps({"name": "gc-sso-conflict", "username": "mallory"})


def _load_frame(bp, origin):
    """Add an iframe from ``origin`` that posts FORGED to the page; wait until the page saw it."""
    src = f"{origin}/frame?send={quote(FORGED)}"
    bp.page.evaluate(
        """(src) => new Promise((resolve) => {
            const f = document.createElement('iframe');
            f.src = src;
            f.onload = resolve;
            document.body.appendChild(f);
        })""",
        src,
    )
    bp.page.wait_for_function("(m) => window.__seen.includes(m)", arg=FORGED)


def test_foreign_origin_frame_is_not_forwarded(bridge_page):
    bp = bridge_page.open(CAPTURE)
    _load_frame(bp, bp.origins.foreign)
    bp.settle()
    assert bp.sent() == ['{"name":"sentinel"}']
    assert bp.stats()["dropped"]["foreign"] == 1


def test_same_origin_frame_is_not_the_page_and_is_not_forwarded(bridge_page):
    bp = bridge_page.open(CAPTURE)
    _load_frame(bp, bp.origins.own)
    bp.settle()
    assert bp.sent() == ['{"name":"sentinel"}']


def test_allowed_origins_admits_a_listed_frame(bridge_page):
    origin = bridge_page.origins.foreign
    config = f"window.gcBridgeConfig = {{allowedOrigins: [{json.dumps(origin + '/')}]}};"
    bp = bridge_page.open(CAPTURE + config)
    _load_frame(bp, origin)
    bp.settle()
    compact = json.dumps(json.loads(FORGED), separators=(",", ":"))
    assert bp.sent() == [compact, '{"name":"sentinel"}']


def test_wildcard_in_allowed_origins_admits_nobody(bridge_page):
    bp = bridge_page.open(CAPTURE + "window.gcBridgeConfig = {allowedOrigins: ['*', 'null']};")
    _load_frame(bp, bp.origins.foreign)
    bp.settle()
    assert bp.sent() == ['{"name":"sentinel"}']


BAD_MESSAGES = {
    "oversized": "JSON.stringify({name: 'big', pad: 'x'.repeat(65536)})",
    "oversized object": "({name: 'big', pad: 'x'.repeat(65536)})",
    "not json": "'{name: gc-ready'",
    "plain text": "'gc-ready'",
    "nameless": "JSON.stringify({info: 'sso-login', data: 'x'})",
    "number name": "JSON.stringify({name: 5})",
    "object name": "JSON.stringify({name: {toString: 1}})",
    "array": "JSON.stringify([{name: 'gc-ready'}])",
    "json null": "'null'",
    "json number": "'42'",
    "proto key": '\'{"name":"gc-ready","__proto__":{"admin":true}}\'',
    "nested proto key": '\'{"name":"gc-ready","a":{"__proto__":{"admin":true}}}\'',
    "undefined": "undefined",
    "array object": "[1, 2]",
    "date": "new Date(0)",
    "blob": 'new Blob([\'{"name":"gc-ready"}\'])',
}


def test_bad_messages_are_dropped_without_page_errors(bridge_page):
    bp = bridge_page.open(CAPTURE)
    for expr in BAD_MESSAGES.values():
        bp.post(expr, raw=True)
    bp.settle()
    assert bp.sent() == ['{"name":"sentinel"}']
    dropped = bp.stats()["dropped"]
    assert dropped["oversized"] == 2
    assert dropped["malformed"] == 4  # not json, plain text, two __proto__ keys
    assert bp.errors == []
    assert bp.page.evaluate("() => ({}).admin") is None


def test_message_of_exactly_64_kib_is_forwarded(bridge_page):
    bp = bridge_page.open(CAPTURE)
    text = json.dumps({"name": "big", "pad": ""}, separators=(",", ":"))
    text = text.replace('""', '"' + "x" * (65536 - len(text)) + '"')
    assert len(text) == 65536
    bp.post(text)
    bp.settle()
    assert bp.sent() == [text, '{"name":"sentinel"}']


def _nested(levels: int) -> str:
    """A named message nesting ``levels`` objects/arrays in all (itself included)."""
    inner = "[" * (levels - 1) + "]" * (levels - 1)
    return '{"name":"deep","a":' + inner + "}"


def test_nesting_beyond_32_levels_is_dropped(bridge_page):
    bp = bridge_page.open(CAPTURE)
    at_cap = _nested(32)
    bp.post(at_cap)
    bp.post(_nested(33))
    bp.post(_nested(10_000))  # far beyond any recursive parser, still under 64 KiB
    # Brackets inside strings are text, not nesting.
    in_string = json.dumps({"name": "brackets", "s": "[{" * 100 + '\\"['}, separators=(",", ":"))
    bp.post(in_string)
    # The same cap holds for a message posted as an object.
    bp.post("({name: 'deep-object', a: Array.from({length: 40}).reduce((o) => [o], [])})", raw=True)
    bp.settle()
    assert bp.sent() == [at_cap, in_string, '{"name":"sentinel"}']
    assert json.loads(at_cap)  # what is forwarded stays parseable by recursive parsers
    assert bp.stats()["dropped"]["too_deep"] == 3
    assert bp.errors == []


def test_a_throwing_transport_does_not_break_the_page(bridge_page):
    bp = bridge_page.open(
        "window.GcBridgeAndroid = {postMessage: (s) => {"
        " window.__sent.push(s); throw new Error('native side gone'); }};"
    )
    bp.post('{"name":"gc-ready"}')
    bp.settle()
    # Still alive and still trying: every message reached the (throwing) transport.
    assert bp.sent() == ['{"name":"gc-ready"}', '{"name":"sentinel"}']
    assert bp.stats()["dropped"]["transport_error"] == 2
    assert bp.errors == []
    assert sum("transport threw" in w for w in bp.warnings) == 1


def test_a_rejecting_pywebview_call_is_not_an_unhandled_rejection(bridge_page):
    bp = bridge_page.open(
        "window.pywebview = {api: {gc_bridge_message: (s) => {"
        " window.__sent.push(s); return Promise.reject(new Error('no')); }}};"
    )
    bp.settle()
    bp.page.wait_for_function("() => window.gcBridge.stats().dropped.transport_error === 1")
    assert bp.errors == []


def test_a_throwing_transport_getter_counts_as_absent(bridge_page):
    bp = bridge_page.open(
        "Object.defineProperty(window, 'ReactNativeWebView',"
        " {configurable: true, get: () => { throw new Error('boom'); }});"
    )
    bp.settle()
    assert bp.stats()["waiting"] == 1
    assert bp.errors == []
