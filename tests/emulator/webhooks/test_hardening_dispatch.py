"""Hardening battery, emulator side: receivers that cannot be reached, or hang.

Classes: receiver URLs the dispatcher cannot send to are refused at setup, and
whatever breaks at send time is an attempt error, not an internal error;
one site's hanging receiver does not hold up another site's delivery.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from gcbridge.emulator.testing import EXAMPLE_SITE, OTHER_SITE
from tests.emulator.hardening_support import ACCOUNT, WEBSITE_ID, gc_error, live

# --- 6. receiver URLs ---------------------------------------------------------------------

UNSENDABLE = [
    "https://a..b/hook",
    "https://.a/hook",
    "https://" + "a" * 64 + ".example/hook",
    "https://" + ("a" * 60 + ".") * 5 + "example/hook",  # over 253 characters
    "https://example.com/x\x01y",
    "https://example.com/x\x7fy",
    "https://exa\ud800mple.com/",
]


@pytest.mark.parametrize("allow_private", [True, False])
@pytest.mark.parametrize("url", UNSENDABLE, ids=range(len(UNSENDABLE)))
def test_setup_refuses_urls_the_dispatcher_cannot_send_to(
    tmp_path: Path, url: str, allow_private: bool
) -> None:
    for _, http in live(tmp_path, allow_private_receivers=allow_private):
        resp = http.post(
            f"/webhook/website/{WEBSITE_ID}/setup",
            headers={**ACCOUNT, "Content-Type": "application/json"},
            content=json.dumps({"url": url, "events": ["comment.created"]}),  # \ud800 escaped
        )
        body = gc_error(resp, 400)
        assert body["error"] in ("invalid_url", "invalid_request"), body
        if body["error"] == "invalid_url":
            assert "[bad_url]" in body["message"]


def _sign_in(http: httpx.Client, site: str, name: str) -> str:
    resp = http.post(
        "/api/pub/auth/register",
        json={"website_id": site, "username": name, "email": f"{name}@x.io", "password": "x" * 10},
    )
    resp.raise_for_status()
    token: str = resp.json()["token"]
    return token


def _comment(http: httpx.Client, token: str, site: str, n: int) -> None:
    http.post(
        "/api/pub/comments",
        headers={"Authorization": f"Bearer {token}"},
        json={
            "website_id": site,
            "uid": f"t-{n}",
            "url": "https://example.com/a",
            "page_title": "A",
            "content": f"comment {n}",
        },
    ).raise_for_status()


def _wait(predicate: Callable[[], bool], timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def _calls(http: httpx.Client, site: Any) -> list[dict[str, Any]]:
    resp = http.get(
        f"/webhook/website/{site.website_id}/calls",
        headers={"Authorization": f"Bearer {site.account_token}"},
    )
    calls: list[dict[str, Any]] = resp.json()["calls"]
    return calls


def test_a_stored_unsendable_url_fails_with_an_attempt_error_not_an_internal_error(
    tmp_path: Path,
) -> None:
    # A configuration written by an older version, which did not check labels.
    for running, http in live(tmp_path, allow_private_receivers=False):
        http.post(
            f"/webhook/website/{WEBSITE_ID}/setup",
            headers=ACCOUNT,
            json={"url": "https://receiver.example/hook", "events": ["comment.created"]},
        ).raise_for_status()
        with running.state.db.transaction() as conn:
            conn.execute("UPDATE webhook_configs SET url = 'https://a..b/hook'")
        _comment(http, _sign_in(http, "demo", "ivy"), "demo", 1)
        assert _wait(lambda: _calls(http, EXAMPLE_SITE)[0]["status"] == "failed")
        call = _calls(http, EXAMPLE_SITE)[0]
        assert "internal_error" not in call["error"]
        assert len(call["attempts"]) == 1 and call["attempts"][0]["error"] == call["error"]


class _Exploding(httpx.AsyncBaseTransport):
    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raise RuntimeError("a bug on the way out")


def test_any_error_while_sending_is_recorded_on_an_attempt(tmp_path: Path) -> None:
    for _, http in live(tmp_path, transport=_Exploding()):
        http.post(
            f"/webhook/website/{WEBSITE_ID}/setup",
            headers=ACCOUNT,
            json={"url": "https://receiver.example/hook", "events": ["comment.created"]},
        ).raise_for_status()
        _comment(http, _sign_in(http, "demo", "jay"), "demo", 1)
        assert _wait(lambda: _calls(http, EXAMPLE_SITE)[0]["status"] == "failed")
        call = _calls(http, EXAMPLE_SITE)[0]
        assert call["error"] == "send_error:RuntimeError"
        assert [a["error"] for a in call["attempts"]] == ["send_error:RuntimeError"]


# --- 10. one hanging receiver, one healthy ------------------------------------------------


class _HangOrAnswer(httpx.AsyncBaseTransport):
    """``hang.example`` never answers (until the attempt timeout); anything else answers 200."""

    def __init__(self) -> None:
        self.log: list[tuple[str, str]] = []  # (event, host) in order

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host
        self.log.append(("start", host))
        if host == "hang.example":
            try:
                await asyncio.Event().wait()
            finally:
                self.log.append(("end", host))
        self.log.append(("end", host))
        return httpx.Response(200)


def test_a_hanging_receiver_does_not_hold_up_another_sites_delivery(tmp_path: Path) -> None:
    transport = _HangOrAnswer()
    # The attempt timeout is far above the wait below: under a shared pool with no
    # per-receiver cap, B's delivery could only start once an A attempt timed out.
    for _, http in live(tmp_path, transport=transport, attempt_timeout=120.0):
        for site, host in ((EXAMPLE_SITE, "hang.example"), (OTHER_SITE, "ok.example")):
            http.post(
                f"/webhook/website/{site.website_id}/setup",
                headers={"Authorization": f"Bearer {site.account_token}"},
                json={"url": f"https://{host}/hook", "events": ["comment.created"]},
            ).raise_for_status()
        a_token = _sign_in(http, "demo", "kim")
        for n in range(24):
            _comment(http, a_token, "demo", n)
        assert _wait(lambda: ("start", "hang.example") in transport.log)
        _comment(http, _sign_in(http, "other", "lee"), "other", 99)
        assert _wait(lambda: ("end", "ok.example") in transport.log, timeout=30.0), transport.log
        b_started = transport.log.index(("start", "ok.example"))
        # B's attempt started while every A attempt was still hanging.
        assert ("end", "hang.example") not in transport.log[:b_started]
        assert _wait(lambda: _calls(http, OTHER_SITE)[0]["status"] == "succeeded")
        in_flight = [e for e in transport.log if e == ("start", "hang.example")]
        assert 1 <= len(in_flight) <= 8  # the per-receiver cap


def test_the_due_queue_is_round_robin_by_site(tmp_path: Path) -> None:
    from gcbridge.emulator.db import Database
    from gcbridge.emulator.webhooks.outbox import due_candidates

    db = Database(tmp_path / "q.sqlite3")
    with db.transaction() as conn:
        for seq in range(1000):
            site = "b" * 24 if seq == 999 else "a" * 24
            conn.execute(
                "INSERT INTO calls (id, seq, website_id, delivery_id, event_type, url, body,"
                " status, created_at, next_attempt_at) VALUES (?, ?, ?, ?, 'comment.created',"
                " 'https://x.example/', x'7b7d', 'pending', 0, ?)",
                (f"c{seq}", seq, site, f"d{seq}", float(seq)),
            )
    with db.read() as conn:
        rows = due_candidates(conn, 10_000.0, 8, ())
    db.close()
    assert len(rows) == 9  # at most 8 of A, and B's one
    assert [r[1] for r in rows[:2]] == ["a" * 24, "b" * 24]
