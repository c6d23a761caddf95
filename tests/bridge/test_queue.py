"""Messages wait in a bounded queue until a transport appears; double injection forwards once."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.browser

LATE_PYWEBVIEW = """() => {
    window.pywebview = {api: {gc_bridge_message: function (s) {
        window.__sent.push(s);
        return Promise.resolve(null);
    }}};
    window.dispatchEvent(new CustomEvent('pywebviewready'));
}"""


def test_queue_flushes_in_order_on_pywebviewready(bridge_page):
    bp = bridge_page.open()
    for name in ("gc-ready", "gc-loaded"):
        bp.post(f'{{"name":"{name}"}}')
    bp.settle()
    assert bp.sent() == []
    assert bp.stats()["waiting"] == 3
    bp.page.evaluate(LATE_PYWEBVIEW)
    # pywebviewready flushes synchronously: no wait needed.
    assert bp.sent() == ['{"name":"gc-ready"}', '{"name":"gc-loaded"}', '{"name":"sentinel"}']
    assert bp.stats()["waiting"] == 0


def test_queue_flushes_when_a_transport_appears_without_any_event(bridge_page):
    bp = bridge_page.open()
    bp.post('{"name":"gc-ready"}')
    bp.settle()
    bp.page.evaluate(
        "() => { window.GcBridgeAndroid = {postMessage: function (s) { window.__sent.push(s); }}; }"
    )
    bp.page.wait_for_function("() => window.__sent.length === 2")
    assert bp.sent() == ['{"name":"gc-ready"}', '{"name":"sentinel"}']


def test_new_messages_do_not_overtake_queued_ones(bridge_page):
    bp = bridge_page.open()
    bp.post('{"name":"first"}')
    bp.settle()
    bp.page.evaluate(
        "() => { window.ReactNativeWebView = {postMessage: (s) => { window.__sent.push(s); }}; }"
    )
    bp.post('{"name":"third"}')
    bp.settle("fourth")
    names = [json.loads(s)["name"] for s in bp.sent()]
    assert names == ["first", "sentinel", "third", "fourth"]


def test_queue_is_bounded_and_drops_the_oldest(bridge_page):
    bp = bridge_page.open()
    bp.page.evaluate(
        """() => {
            for (let i = 0; i < 104; i++) {
                window.postMessage(JSON.stringify({name: 'm' + i}), location.origin);
            }
        }"""
    )
    bp.settle()  # the 105th
    stats = bp.stats()
    assert stats["waiting"] == 100
    assert stats["dropped"]["queue_full"] == 5
    bp.page.evaluate(LATE_PYWEBVIEW)
    sent = bp.sent()
    assert len(sent) == 100
    assert sent[0] == '{"name":"m5"}'
    assert sent[-1] == '{"name":"sentinel"}'


def test_double_injection_forwards_once(bridge_page):
    bp = bridge_page.open(
        "window.ReactNativeWebView = {postMessage: function (s) { window.__sent.push(s); }};"
    )
    first = bp.page.evaluate("() => { window.__first = window.gcBridge; return true; }")
    assert first
    bp.inject()  # e.g. injectedJavaScriptBeforeContentLoaded and injectedJavaScript both ran
    bp.inject()
    assert bp.page.evaluate("() => window.gcBridge === window.__first") is True
    bp.post('{"name":"gc-ready"}')
    bp.settle()
    assert bp.sent() == ['{"name":"gc-ready"}', '{"name":"sentinel"}']
    assert bp.errors == []
