"""Testing your receiver against the emulator's retry schedule, in about a second.

The ``gc_emulator`` fixture (installed with gc-bridge) runs one emulator for the
session on a manual clock and resets it before each test; ``advance`` moves its
clock through every delivery attempt that falls due, at its due time. The
receiver judges freshness on ``gc_emulator.clock``: a retry six hours later on
the emulator is as fresh as it is in production.
"""

from typing import Annotated

import pytest
from fastapi import Depends, FastAPI, HTTPException

from gcbridge.serving import BackgroundServer
from gcbridge.webhooks import DeliveryLog, WebhookEvent
from gcbridge.webhooks.receiver import WebhookReceiver


def build_app(secret, *, clock, delivery_log, handled, failures):
    """Your receiver, built with the emulator's clock (production passes none)."""
    receiver = WebhookReceiver(secret, clock=clock, delivery_log=delivery_log)
    app = FastAPI(exception_handlers=receiver.exception_handlers)

    @app.post("/webhooks/gc")
    def on_comment(event: Annotated[WebhookEvent, Depends(receiver, scope="function")]):
        if failures:  # e.g. the database is down: raise, and the service retries
            failures.pop()
            raise HTTPException(503, "database unavailable")  # the delivery log lets go
        handled.append(event.data.comment.content)
        return {"ok": True}

    return app


@pytest.fixture
def receiver(gc_emulator, tmp_path):
    """Starts the receiver and points the site's webhook at it; yields its state."""
    state = {"handled": [], "failures": []}

    def app(port):
        secret = gc_emulator.setup_webhook(f"http://127.0.0.1:{port}/webhooks/gc")
        log = DeliveryLog.from_url(str(tmp_path / "deliveries.db"))
        return build_app(secret, clock=gc_emulator.clock, delivery_log=log, **state)

    with BackgroundServer(app):
        yield state


def post_comment(gc_emulator, content):
    """A comment through the emulator's own routes (your app would do this)."""
    http = gc_emulator.http
    account = http.post(
        "/api/pub/auth/register",
        json={
            "website_id": gc_emulator.shortname,
            "username": "ada",
            "email": "ada@example.com",
            "password": "correct horse battery staple",
        },
    ).json()
    http.post(
        "/api/pub/comments",
        json={
            "website_id": gc_emulator.shortname,
            "uid": "article-1",
            "url": "https://news.example/article-1",
            "page_title": "Article 1",
            "content": content,
        },
        headers={"Authorization": f"Bearer {account['token']}"},
    ).raise_for_status()


def test_a_receiver_down_for_an_hour_gets_the_comment_once(gc_emulator, receiver):
    receiver["failures"].extend([1, 1, 1, 1])  # the first four attempts fail
    post_comment(gc_emulator, "First!")
    gc_emulator.advance("2h")  # attempts at 0 s, 1 min, 6 min, 21 min, 1 h 21 min
    assert receiver["handled"] == ["First!"]
    (call,) = gc_emulator.calls()
    assert (call["status"], call["retry_count"]) == ("succeeded", 4)


def test_a_receiver_that_never_recovers_sees_six_attempts(gc_emulator, receiver):
    receiver["failures"].extend([1] * 10)
    post_comment(gc_emulator, "lost")
    gc_emulator.advance_until_idle()  # 7 h 21 min of emulator time
    (call,) = gc_emulator.calls()
    stamps = [int(a["request_headers"]["X-Webhook-Timestamp"]) for a in call["attempts"]]
    assert [b - a for a, b in zip(stamps, stamps[1:], strict=False)] == [
        60_000,
        300_000,
        900_000,
        3_600_000,
        21_600_000,
    ]
    assert call["status"] == "failed" and receiver["handled"] == []
