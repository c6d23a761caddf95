"""The ssoData leak check: every part masked, the place named.

No browser but in the last test: the checker is fed what a browser would record.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote

import pytest
from gcbridge_harness.report.diagnosis import diagnose
from gcbridge_harness.report.leaks import SsoLeakChecker, mask_sso, mask_trace
from gcbridge_harness.report.timeline import Timeline

from gcbridge.sso.issuer import SsoIssuer

LOGIN_ORIGIN = "http://127.0.0.1:9"


def _sso_data() -> str:
    issuer = SsoIssuer("a-harness-test-secret-0123456789")
    return issuer.issue({"id": "42", "username": "ada", "email": "ada@example.com"})


def _in_clear(text: str, sso_data: str) -> list[str]:
    """The parts of ``sso_data`` (and 12-character pieces of them) still readable in ``text``."""
    message, signature, timestamp = sso_data.split(" ")
    found = [p for p in (message, signature, quote(message, safe="")) if p in text]
    found += [
        signature[i : i + 12]
        for i in range(0, len(signature) - 12, 4)
        if signature[i : i + 12] in text
    ]
    found += [
        message[i : i + 12] for i in range(0, len(message) - 12, 4) if message[i : i + 12] in text
    ]
    if re.search(rf"(?<!\d){timestamp}(?!\d)", text):
        found.append(timestamp)
    return found


PLACES = {
    "console.log": "was printed to the console",
    "page localStorage": "was stored in localStorage",
    "page sessionStorage": "was stored in sessionStorage",
    "page historyState": "was stored in history.state",
    "storage state": "was kept in the WebView's storage state",
    "body of POST http://127.0.0.1:9/api/track": "was sent in a request body",
    "GET request URL": "was sent in a request URL",
}


@pytest.mark.parametrize("where", list(PLACES))
def test_each_place_is_named_in_the_failure_and_the_diagnosis(where: str) -> None:
    sso_data = _sso_data()
    checker = SsoLeakChecker(login_origin=LOGIN_ORIGIN)
    checker.remember(sso_data)
    message, signature, timestamp = sso_data.split(" ")
    # the message part first, the signature and timestamp more than 40 characters on
    text = json.dumps({"m": message, "pad": "x" * 60, "sig": f"{signature} {timestamp}"})
    checker.record(where, text)

    with pytest.raises(AssertionError) as failure:
        checker.check()
    (leak,) = checker.leaks()
    assert PLACES[where] in leak.place
    assert _in_clear(str(failure.value), sso_data) == []
    app = SimpleNamespace(timeline=Timeline(), leaks=checker)
    lines = diagnose(app, str(failure.value))
    assert lines and lines[0].startswith("ssoData ") and PLACES[where] in lines[0], lines
    # From the failure's text alone too (a report row built elsewhere).
    lines = diagnose(SimpleNamespace(timeline=Timeline()), str(failure.value))
    assert PLACES[where] in lines[0], lines


def test_several_places_are_all_named() -> None:
    sso_data = _sso_data()
    checker = SsoLeakChecker(login_origin=LOGIN_ORIGIN)
    checker.remember(sso_data)
    checker.record("console.log", f"got {sso_data}")
    checker.record("page localStorage", json.dumps({"k": sso_data}))
    line = diagnose(SimpleNamespace(timeline=Timeline(), leaks=checker), "ssoData leaked")[0]
    assert "was stored in localStorage" in line and "was printed to the console" in line


@pytest.mark.parametrize(
    "shape",
    [
        "{whole}",
        "{signature} {timestamp}",
        "sig={signature}&ts={timestamp}&m={message}",
        "{quoted}",
        "{message}" + " " * 50 + "{signature}",
    ],
)
def test_mask_sso_leaves_no_part_in_clear(shape: str) -> None:
    sso_data = _sso_data()
    message, signature, timestamp = sso_data.split(" ")
    text = shape.format(
        whole=sso_data,
        message=message,
        signature=signature,
        timestamp=timestamp,
        quoted=quote(sso_data, safe=""),
    )
    masked = mask_sso(text, [sso_data])
    assert _in_clear(masked, sso_data) == []
    assert "chars]" in masked


@pytest.mark.parametrize(
    "shape",
    [
        "sig={signature}&ts={timestamp}",
        '{{"message": "{message}", "issued": {timestamp}}}',
        "{timestamp}: {message}",
    ],
)
def test_a_leak_failure_never_shows_the_timestamp_apart_from_its_signature(shape: str) -> None:
    sso_data = _sso_data()
    message, signature, timestamp = sso_data.split(" ")
    checker = SsoLeakChecker(login_origin=LOGIN_ORIGIN)
    checker.remember(sso_data)
    text = shape.format(message=message, signature=signature, timestamp=timestamp)
    checker.record("console.log", text)
    checker.record(f"GET request URL http://127.0.0.1:9/t?ts={timestamp}", text)
    with pytest.raises(AssertionError) as failure:
        checker.check()
    assert _in_clear(str(failure.value), sso_data) == []
    assert all(_in_clear(str(leak), sso_data) == [] for leak in checker.leaks())


def test_a_trace_is_masked_in_every_file(tmp_path: Path) -> None:
    sso_data = _sso_data()
    trace = tmp_path / "trace.zip"
    with zipfile.ZipFile(trace, "w") as z:
        z.writestr("trace.network", json.dumps({"postData": json.dumps({"ssoData": sso_data})}))
        z.writestr("resources/abc.txt", f"form={quote(sso_data, safe='')}")
        z.writestr("trace.trace", json.dumps({"args": [f"window.gcSsoLogin('{sso_data}')"]}))
        z.writestr("resources/shot.jpeg", b"\xff\xd8 no secret here")
    mask_trace(trace, [sso_data])
    with zipfile.ZipFile(trace) as z:
        names = z.namelist()
        for name in names:
            data = z.read(name).decode("utf-8", "replace")
            assert _in_clear(data, sso_data) == [], name
    assert sorted(names) == [
        "resources/abc.txt",
        "resources/shot.jpeg",
        "trace.network",
        "trace.trace",
    ]


def test_the_timestamp_beside_a_leaked_signature_is_masked_too() -> None:
    sso_data = _sso_data()
    _, signature, timestamp = sso_data.split(" ")
    checker = SsoLeakChecker(login_origin=LOGIN_ORIGIN)
    checker.remember(sso_data)
    checker.record("console.log", f"signed {signature} {timestamp} ok")
    with pytest.raises(AssertionError) as failure:
        checker.check()
    assert _in_clear(str(failure.value), sso_data) == []


@pytest.mark.browser
def test_a_real_playwright_trace_keeps_no_sso_data(tmp_path: Path, browser: Any) -> None:
    # pytest-playwright's browser of the session (one sync Playwright per process: a second
    # sync_playwright() would run inside its asyncio loop)
    sso_data = _sso_data()
    trace = tmp_path / "trace.zip"
    context = browser.new_context()
    try:
        context.tracing.start(screenshots=True, snapshots=True)
        page = context.new_page()
        page.set_content("<p>widget</p>")
        page.evaluate("s => { window.kept = s; document.title = s.slice(0, 8); }", sso_data)
        page.evaluate(f"window.gcSsoLogin = 1; {json.dumps(sso_data)}.length")
        context.tracing.stop(path=str(trace))
    finally:
        context.close()
    with zipfile.ZipFile(trace) as z:
        assert any(
            sso_data.split(" ")[1] in z.read(n).decode("utf-8", "replace") for n in z.namelist()
        )
    mask_trace(trace, [sso_data])
    with zipfile.ZipFile(trace) as z:
        assert z.testzip() is None
        for name in z.namelist():
            assert _in_clear(z.read(name).decode("utf-8", "replace"), sso_data) == [], name
