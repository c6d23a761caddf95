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


# The shipped bridge with its queue taken out: a message sent while no transport
# exists is dropped instead of kept until one arrives.
def _no_queue_bridge() -> str:
    text = script().text
    queued = "      queue.push(text);\n      counts.queued += 1;\n"
    assert queued in text, "bridge.js changed: update the no-queue mutation"
    return text.replace(queued, "      drop('queue_full');\n      return;\n")


# A bridge that acts only on gc-ready: every other event is dropped.
def _ready_only_bridge() -> str:
    text = script().text
    named = "      return toJson(parsed);\n"
    assert named in text, "bridge.js changed: update the ready-only mutation"
    only = "      if (parsed.name !== 'gc-ready') { drop('unnamed'); return null; }\n"
    return text.replace(named, only + named)


ENGINES = ("chromium", "webkit")
POINTS = ("document-start", "document-end", "page-finished")

# Representative scenarios, each at all three injection points: the whole
# matrix is `pytest --pyargs gcbridge_harness.scenarios` (see harness/README.md).
GOOD_SUBSET = (
    "login_on_ready or missing_api_public_key or relaunch_keeps or iframe or late_transport"
    " or replacing_window_webkit"
)
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


@pytest.mark.parametrize("engine", ENGINES)
def test_harness_passes_the_shipped_bridge(pytester: pytest.Pytester, engine: str) -> None:
    bridge = pytester.path / "bridge.js"
    bridge.write_text(script().text, encoding="utf-8")

    result = _run(pytester, GOOD_SUBSET, "--gc-bridge", str(bridge), "--gc-engine", engine)

    # Seven scenarios at three points; the isolated-world one runs only where one exists.
    isolated = 1 if engine == "webkit" else 0
    result.assert_outcomes(passed=18 + isolated, skipped=3 - isolated)
    assert f"gc-bridge harness engines: {engine}" in result.stdout.str()


@pytest.mark.parametrize("engine", ENGINES)
def test_harness_fails_a_naive_bridge(pytester: pytest.Pytester, engine: str) -> None:
    bridge = pytester.path / "naive-bridge.js"
    bridge.write_text(NAIVE_BRIDGE, encoding="utf-8")

    result = _run(pytester, NAIVE_SUBSET, "--gc-bridge", str(bridge), "--gc-engine", engine)

    outcomes = _outcomes(result)
    # The happy path works...
    for point in POINTS:
        assert outcomes[f"test_login_on_ready[{engine}-{point}]"] == "passed", result.stdout.str()
    # ...and each shortcut is caught at every injection point.
    caught = (
        "test_cross_origin_iframe_forgery_is_not_forwarded",
        "test_malformed_messages_are_dropped",
        "test_double_injection_forwards_once",
        "test_injections_post_to_the_own_origin_only",
    )
    for name in caught:
        for point in POINTS:
            assert outcomes[f"{name}[{engine}-{point}]"] == "failed", f"{name}[{point}] passed"


@pytest.mark.parametrize("engine", ENGINES)
def test_harness_fails_a_bridge_without_a_queue(pytester: pytest.Pytester, engine: str) -> None:
    bridge = pytester.path / "no-queue-bridge.js"
    bridge.write_text(_no_queue_bridge(), encoding="utf-8")

    result = _run(
        pytester,
        "login_on_ready or late_transport",
        "--gc-bridge",
        str(bridge),
        "--gc-engine",
        engine,
    )

    outcomes = _outcomes(result)
    for point in POINTS:
        assert outcomes[f"test_login_on_ready[{engine}-{point}]"] == "passed", result.stdout.str()
        name = f"test_late_transport_gets_earlier_messages_in_order_once[{engine}-{point}]"
        assert outcomes[name] == "failed", f"{name} passed"


def test_an_engine_named_but_missing_fails_the_run(pytester: pytest.Pytester) -> None:
    # No Chromium at this path and none elsewhere on a PATH that is empty.
    pytester.makepyfile(test_x="def test_x(engine): pass")
    result = pytester.runpytest_subprocess(
        "--gc-engine", "chromium", "--gc-browser", "/nonexistent/chromium", "-p", "no:cacheprovider"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if line.strip()]
    assert len(errors) == 1, result.errlines  # one line, from one place
    assert "chromium asked for but not usable: --gc-browser='/nonexistent/chromium'" in errors[0]
    assert "install: " in errors[0]


def test_webkit_named_but_missing_fails_the_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without Xvfb on PATH WebKit is not found; the same line names it and its install.
    monkeypatch.setenv("PATH", str(pytester.path))
    pytester.makepyfile(test_x="def test_x(engine): pass")
    result = pytester.runpytest_subprocess("--gc-engine", "webkit", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if line.strip()]
    assert len(errors) == 1, result.errlines
    assert "webkit asked for but not usable: missing Xvfb; install: sudo apt-get" in errors[0]


@pytest.mark.parametrize("engine", ENGINES)
def test_harness_fails_a_bridge_acting_only_on_ready(
    pytester: pytest.Pytester, engine: str
) -> None:
    bridge = pytester.path / "ready-only-bridge.js"
    bridge.write_text(_ready_only_bridge(), encoding="utf-8")

    result = _run(
        pytester,
        "login_on_ready or login_on_loaded",
        "--gc-bridge",
        str(bridge),
        "--gc-engine",
        engine,
    )

    outcomes = _outcomes(result)
    for point in POINTS:
        assert outcomes[f"test_login_on_ready[{engine}-{point}]"] == "passed", result.stdout.str()
        name = f"test_login_on_loaded[{engine}-{point}]"
        assert outcomes[name] == "failed", f"{name} passed"


def test_default_runs_the_engines_found_and_names_the_missing(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without Xvfb on PATH WebKit is not found; Chromium is found by its path.
    monkeypatch.setenv("PATH", str(pytester.path))
    pytester.makepyfile(test_x="def test_x(engine): assert engine == 'chromium'")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=1)
    out = result.stdout.str()
    assert "gc-bridge harness engines: chromium" in out
    assert "webkit not found (missing Xvfb); install: sudo apt-get install" in out
    assert "test_x[chromium]" in out
