"""``sso check`` trusts no server.

Credentials stay on the checked origin and a redirect is a finding; a server
that trickles bytes or answers hundreds of megabytes ends in one line; the
app's session never goes through argv; ``--json`` escapes what the server
named; ``--emulator`` signs the token in as the widget would.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import pytest
from gcbridge_harness.world.frames import PageServer

from gcbridge.cli import main

SECRET = "sso-check-hostile-secret"


def token(user: dict, *, secret: str = SECRET) -> str:
    message = base64.b64encode(json.dumps(user).encode()).decode()
    ts = str(int(time.time()))
    sig = hmac.new(secret.encode(), f"{message} {ts}".encode(), hashlib.sha1).hexdigest()
    return f"{message} {sig} {ts}"


class Server:
    """A loopback HTTP server answering ``routes[path]``; records each request's headers."""

    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, dict[str, str], bytes]] = {}
        self.seen: list[tuple[str, dict[str, str]]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.seen.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                status, headers, body = outer.routes.get(self.path, (404, {}, b""))
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        # the command under test hangs up on what it refuses (a body too large): quietly
        self.http = PageServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()


@pytest.fixture
def servers() -> Iterator[tuple[Server, Server]]:
    a, b = Server(), Server()
    yield a, b
    a.close()
    b.close()


@pytest.fixture(autouse=True)
def secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GC_SSO_SECRET", SECRET)
    monkeypatch.setenv("GC_APP_SESSION", "Authorization: Bearer app-session-of-ada")


def check(capsys: pytest.CaptureFixture[str], url: str, *extra: str) -> tuple[int, str, str]:
    code = main(["sso", "check", "--url", url, "--secret-env", "GC_SSO_SECRET", *extra])
    out, err = capsys.readouterr()
    assert "app-session-of-ada" not in out + err
    return code, out, err


GOOD = {"Cache-Control": "no-store"}
ADA = {"id": "42", "username": "ada", "email": "ada@example.com"}


# --- 5. credentials stay on the checked origin; a redirect is a finding -----------------


def test_a_redirect_to_another_origin_gets_no_credentials_and_is_reported(
    servers: tuple[Server, Server], capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = servers
    a.routes["/sso-data"] = (302, {"Location": b.url + "/login"}, b"")
    b.routes["/login"] = (200, GOOD, json.dumps({"ssoData": token(ADA)}).encode())
    code, out, _ = check(capsys, a.url + "/sso-data", "--header-env", "GC_APP_SESSION")
    assert a.seen[0][1]["authorization"] == "Bearer app-session-of-ada"
    assert [path for path, _ in b.seen] == ["/login"]
    assert "authorization" not in b.seen[0][1]
    assert any(line.startswith("warning redirect:") for line in out.splitlines()), out
    assert "another origin" in out


def test_a_same_origin_redirect_keeps_the_session_and_is_reported(
    servers: tuple[Server, Server], capsys: pytest.CaptureFixture[str]
) -> None:
    a, _ = servers
    a.routes["/sso-data"] = (307, {"Location": "/v2/sso-data"}, b"")
    a.routes["/v2/sso-data"] = (200, GOOD, json.dumps({"ssoData": token(ADA)}).encode())
    code, out, _ = check(capsys, a.url + "/sso-data", "--header-env", "GC_APP_SESSION", "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] is True
    assert [w["reason"] for w in report["warnings"]] == ["redirect"]
    assert a.seen[1][1]["authorization"] == "Bearer app-session-of-ada"


# --- 11. a total deadline and a size cap ---------------------------------------------------


def test_a_trickling_server_meets_the_total_deadline(
    trickling_server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = check(capsys, trickling_server + "/sso-data", "--timeout", "1", "--json")
    assert code == 2 and json.loads(out)["error"] == "timeout"


def test_a_huge_answer_is_refused_unread(
    servers: tuple[Server, Server], capsys: pytest.CaptureFixture[str]
) -> None:
    a, _ = servers
    a.routes["/sso-data"] = (200, GOOD, b"x" * (3 * 1024 * 1024))
    code, out, _ = check(capsys, a.url + "/sso-data", "--json")
    assert code == 2 and json.loads(out)["error"] == "too_large"
    code, out, _ = check(capsys, a.url + "/sso-data")
    assert code == 2 and len(out.splitlines()) == 1 and "[too_large]" in out


# --- 15. credentials never in argv --------------------------------------------------------


@pytest.mark.parametrize(
    "header",
    [
        "Authorization: Bearer app-session-of-ada",
        "Cookie: sid=app-session-of-ada",
        "X-Api-Key: app-session-of-ada",
    ],
)
def test_a_credential_header_in_argv_is_refused(
    servers: tuple[Server, Server], capsys: pytest.CaptureFixture[str], header: str
) -> None:
    a, _ = servers
    code = main(
        [
            "sso",
            "check",
            "--url",
            a.url + "/sso-data",
            "--secret-env",
            "GC_SSO_SECRET",
            "--header",
            header,
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "[credential_in_argv]" in err and "--header-env" in err
    assert "app-session-of-ada" not in err and a.seen == []


def test_headers_come_from_stdin(
    servers: tuple[Server, Server],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    a, _ = servers
    a.routes["/sso-data"] = (200, GOOD, json.dumps({"ssoData": token(ADA)}).encode())
    monkeypatch.setattr("sys.stdin", io.StringIO("Cookie: sid=app-session-of-ada\n"))
    code, _, _ = check(capsys, a.url + "/sso-data", "--headers-stdin")
    assert code == 0 and a.seen[0][1]["cookie"] == "sid=app-session-of-ada"


def test_verify_reads_the_token_from_stdin_or_an_environment_variable(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    good = token(ADA)
    monkeypatch.setattr("sys.stdin", io.StringIO(good + "\n"))
    assert main(["sso", "verify", "--secret-env", "GC_SSO_SECRET"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["username"] == "ada" and err == ""
    monkeypatch.setenv("GC_TOKEN", good)
    assert main(["sso", "verify", "--secret-env", "GC_SSO_SECRET", "--token-env", "GC_TOKEN"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["sso", "verify", "--secret-env", "GC_SSO_SECRET", good]) == 0
    assert "[credential_in_argv]" in capsys.readouterr().err


# --- 16. --json escapes what the server named ---------------------------------------------


def test_json_output_escapes_server_supplied_names(
    servers: tuple[Server, Server], capsys: pytest.CaptureFixture[str]
) -> None:
    a, _ = servers
    odd = "ev\u202eli\x9b\x85"
    user = {**ADA, odd: "x"}
    a.routes["/sso-data"] = (200, GOOD, json.dumps({"ssoData": token(user)}).encode())
    code, out, _ = check(capsys, a.url + "/sso-data", "--json")
    assert code == 1
    assert not any(ch in out for ch in "\u202e\x9b\x85"), ascii(out)
    report = json.loads(out)
    assert report["problems"][0]["field"] == odd  # the same value, escaped on the wire
    a.routes["/sso-data"] = (
        200,
        GOOD,
        json.dumps({"ssoData": token({**ADA, "username": "José"})}).encode(),
    )
    code, out, _ = check(capsys, a.url + "/sso-data", "--json")
    assert code == 0 and "José" in out  # readable text stays readable


# --- --emulator signs the token in as the widget would ------------------------------------


def test_emulator_option_signs_in_and_reports_a_conflict(
    servers: tuple[Server, Server],
    capsys: pytest.CaptureFixture[str],
    tmp_path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gcbridge.emulator.testing import EXAMPLE_SITE, running_emulator

    a, _ = servers
    monkeypatch.setenv("GC_SSO_SECRET", EXAMPLE_SITE.sso_secret)
    alice = token(
        {"id": "1", "username": "alice", "email": "a@x.io"}, secret=EXAMPLE_SITE.sso_secret
    )
    other = token(
        {"id": "2", "username": "ALICE", "email": "b@x.io"}, secret=EXAMPLE_SITE.sso_secret
    )
    with running_emulator(tmp_path / "data") as emu:
        opts = ["--emulator", emu.url, "--public-key", EXAMPLE_SITE.sso_public_key]
        a.routes["/sso-data"] = (200, GOOD, json.dumps({"ssoData": alice}).encode())
        code, out, _ = check(capsys, a.url + "/sso-data", *opts)
        assert code == 0 and "the emulator signed in 'alice'" in out, out
        a.routes["/sso-data"] = (200, GOOD, json.dumps({"ssoData": other}).encode())
        code, out, _ = check(capsys, a.url + "/sso-data", *opts, "--json")
        report = json.loads(out)
        assert code == 1 and report["emulator"]["error"] == "username_conflict"
        assert [p["reason"] for p in report["problems"]] == ["emulator_refused"]
        assert "token" not in json.dumps(report["emulator"])
