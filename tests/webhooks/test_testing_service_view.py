"""The poster answers as the service sees the receiver, keeps the two timestamps
apart, replays deliveries out of order, and says what to install when httpx is missing."""

from __future__ import annotations

import subprocess
import sys

import pytest
from fastapi import Depends, FastAPI

from gcbridge.webhooks import DeliveryLog, WebhookEvent
from gcbridge.webhooks.ordering import RETRIED_CREATE_AFTER_UPDATE, comment_history, is_newer
from gcbridge.webhooks.receiver import WebhookReceiver
from gcbridge.webhooks.testing import WebhookPoster

SECRET = "whsec_service_view"


def _app(tmp_path, handler):
    receiver = WebhookReceiver(SECRET, delivery_log=DeliveryLog(tmp_path / "log.db"))
    app = FastAPI(exception_handlers=receiver.exception_handlers)
    app.post("/hook")(handler(receiver))
    return app


def _failing(receiver):
    def hook(event: WebhookEvent = Depends(receiver)) -> dict[str, bool]:
        raise RuntimeError("the handler broke")

    return hook


def test_a_handler_error_is_the_500_the_service_retries(tmp_path, gc_webhook) -> None:
    gc_webhook.configure(_app(tmp_path, _failing), secret=SECRET, path="/hook")
    with pytest.raises(RuntimeError):  # the default: the test sees the exception
        gc_webhook("comment.created")
    assert gc_webhook("comment.created", as_service=True).status_code == 500
    gc_webhook.configure(as_service=True)
    assert gc_webhook("comment.created").status_code == 500


def test_the_signature_time_and_the_event_time_are_set_apart(tmp_path) -> None:
    seen: list[int] = []

    def recording(receiver):
        def hook(event: WebhookEvent = Depends(receiver)) -> dict[str, bool]:
            seen.append(event.timestamp)
            return {"ok": True}

        return hook

    poster = WebhookPoster(_app(tmp_path, recording), secret=SECRET, path="/hook")
    event_ms = 1_600_000_000_000
    assert poster.post("comment.created", event_timestamp_ms=event_ms).status_code == 200
    body, headers = poster.last  # type: ignore[misc]
    assert seen == [event_ms] and b'"timestamp":1600000000000' in body
    assert abs(int(headers["X-Webhook-Timestamp"]) - event_ms) > 10**9  # signed now
    too_old = poster.post("comment.created", signed_at_ms=event_ms)
    assert too_old.json()["error"] == "timestamp_too_old"
    with pytest.warns(DeprecationWarning, match="signed_at_ms"):
        old_name = poster.post("comment.created", timestamp_ms=event_ms)
    assert old_name.json()["error"] == "timestamp_too_old"  # the old name kept its meaning
    with pytest.raises(ValueError, match="event_timestamp_ms"):
        poster.post(b"{}", event_timestamp_ms=event_ms)


def test_a_retried_create_after_its_update_is_reproduced_and_handled(tmp_path) -> None:
    state: dict[str, tuple[int, str]] = {}

    def upserting(receiver):
        def hook(event: WebhookEvent = Depends(receiver)) -> dict[str, bool]:
            comment = event.data.comment
            last = state.get(comment.id)
            applied = is_newer(event, last[0] if last else None)
            if applied:
                state[comment.id] = (event.timestamp, comment.content)
            return {"applied": applied}

        return hook

    created, updated = comment_history("comment.created", "comment.updated", contents=["a", "b"])
    assert updated["timestamp"] > created["timestamp"]
    assert updated["data"]["comment"]["created_at"] == created["data"]["comment"]["created_at"]
    poster = WebhookPoster(_app(tmp_path, upserting), secret=SECRET, path="/hook")
    answers = poster.post_each([created, updated], order=RETRIED_CREATE_AFTER_UPDATE)
    assert [a.json()["applied"] for a in answers] == [True, False]
    assert state["c1"][1] == "b"  # the late create did not undo the edit
    with pytest.raises(ValueError):
        poster.post_each([created, updated], order=[0, 0])


def test_a_poster_without_httpx_says_what_to_install() -> None:
    code = (
        "import sys\n"
        "sys.modules['httpx'] = None\n"
        "from gcbridge.webhooks.testing import WebhookPoster, PosterNeedsHttpx\n"
        "try:\n"
        "    WebhookPoster('http://127.0.0.1:9', secret='s').post('comment.created')\n"
        "except PosterNeedsHttpx as exc:\n"
        "    print(exc.reason, '|', exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    reason, message = out.stdout.strip().split(" | ")
    assert reason == "missing_extra"
    assert "pip install 'gc-bridge[emulator]'" in message
