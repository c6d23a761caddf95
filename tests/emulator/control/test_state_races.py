"""Writes racing a reset or a restore: refused as a stale session, never a 500.

The ``gc_emulator`` fixture resets before every test while an app of the previous
test may still be posting; a write whose session a reset (or a restore) removed
must get a 401 in the gcCode shape, and its connection must stay whole.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from gcbridge.emulator.db import Database
from tests.emulator.control.support import Client
from tests.emulator.http_api import bearer

DEADLINE = 10.0
PASSWORD = "correct horse battery staple"


class PauseBeforeNextWrite:
    """Holds the emulator's next write transaction until :meth:`go`.

    The instant between a route's checks (the session, the password) and its write:
    a reset or a restore made there is the race, every time.
    """

    def __init__(self, db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
        self.reached = threading.Event()
        self._go = threading.Event()
        self._armed = threading.Lock()
        self._armed.acquire()
        original = db.transaction

        @contextmanager
        def transaction() -> Iterator[Any]:
            # The first write after arming waits; every other one (the reset's) goes on.
            if self._armed.acquire(blocking=False):
                self.reached.set()
                assert self._go.wait(DEADLINE), "the test never let the write go on"
            with original() as conn:
                yield conn

        monkeypatch.setattr(db, "transaction", transaction)

    def arm(self) -> None:
        self._armed.release()

    def go(self) -> None:
        self._go.set()


def _comment_body(client: Client, content: str) -> dict[str, str]:
    return {
        "website_id": client.site.shortname,
        "uid": "article-1",
        "url": "https://news.example/article-1",
        "page_title": "Article 1",
        "content": content,
    }


def _writes(client: Client, comment_id: str) -> dict[str, Callable[[httpx.Client], httpx.Response]]:
    token = client.session()
    return {
        "post": lambda http: http.post(
            "/api/pub/comments", json=_comment_body(client, "racing"), headers=bearer(token)
        ),
        "edit": lambda http: http.patch(
            f"/api/pub/comments/{comment_id}", json={"content": "edited"}, headers=bearer(token)
        ),
        "delete": lambda http: http.delete(
            f"/api/pub/comments/{comment_id}", headers=bearer(token)
        ),
        "login": lambda http: http.post(
            "/api/pub/auth/login",
            json={"website_id": client.site.shortname, "username": "alice", "password": PASSWORD},
        ),
    }


EXPECTED = {
    "post": "auth_required",  # the comment routes' 401 for any session not valid
    "edit": "auth_required",
    "delete": "auth_required",
    "login": "bad_credentials",
}


@pytest.mark.parametrize("change", ["reset", "restore"])
@pytest.mark.parametrize("write", ["post", "edit", "delete", "login"])
def test_a_write_whose_user_a_reset_or_restore_removed_is_a_401(
    client: Client, monkeypatch: pytest.MonkeyPatch, write: str, change: str
) -> None:
    client.control("PUT", "/snapshots/before-alice")
    comment_id = client.comment("alice was here")["id"]
    pause = PauseBeforeNextWrite(client.emu.state.db, monkeypatch)
    send = _writes(client, comment_id)[write]
    with (
        httpx.Client(base_url=client.emu.url, timeout=DEADLINE) as http,
        ThreadPoolExecutor(1) as pool,
    ):
        pause.arm()
        answer = pool.submit(send, http)
        assert pause.reached.wait(DEADLINE), "the write never reached its transaction"
        if change == "reset":
            client.control("POST", "/reset")
        else:
            client.control("POST", "/snapshots/before-alice/restore")
        pause.go()
        r = answer.result(DEADLINE)
    assert (r.status_code, r.json()["error"]) == (401, EXPECTED[write]), r.text
    # nothing of the refused write was kept
    thread = client.http.get(
        "/api/pub/comments", params={"website_id": client.site.shortname, "uid": "article-1"}
    ).json()
    assert thread["comments"] == []


def test_racing_writes_against_repeated_resets_get_no_5xx_and_no_dropped_connection(
    client: Client,
) -> None:
    stop = threading.Event()
    statuses: list[int] = []
    failures: list[str] = []
    lock = threading.Lock()
    progress = threading.Condition(lock)

    def writer(n: int) -> None:
        with httpx.Client(base_url=client.emu.url, timeout=DEADLINE) as http:
            token: str | None = None
            i = 0
            while not stop.is_set():
                i += 1
                try:
                    if token is None:
                        r = http.post(
                            "/api/pub/auth/register",
                            json={
                                "website_id": client.site.shortname,
                                "username": f"w{n}x{i}",
                                "email": f"w{n}x{i}@example.com",
                                "password": PASSWORD,
                            },
                        )
                        if r.status_code == 201:
                            token = r.json()["token"]
                    else:
                        r = http.post(
                            "/api/pub/comments",
                            json=_comment_body(client, f"{n}-{i}"),
                            headers=bearer(token),
                        )
                        if r.status_code == 401:
                            token = None  # a reset signed us out: register again
                except httpx.TransportError as exc:
                    with lock:
                        failures.append(f"{type(exc).__name__}: {exc}")
                    continue
                with progress:
                    statuses.append(r.status_code)
                    progress.notify_all()

    with ThreadPoolExecutor(3) as pool:
        running = [pool.submit(writer, n) for n in range(3)]
        try:
            for _ in range(15):
                with progress:
                    seen = len(statuses)
                    # each reset lands among writes: wait for a few since the last one
                    assert progress.wait_for(lambda s=seen: len(statuses) >= s + 3, DEADLINE)
                client.control("POST", "/reset")
        finally:
            stop.set()
            for future in running:
                future.result(DEADLINE)

    assert failures == []
    assert [s for s in statuses if s >= 500] == []
    assert 201 in statuses
