"""The shipped scenarios tell a good bridge.js from a broken one (run as an app team would)."""

from __future__ import annotations

import pytest
from gcbridge_harness.engines import engine_status

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
POINTS = ("document-start", "document-end", "page-finished", "page-started")


# A broken bridge fails by a wait running out: a shorter wait than an app team's
# default makes each expected failure cheaper; the scenarios it must pass still pass.
# (Each wait starts once the page has loaded; from there a passing run needs well under
# a second even with the whole suite running beside it: 0.5 s in the slowest seen.)
MUTANT_WAIT = ("--gc-wait", "3")


def engines_found() -> list[str]:
    """The engines a run without --gc-engine uses here (``make test`` insists on both)."""
    return [name for name in ENGINES if engine_status(name).found]


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


def assert_caught(
    pytester: pytest.Pytester, bridge: str, *, passes: str, fails: str, point: str
) -> None:
    """A broken bridge passes ``passes`` and fails ``fails`` (the scenario that catches it).

    One run for every engine found, at one injection point: a broken bridge needs
    one failing scenario per engine, not the matrix (the matrix runs once per
    engine, in the suite itself).
    """
    (pytester.path / "bridge.js").write_text(bridge, encoding="utf-8")
    engines = engines_found()
    result = _run(
        pytester,
        f"({passes} or {fails}) and {point}",
        "--gc-bridge",
        "bridge.js",
        *MUTANT_WAIT,
    )
    outcomes = _outcomes(result)
    for engine in engines:
        assert outcomes.get(f"test_{passes}[{engine}-{point}]") == "passed", result.stdout.str()
        name = f"test_{fails}[{engine}-{point}]"
        assert outcomes.get(name) == "failed", f"{name} passed"


def test_harness_passes_a_copy_of_the_shipped_bridge(pytester: pytest.Pytester) -> None:
    # The app team's way: a copy of bridge.js given with --gc-bridge, every engine found.
    # (The whole matrix with the shipped bridge runs in the suite itself, once per engine.)
    bridge = pytester.path / "copy" / "bridge.js"
    bridge.parent.mkdir()
    bridge.write_text(script().text, encoding="utf-8")
    engines = engines_found()

    result = _run(pytester, "login_on_ready", "--gc-bridge", str(bridge))

    result.assert_outcomes(passed=len(POINTS) * len(engines))
    assert f"gc-bridge harness engines: {', '.join(engines)}" in result.stdout.str()


def test_harness_fails_a_bridge_without_a_queue(pytester: pytest.Pytester) -> None:
    assert_caught(
        pytester,
        _no_queue_bridge(),
        passes="login_on_ready",
        fails="late_transport_gets_earlier_messages_in_order_once",
        point="document-start",
    )


def test_harness_fails_a_bridge_acting_only_on_ready(pytester: pytest.Pytester) -> None:
    assert_caught(
        pytester,
        _ready_only_bridge(),
        passes="login_on_ready",
        fails="login_on_loaded",
        point="document-start",
    )


def test_an_engine_named_but_missing_fails_the_run(pytester: pytest.Pytester) -> None:
    # No Chromium at this path and none elsewhere on a PATH that is empty.
    pytester.makepyfile(test_x="def test_x(engine): pass")
    result = pytester.runpytest_inprocess(  # a usage error: no browser starts
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
    result = pytester.runpytest_inprocess("--gc-engine", "webkit", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if line.strip()]
    assert len(errors) == 1, result.errlines
    assert "webkit asked for but not usable: missing Xvfb; install: sudo apt-get" in errors[0]


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
