"""Hardening battery, emulator side: nothing private leaks, nothing unbounded is read.

Classes: no author e-mail in any widget API answer; stored absolute URLs
from the configured address, never the Host header; a private data
directory whatever the umask; body caps per route group, on
Content-Length and on chunked bodies.
"""

from __future__ import annotations

import json
import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from gcbridge.emulator.bodylimit import DEFAULT_BODY_LIMIT
from gcbridge.emulator.testing import EXAMPLE_SITE, RunningEmulator
from tests.emulator.hardening_support import ACCOUNT, WEBSITE_ID, gc_error, live, register, sso_data


@pytest.fixture
def emu(tmp_path: Path) -> Iterator[tuple[RunningEmulator, httpx.Client]]:
    yield from live(tmp_path)


def _post_comment(http: httpx.Client, token: str, uid: str = "t-1") -> httpx.Response:
    return http.post(
        "/api/pub/comments",
        headers={"Authorization": f"Bearer {token}"},
        json={
            "website_id": "demo",
            "uid": uid,
            "url": "https://example.com/a",
            "page_title": "A",
            "content": "hello",
        },
    )


def _emails_in(value: Any) -> list[str]:
    text = json.dumps(value)
    return [word for word in ("secret-ada@example.com", "sso-bob@example.com") if word in text]


# --- 3. no author e-mail in the widget API -------------------------------------------------


def test_no_widget_answer_carries_an_author_email(
    emu: tuple[RunningEmulator, httpx.Client],
) -> None:
    running, http = emu
    http.post(
        f"/webhook/website/{WEBSITE_ID}/setup",
        headers=ACCOUNT,
        json={"url": "https://receiver.example/hook", "events": ["comment.created"]},
    ).raise_for_status()
    own = register(http, "ada", "secret-ada@example.com").json()["token"]
    sso = http.post(
        "/api/pub/sso/login",
        json={
            "api_public_key": EXAMPLE_SITE.sso_public_key,
            "ssoData": sso_data({"id": "7", "username": "bob", "email": "sso-bob@example.com"}),
        },
    ).json()["token"]
    answers = [_post_comment(http, own), _post_comment(http, sso)]
    comment_id = answers[0].json()["id"]
    answers.append(
        http.patch(
            f"/api/pub/comments/{comment_id}",
            headers={"Authorization": f"Bearer {own}"},
            json={"content": "edited"},
        )
    )
    answers.append(
        http.delete(f"/api/pub/comments/{comment_id}", headers={"Authorization": f"Bearer {own}"})
    )
    answers.append(http.get("/api/pub/comments", params={"website_id": "demo", "uid": "t-1"}))
    for resp in answers:
        assert resp.status_code in (200, 201), resp.text
        assert _emails_in(resp.json()) == [], resp.text
        comments = resp.json().get("comments", [resp.json()])
        assert all("email" not in c["author"] for c in comments)
    # The signed webhook body keeps the e-mail for the site's backend.
    with running.state.db.read() as conn:
        bodies = [bytes(r[0]).decode() for r in conn.execute("SELECT body FROM calls")]
    assert any("secret-ada@example.com" in b for b in bodies)
    assert any("sso-bob@example.com" in b for b in bodies)


# --- 7. stored URLs come from the configured address --------------------------------------


def test_the_host_header_never_reaches_a_stored_avatar_url(
    emu: tuple[RunningEmulator, httpx.Client],
) -> None:
    running, http = emu
    forged = {"Host": "attacker.example:1337"}
    own = http.post(
        "/api/pub/auth/register",
        headers=forged,
        json={
            "website_id": "demo",
            "username": "dan",
            "email": "d@x.io",
            "password": "long-enough",
        },
    )
    sso = http.post(
        "/api/pub/sso/login",
        headers=forged,
        json={
            "api_public_key": EXAMPLE_SITE.sso_public_key,
            "ssoData": sso_data({"id": "8", "username": "erin", "email": "e@x.io"}),
        },
    )
    for resp in (own, sso):
        assert resp.status_code in (200, 201), resp.text
        avatar = resp.json()["user"]["avatar"]
        assert "attacker" not in avatar
        assert avatar.startswith(f"{running.url}/api/pub/avatars/")
    with running.state.db.read() as conn:
        assert all("attacker" not in r[0] for r in conn.execute("SELECT avatar FROM users"))


def test_avatars_follow_the_configured_front_url(tmp_path: Path) -> None:
    for _, http in live(tmp_path, front_url="https://comments.example.dev/widget/"):
        user = register(http, "fay").json()["user"]
        assert user["avatar"].startswith("https://comments.example.dev/api/pub/avatars/")


# --- 8. a private data directory -----------------------------------------------------------


def test_every_file_of_the_data_dir_is_private_whatever_the_umask(tmp_path: Path) -> None:
    from gcbridge.emulator.settings import Settings

    old = os.umask(0o000)
    try:
        settings = Settings.from_options(data_dir=tmp_path / "data", port=8123)
        data = settings.data_dir
        (data / "stray.txt").write_text("left by an older version")
        os.chmod(data / "stray.txt", 0o666)
        os.chmod(data, 0o777)
        for running, http in live(tmp_path):
            register(http, "gus").raise_for_status()
            files = sorted(p.name for p in running.settings.data_dir.iterdir())
            assert {"emulator.sqlite3", "emulator.sqlite3-wal"} <= set(files)
            _assert_private(running.settings.data_dir)
        from gcbridge.emulator.service import create_app

        create_app(settings, run_dispatcher=False)
        assert {"demo-site.json", "emulator.sqlite3", "stray.txt"} <= {
            p.name for p in data.iterdir()
        }
        _assert_private(data)
    finally:
        os.umask(old)


def _assert_private(directory: Path) -> None:
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700, directory
    for path in directory.iterdir():
        if path.is_file():
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


# --- 11. body caps --------------------------------------------------------------------------

CAPPED = [
    ("/api/pub/auth/login", 16 * 1024),
    ("/api/pub/auth/register", 16 * 1024),
    ("/api/pub/sso/login", 32 * 1024),
    ("/api/pub/comments", 128 * 1024),
    (f"/webhook/website/{WEBSITE_ID}/setup", 256 * 1024),
    (f"/webhook/website/{WEBSITE_ID}/verify", 256 * 1024),
    ("/api/dashboard/events/check", DEFAULT_BODY_LIMIT),  # a route of the default group
]


@pytest.mark.parametrize(("path", "cap"), CAPPED)
def test_a_content_length_over_the_cap_is_a_413_before_reading(
    emu: tuple[RunningEmulator, httpx.Client], path: str, cap: int
) -> None:
    running, _ = emu
    # Announce a huge body, send none of it: the answer must come without reading it.
    status, body = _raw(
        running.url,
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {50 * 1024 * 1024}\r\n\r\n".encode(),
    )
    assert status == 413, body
    assert json.loads(body)["error"] == "body_too_large"


@pytest.mark.parametrize(("path", "cap"), CAPPED)
def test_a_chunked_body_is_cut_at_the_cap(
    emu: tuple[RunningEmulator, httpx.Client], path: str, cap: int
) -> None:
    _, http = emu

    def chunks() -> Iterator[bytes]:  # no Content-Length: sent chunked
        for _ in range(cap // 4096 + 64):
            yield b" " * 4096

    resp = http.post(
        path, content=chunks(), headers={**ACCOUNT, "Content-Type": "application/json"}
    )
    gc_error(resp, 413, "body_too_large")


def test_bodies_under_the_cap_still_work(emu: tuple[RunningEmulator, httpx.Client]) -> None:
    _, http = emu
    token = register(http, "hal").json()["token"]
    resp = http.post(
        "/api/pub/comments",
        headers={"Authorization": f"Bearer {token}"},
        json={
            "website_id": "demo",
            "uid": "t-2",
            "url": "https://example.com/a",
            "page_title": "A",
            "content": "\u00e9" * 10_000,  # the longest content, two bytes a character
        },
    )
    assert resp.status_code == 201, resp.text


def _raw(url: str, request: bytes) -> tuple[int, str]:
    host, port = httpx.URL(url).host, httpx.URL(url).port
    assert port is not None
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data or not _complete(data):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body.decode("utf-8", "replace")


def _complete(data: bytes) -> bool:
    head, _, body = data.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return len(body) >= int(line.split(b":", 1)[1])
    return False
