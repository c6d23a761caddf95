"""``gcbridge webhooks calls | replay`` do not trust their server.

An answer of the wrong shape is one line with a reason (never a traceback), a
server trickling a byte at a time meets a total deadline, and an answer of many
megabytes is refused without being read whole.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from gcbridge.cli import main

WID = "5f1c0ffee0ddba11c0ffee00"
SITE = json.dumps({"website_id": WID, "shortname": "demo"}).encode()


class FakeEmulator:
    """A loopback server answering each path with fixed bytes (a hostile 'emulator')."""

    def __init__(self) -> None:
        self.routes: dict[str, bytes] = {"/api/dashboard/site": SITE}
        self.huge = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                path = self.path.split("?")[0]
                if path.endswith("/calls") and outer.huge:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.end_headers()  # no Content-Length: read until the server closes
                    chunk = b" " * 65536
                    try:
                        for _ in range(outer.huge // len(chunk)):
                            self.wfile.write(chunk)
                    except OSError:
                        pass
                    self.close_connection = True
                    return
                body = outer.routes.get(path, b'{"gcCode": 404, "error": "nope"}')
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _answer

            def log_message(self, *args: object) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.protocol_version = "HTTP/1.0"
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()


@pytest.fixture
def fake() -> Iterator[FakeEmulator]:
    server = FakeEmulator()
    yield server
    server.http.shutdown()
    server.http.server_close()


@pytest.fixture(autouse=True)
def token_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GC_ACCOUNT_TOKEN", "acct-token")


def run(url: str, *args: str) -> int:
    command, rest = args[0], args[1:]
    return main(
        [
            "webhooks",
            command,
            "--emulator",
            url,
            "--website-id",
            WID,
            "--token-env",
            "GC_ACCOUNT_TOKEN",
            *rest,
        ]
    )


@pytest.mark.parametrize(
    "answer",
    [
        b'{"calls": "abc"}',
        b'{"calls": [1, 2]}',
        b'{"calls": [{"id": 5}]}',
        b'{"calls": [], "next_cursor": 7}',
        b'{"calls": [{"id": "a", "attempts": "x"}]}',
    ],
)
def test_calls_of_the_wrong_shape_are_one_line(
    fake: FakeEmulator, capsys: pytest.CaptureFixture[str], answer: bytes
) -> None:
    fake.routes[f"/webhook/website/{WID}/calls"] = answer
    assert run(fake.url, "calls") == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "[bad_answer]" in err, err


def test_a_replay_answer_without_a_call_is_one_line(
    fake: FakeEmulator, capsys: pytest.CaptureFixture[str]
) -> None:
    fake.routes[f"/webhook/call/{'ab' * 12}/replay"] = b'{"fresh": true}'
    assert run(fake.url, "replay", "ab" * 12, "--no-wait") == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "[bad_answer]" in err, err


def test_a_huge_answer_is_refused_unread(
    fake: FakeEmulator, capsys: pytest.CaptureFixture[str]
) -> None:
    fake.huge = 40 * 1024 * 1024
    assert run(fake.url, "calls") == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "[too_large]" in err, err


def test_a_trickling_server_meets_the_total_deadline(
    trickling_server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(trickling_server, "calls", "--http-timeout", "1") == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "[timeout]" in err, err
