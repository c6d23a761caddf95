"""gcbridge sso check against real loopback endpoints serving each kind of bad answer."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote

import pytest

from gcbridge.cli import main

SECRET = "sso-check-secret"
ADA = {"id": "42", "username": "ada", "email": "ada@example.com"}


def token(user=ADA, *, secret=SECRET, at=None, only_message=False, ts_text=None):
    """ssoData built here with the stdlib (not with the SDK under test)."""
    message = base64.b64encode(json.dumps(user).encode()).decode()
    ts = ts_text or str(int(time.time() if at is None else at))
    signed = message if only_message else f"{message} {ts}"
    sig = hmac.new(secret.encode(), signed.encode(), hashlib.sha1).hexdigest()
    return f"{message} {sig} {ts}"


NO_STORE = {"Cache-Control": "no-store"}


def answer(path):
    """(status, headers, body, date skew seconds) for each endpoint."""
    now = time.time()
    ok = json.dumps({"ssoData": token()}).encode()
    routes = {
        "/good": (200, NO_STORE, ok, 0),
        "/text": (200, {**NO_STORE, "Content-Type": "text/plain"}, token().encode(), 0),
        "/cacheable": (200, {"Cache-Control": "max-age=60"}, ok, 0),
        "/unauthorized": (401, NO_STORE, b'{"detail":"not signed in"}', 0),
        "/leaky": (302, {"Location": "/landing?ssoData=" + quote(token())}, b"", 0),
        "/landing": (200, NO_STORE, ok, 0),
        "/expired": (200, NO_STORE, json.dumps({"ssoData": token(at=now - 3600)}).encode(), 0),
        "/future": (200, NO_STORE, json.dumps({"ssoData": token(at=now + 3600)}).encode(), 0),
        "/wrong-secret": (200, NO_STORE, json.dumps({"ssoData": token(secret="x")}).encode(), 0),
        "/message-only": (
            200,
            NO_STORE,
            json.dumps({"ssoData": token(only_message=True)}).encode(),
            0,
        ),
        "/milliseconds": (
            200,
            NO_STORE,
            json.dumps({"ssoData": token(ts_text=str(int(now * 1000)))}).encode(),
            0,
        ),
        "/avatar": (
            200,
            NO_STORE,
            json.dumps({"ssoData": token({**ADA, "avatar": "https://e.com/a.png"})}).encode(),
            0,
        ),
        "/skewed": (200, NO_STORE, ok, 120),
        "/nothing": (200, NO_STORE, b'{"user": "ada"}', 0),
        "/everything": (
            200,
            {},
            json.dumps(
                {"ssoData": token({"id": "1", "username": "a\n", "avatar": "x"}, at=now - 3600)}
            ).encode(),
            0,
        ),
    }
    return routes.get(path, (404, {}, b"", 0))


class Handler(BaseHTTPRequestHandler):
    skew = 0

    def date_time_string(self, timestamp=None):
        return formatdate(time.time() + self.skew, usegmt=True)

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/needs-auth":
            good = self.headers.get("Authorization") == "Bearer app-session"
            status, headers, body, skew = answer("/good" if good else "/unauthorized")
        else:
            status, headers, body, skew = answer(path)
        self.skew = skew
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def backend():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(autouse=True)
def secret_env(monkeypatch):
    monkeypatch.setenv("GC_SSO_SECRET", SECRET)


def check(capsys, url, *extra):
    code = main(["sso", "check", "--url", url, "--secret-env", "GC_SSO_SECRET", *extra])
    out = capsys.readouterr().out
    assert SECRET not in out
    for part in token().split(" ")[:2]:
        assert part not in out  # neither the message nor the signature of a token
    return code, out


def reasons(out):
    return [line.split(":")[0] for line in out.splitlines() if not line[0].isdigit()]


@pytest.mark.parametrize("path", ["/good", "/text"])
def test_a_valid_endpoint_exits_0(backend, capsys, path):
    code, out = check(capsys, backend + path)
    assert code == 0, out
    assert out.startswith("ok: valid ssoData for id='42' username='ada'")


@pytest.mark.parametrize(
    ("path", "reason", "fix"),
    [
        ("/cacheable", "cacheable", "Cache-Control: no-store"),
        ("/unauthorized", "http_status", "--header"),
        ("/leaky", "redirect_leak", "never in a URL"),
        ("/expired", "expired", "fresh token"),
        ("/future", "issued_in_future", "current Unix time"),
        ("/wrong-secret", "bad_signature", "same secret"),
        ("/message-only", "bad_signature", "not the message alone"),
        ("/milliseconds", "bad_timestamp", "not milliseconds"),
        ("/avatar", "bad_user", "rename 'avatar' to 'picture'"),
        ("/skewed", "clock_skew", "NTP"),
        ("/nothing", "malformed", "ssoData"),
    ],
)
def test_each_bad_answer_is_one_line_with_its_reason_and_a_fix(backend, capsys, path, reason, fix):
    code, out = check(capsys, backend + path)
    assert code == 1, out
    lines = [line for line in out.splitlines() if line.startswith(reason + ":")]
    assert len(lines) == 1, out
    assert "; fix: " in lines[0] and fix in lines[0]
    assert out.splitlines()[-1].endswith("problem(s) found")


def test_avatar_refusal_names_the_field_meant(backend, capsys):
    _, out = check(capsys, backend + "/avatar")
    assert "unknown field 'avatar': the service's field is 'picture'" in out


def test_every_problem_is_listed(backend, capsys):
    code, out = check(capsys, backend + "/everything")
    assert code == 1
    found = reasons(out)
    assert {"cacheable", "expired", "bad_user"} <= set(found)
    assert found.count("bad_user") == 3  # username, avatar, missing email


def test_headers_are_sent_as_the_app_would(backend, capsys, monkeypatch):
    assert check(capsys, backend + "/needs-auth")[0] == 1
    monkeypatch.setenv("GC_APP_SESSION", "Authorization: Bearer app-session")
    code, _ = check(capsys, backend + "/needs-auth", "--header-env", "GC_APP_SESSION")
    assert code == 0


def test_json_output_is_one_object(backend, capsys):
    code, out = check(capsys, backend + "/avatar", "--json")
    report = json.loads(out)
    assert code == 1 and report["ok"] is False
    [problem] = report["problems"]
    assert problem["reason"] == "bad_user" and problem["field"] == "avatar"
    assert problem["meant"] == "picture" and problem["fix"]
    code, out = check(capsys, backend + "/good", "--json")
    assert code == 0 and json.loads(out)["user"]["username"] == "ada"


def test_unreachable_is_exit_2(capsys):
    code, out = check(capsys, "http://127.0.0.1:9/sso-data")
    assert code == 2 and out.startswith("unreachable:")
    code, out = check(capsys, "http://127.0.0.1:9/sso-data", "--json")
    assert code == 2 and json.loads(out)["error"] == "unreachable"


def test_a_bad_header_argument_is_a_usage_error(backend, capsys):
    code = main(
        [
            "sso",
            "check",
            "--url",
            backend + "/good",
            "--secret-env",
            "GC_SSO_SECRET",
            "--header",
            "no colon",
        ]
    )
    assert code == 2 and "[bad_header]" in capsys.readouterr().err


def test_the_readme_backend_passes_the_check(capsys, monkeypatch):
    """README: `gcbridge sso check` on docs_src/sso_backend.py, with and without the session."""
    import importlib.util
    from pathlib import Path

    from gcbridge.serving import BackgroundServer

    path = Path(__file__).parents[2] / "docs_src" / "sso_backend.py"
    spec = importlib.util.spec_from_file_location("docs_src_sso_backend_check", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with BackgroundServer(lambda port: module.app) as server:
        url = server.url + "/sso-data"
        monkeypatch.setenv("GC_APP_SESSION", "Authorization: Bearer session-of-ada")
        code, out = check(capsys, url, "--header-env", "GC_APP_SESSION")
        assert code == 0 and out.startswith("ok: valid ssoData for id='42' username='ada'")
        code, out = check(capsys, url)
        assert code == 1 and out.startswith("http_status: the endpoint answered HTTP 401")


@pytest.mark.parametrize("as_json", [False, True])
def test_a_leaking_redirect_is_reported_without_any_part_of_the_token(backend, capsys, as_json):
    code, out = check(capsys, backend + "/leaky", *(["--json"] if as_json else []))
    assert code == 1 and "redirect_leak" in out
    message, signature, timestamp = token().split(" ")
    for part in (message, quote(message), signature):
        pieces = {part[i : i + 12] for i in range(0, len(part) - 12)}
        assert not [p for p in pieces if p in out], out
    # the timestamp of the token (or of the one served a second before) is not shown either
    assert not any(str(int(timestamp) - d) in out for d in range(3)), out
