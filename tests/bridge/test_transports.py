"""Web -> App: forwarding through each native transport, in the contract's order."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

# Each shim records into window.__sent the way the platform delivers: a string.


def _rec(label: str) -> str:
    return f"(s) => {{ window.__sent.push(['{label}', s]); }}"


TRANSPORTS = {
    "config": f"window.gcBridgeConfig = {{transport: {_rec('config')}}};",
    "react-native": f"window.ReactNativeWebView = {{postMessage: {_rec('react-native')}}};",
    "ios": f"window.webkit = {{messageHandlers: {{gcBridge: {{postMessage: {_rec('ios')}}}}}}};",
    "android": f"window.GcBridgeAndroid = {{postMessage: {_rec('android')}}};",
    # pywebview's js_api calls answer with a Promise
    "pywebview": "window.pywebview = {api: {gc_bridge_message: (s) => {"
    " window.__sent.push(['pywebview', s]); return Promise.resolve(null); }}};",
}


@pytest.mark.parametrize("name", list(TRANSPORTS))
def test_named_message_is_forwarded_as_a_json_string(bridge_page, name):
    bp = bridge_page.open(TRANSPORTS[name])
    bp.post('{"name": "gc-loaded", "count": 3}')
    bp.post({"name": "gc-sso-conflict", "username": "alice"})  # a plain object is taken as is
    bp.settle()
    assert bp.sent() == [
        [name, '{"name":"gc-loaded","count":3}'],
        [name, '{"name":"gc-sso-conflict","username":"alice"}'],
        [name, '{"name":"sentinel"}'],
    ]
    assert bp.errors == []


def test_config_transport_comes_first(bridge_page):
    bp = bridge_page.open("".join(TRANSPORTS.values()))
    bp.settle()
    assert [who for who, _ in bp.sent()] == ["config"]


def test_platform_transports_are_chosen_at_send_time_in_contract_order(bridge_page):
    others = [n for n in TRANSPORTS if n != "config"]
    bp = bridge_page.open("".join(TRANSPORTS[n] for n in others))
    removals = {
        "react-native": "delete window.ReactNativeWebView",
        "ios": "delete window.webkit",
        "android": "delete window.GcBridgeAndroid",
    }
    for expected in others:
        bp.settle(f"to-{expected}")
        if expected in removals:
            bp.page.evaluate(f"() => {{ {removals[expected]}; }}")
    assert bp.sent() == [[n, f'{{"name":"to-{n}"}}'] for n in others]


def test_ios_transport_needs_the_gcbridge_handler_name(bridge_page):
    # Another handler name is not ours: the message waits in the queue.
    bp = bridge_page.open(
        "window.webkit = {messageHandlers: {other: {postMessage: (s) => window.__sent.push(s)}}};"
    )
    bp.settle()
    assert bp.sent() == []
    assert bp.stats()["waiting"] == 1
