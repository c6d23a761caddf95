"""bridge.js globals and the App -> Web functions gcSsoLogin / gcSsoLogout."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.browser

CONFIG = "window.gcBridgeConfig = {transport: function (s) { window.__sent.push(s); }};"
SPY = """
window.__posts = [];
var realPost = window.postMessage;
window.postMessage = function (data, target) {
  window.__posts.push([data, target]);
  return realPost.apply(window, arguments);
};
"""


def test_globals_declare_version_and_protocol(bridge_page):
    bp = bridge_page.open(CONFIG)
    info = bp.page.evaluate(
        """() => ({
            version: window.gcBridge.version,
            protocol: window.gcBridge.protocol,
            frozen: Object.isFrozen(window.gcBridge),
            login: typeof window.gcSsoLogin,
            logout: typeof window.gcSsoLogout,
            markerEnumerable: Object.keys(window).includes('__gcBridgeInstalled'),
            markerSet: Object.prototype.hasOwnProperty.call(window, '__gcBridgeInstalled'),
        })"""
    )
    assert info == {
        "version": "1.0.0",
        "protocol": 1,
        "frozen": True,
        "login": "function",
        "logout": "function",
        "markerEnumerable": False,
        "markerSet": True,
    }
    assert bp.errors == []


def test_gc_sso_login_posts_the_exact_json_string_to_its_own_origin(bridge_page):
    bp = bridge_page.open(CONFIG + SPY)
    sso = "eyJpZCI6IjEifQ== 0123abcd 1700000000"
    assert bp.page.evaluate("(d) => window.gcSsoLogin(d)", sso) is True
    bp.settle()
    posts = bp.page.evaluate("() => window.__posts")
    expected = json.dumps({"info": "sso-login", "data": sso}, separators=(",", ":"))
    assert posts[0] == [expected, bp.origins.own]
    assert expected in bp.page.evaluate("() => window.__seen")
    # The bridge's own message has no name: it is not sent back to the app.
    assert bp.sent() == ['{"name":"sentinel"}']


def test_gc_sso_logout_posts_the_exact_json_string_to_its_own_origin(bridge_page):
    bp = bridge_page.open(CONFIG + SPY)
    bp.page.evaluate("() => window.gcSsoLogout()")
    bp.settle()
    posts = bp.page.evaluate("() => window.__posts")
    assert posts[0] == ['{"info":"sso-logout"}', bp.origins.own]
    assert bp.sent() == ['{"name":"sentinel"}']


def test_gc_sso_login_on_an_opaque_origin_posts_nothing_and_warns(bridge_page):
    page = bridge_page.page
    page.goto("data:text/html,<p>a data: URL has the opaque origin null</p>")
    page.evaluate(f"() => {{ window.__sent = []; {SPY} }}")
    bridge_page.inject()
    assert page.evaluate("() => location.origin") == "null"
    assert page.evaluate("() => window.gcSsoLogin('secret-sso-data')") is False
    assert page.evaluate("() => window.__posts") == []
    assert any("opaque origin" in w for w in bridge_page.warnings)
    assert not any("secret-sso-data" in w for w in bridge_page.warnings)
    assert bridge_page.errors == []


def test_install_can_be_called_and_a_second_install_changes_nothing(bridge_page):
    bp = bridge_page.open(CONFIG)
    same = bp.page.evaluate(
        """() => {
            const first = window.gcBridge;
            const again = first.install(window, {transport: () => { throw new Error('x'); }});
            return again === first && window.gcBridge === first;
        }"""
    )
    assert same is True
    bp.post('{"name":"gc-ready"}')
    bp.settle()
    assert bp.sent() == ['{"name":"gc-ready"}', '{"name":"sentinel"}']


def test_install_reads_config_as_data_never_as_code(bridge_page):
    # allowedOrigins with quotes and script text is data: nothing runs, nothing breaks.
    hostile = "window.gcBridgeConfig = {allowedOrigins: [\"'); window.__pwned = 1; ('\", '*', 5],"
    hostile += " transport: function (s) { window.__sent.push(s); }};"
    bp = bridge_page.open(hostile)
    bp.settle()
    assert bp.page.evaluate("() => window.__pwned") is None
    assert bp.sent() == ['{"name":"sentinel"}']
    assert bp.errors == []
