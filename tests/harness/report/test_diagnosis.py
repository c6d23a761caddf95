"""Every broken bridge the harness catches is named in the failure: timeline + diagnosis line.

Each mutant is a copy of bridge.js with one step broken, run as an app team runs
the scenarios (a subprocess, ``--junitxml``); every failed case's JUnit message
must lead with the diagnosis and its text must carry the timeline.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from gcbridge_harness.engines import ENGINES, engine_status

from gcbridge.bridge import script
from tests.harness.scenarios.test_good_and_broken import MUTANT_WAIT, NAIVE_BRIDGE

pytest_plugins = ["pytester"]

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _mutant(old: str, new: str) -> str:
    source = script().text
    assert old in source, old
    return source.replace(old, new, 1)


DROPS_CONFLICT = _mutant(
    "if (text !== null) {", "if (text !== null && text.indexOf('gc-sso-conflict') < 0) {"
)
NO_IOS_TRANSPORT = _mutant(
    "var handler = webkit && webkit.messageHandlers && webkit.messageHandlers.gcBridge;",
    "var handler = null;",
)
SILENT_LOGIN = _mutant(
    "return post({ info: 'sso-login', data: ssoData });", "return ssoData ? true : false;"
)
SSO_IN_URL = _mutant(
    "return post({ info: 'sso-login', data: ssoData });",
    "win.history.replaceState(null, '', '#sso=' + encodeURIComponent(ssoData));\n"
    "      return post({ info: 'sso-login', data: ssoData });",
)

# mutant -> (bridge, -k subset, {test name: the diagnosis it must get})
MUTANTS = {
    "drops-conflict": (
        DROPS_CONFLICT,
        "conflict_resolved and document-start",
        {
            "test_conflict_resolved_with_corrected_username": "the widget sent gc-sso-conflict at",
        },
    ),
    "no-ios-transport": (
        NO_IOS_TRANSPORT,
        "login_on_ready and document-end",
        {
            "test_login_on_ready": "the app never received it: your bridge did not forward it "
            "through window.webkit.messageHandlers.gcBridge.postMessage",
        },
    ),
    "silent-login": (
        SILENT_LOGIN,
        "login_on_ready and document-start",
        {"test_login_on_ready": "your bridge never posted sso-login to the widget"},
    ),
    "sso-in-url": (
        SSO_IN_URL,
        "login_on_ready and page-finished",
        {"test_login_on_ready": "ssoData appeared in the page URL"},
    ),
    "naive": (
        NAIVE_BRIDGE,
        # ...and the happy path it must pass (it is not broken as a whole)
        "(login_on_ready or iframe_forgery or malformed or double_injection or own_origin)"
        " and document-start",
        {
            "test_cross_origin_iframe_forgery_is_not_forwarded": "a frame of "
            "<frame origin> posted gc-sso-conflict",
            "test_malformed_messages_are_dropped": "your bridge threw",
            "test_double_injection_forwards_once": "your bridge forwards each event more than once",
            "test_injections_post_to_the_own_origin_only": "with targetOrigin '*'",
        },
    ),
}


def _found(diagnosis: str, text: str) -> bool:
    """Whether ``text`` has ``diagnosis``; ``<frame origin>``: the frame server's (any port)."""
    pattern = re.escape(diagnosis).replace(re.escape("<frame origin>"), r"http://127\.0\.0\.1:\d+")
    return re.search(pattern, text) is not None


@pytest.mark.parametrize("mutant", list(MUTANTS))
def test_each_broken_bridge_is_diagnosed(pytester: pytest.Pytester, mutant: str) -> None:
    bridge, subset, expected = MUTANTS[mutant]
    (pytester.path / "bridge.js").write_text(bridge, encoding="utf-8")
    engines = [name for name in ENGINES if engine_status(name).found]

    result = pytester.runpytest_subprocess(
        "--pyargs",
        "gcbridge_harness.scenarios",
        "--gc-bridge",
        "bridge.js",
        "-k",
        subset,
        "-p",
        "no:cacheprovider",
        "--junitxml=junit.xml",
        *MUTANT_WAIT,
        timeout=240,
    )

    assert result.ret == 1, result.stdout.str()
    # Each scenario runs in every engine found here; each run is diagnosed on its own.
    cases = list(ET.parse(pytester.path / "junit.xml").getroot().iter("testcase"))
    names = {case.get("name", "").split("[")[0] for case in cases}
    assert len(cases) == len(names) * len(engines), "one JUnit case per run"
    assert names >= set(expected), result.stdout.str()
    failed = {}
    for case in cases:
        assert case.get("classname", "").startswith("gcbridge_harness.scenarios."), case.attrib
        failure = case.find("failure")
        if failure is not None:
            name, params = case.get("name", "").rstrip("]").split("[")
            failed[name, params.split("-")[0]] = failure
    assert set(failed) == {(n, e) for n in expected for e in engines}, result.stdout.str()
    # the rest passed: neither skipped nor errored (the naive bridge's happy path works)
    assert all(case.find("skipped") is None and case.find("error") is None for case in cases)
    for (name, engine), failure in failed.items():
        diagnosis = expected[name]
        message = failure.get("message", "")
        text = failure.text or ""
        assert _found(diagnosis, message), (name, engine, message)
        assert "diagnosis: " in text and _found(diagnosis, text), text[-3000:]
        assert "widget  widget emitted" in text, "the timeline shows what the widget sent"
        assert "service thread-load" in text
        assert not re.search(r"eyJ[A-Za-z0-9+/=]{12,}", text), "ssoData in clear in the failure"
