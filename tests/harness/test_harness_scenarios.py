"""The shipped scenarios tell a good bridge.js from a broken one (run as an app team would)."""

from __future__ import annotations

import pytest

from gcbridge.bridge import script

pytest_plugins = ["pytester"]

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# A copy of bridge.js the way it is often hand-written: it works for the happy
# path but posts with '*', trusts every frame, parses without a guard and
# installs a second listener when injected twice.
NAIVE_BRIDGE = """
(function () {
  function send(text) {
    if (window.ReactNativeWebView) { window.ReactNativeWebView.postMessage(text); }
    else if (window.webkit && window.webkit.messageHandlers.gcBridge) {
      window.webkit.messageHandlers.gcBridge.postMessage(text);
    } else if (window.GcBridgeAndroid) { window.GcBridgeAndroid.postMessage(text); }
  }
  window.gcSsoLogin = function (data) {
    window.postMessage(JSON.stringify({info: 'sso-login', data: data}), '*');
  };
  window.gcSsoLogout = function () {
    window.postMessage(JSON.stringify({info: 'sso-logout'}), '*');
  };
  window.gcBridge = {version: '0.0.1', protocol: 1};
  window.addEventListener('message', function (event) {
    var data = event.data;
    var message = typeof data === 'string' ? JSON.parse(data) : data;
    if (message && message.name) { send(JSON.stringify(message)); }
  });
})();
"""

# Representative scenarios, each at all three injection points: the whole
# matrix is `pytest --pyargs gcbridge_harness.scenarios` (see harness/README.md).
GOOD_SUBSET = "login_on_ready or missing_api_public_key or relaunch_keeps or iframe"
# The scenarios a naive bridge must fail, and the happy path it must pass.
NAIVE_SUBSET = "login_on_ready or iframe or malformed or double_injection or own_origin"


def _run(pytester: pytest.Pytester, subset: str, *args: str) -> pytest.RunResult:
    # A subprocess: the scenarios start their own Playwright, which must not
    # share this process's event loop.
    return pytester.runpytest_subprocess(
        "--pyargs",
        "gcbridge_harness.scenarios",
        "-k",
        subset,
        "-p",
        "no:cacheprovider",
        "-rA",
        *args,
        timeout=240,
    )


def _outcomes(result: pytest.RunResult) -> dict[str, str]:
    """test name (without parameters) + injection point -> 'passed' / 'failed'."""
    outcomes: dict[str, str] = {}
    for report in ("PASSED", "FAILED", "ERROR"):
        for line in result.outlines:
            if line.startswith(report + " "):
                outcomes[line.split()[1].split("::")[-1]] = report.lower()
    return outcomes


def test_harness_passes_the_shipped_bridge(pytester: pytest.Pytester) -> None:
    bridge = pytester.path / "bridge.js"
    bridge.write_text(script().text, encoding="utf-8")

    result = _run(pytester, GOOD_SUBSET, "--gc-bridge", str(bridge))

    result.assert_outcomes(passed=12)


def test_harness_fails_a_naive_bridge(pytester: pytest.Pytester) -> None:
    bridge = pytester.path / "naive-bridge.js"
    bridge.write_text(NAIVE_BRIDGE, encoding="utf-8")

    result = _run(pytester, NAIVE_SUBSET, "--gc-bridge", str(bridge))

    outcomes = _outcomes(result)
    points = ("document-start", "document-end", "page-finished")
    # The happy path works...
    for point in points:
        assert outcomes[f"test_login_on_ready[{point}-chromium]"] == "passed", result.stdout.str()
    # ...and each shortcut is caught at every injection point.
    caught = (
        "test_cross_origin_iframe_forgery_is_not_forwarded",
        "test_malformed_messages_are_dropped",
        "test_double_injection_forwards_once",
        "test_injections_post_to_the_own_origin_only",
    )
    for name in caught:
        for point in points:
            assert outcomes[f"{name}[{point}-chromium]"] == "failed", f"{name}[{point}] passed"
