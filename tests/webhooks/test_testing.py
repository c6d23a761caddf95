"""gcbridge.webhooks.testing and the gc_webhook fixture, against real receivers."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points

import pytest
from fastapi import Depends, FastAPI

from gcbridge.serving import BackgroundServer
from gcbridge.webhooks import (
    EVENT_TYPES,
    DeliveryLog,
    WebhookEvent,
    WebhookPayloadError,
    construct_delivery,
)
from gcbridge.webhooks.listen import create_app
from gcbridge.webhooks.receiver import WebhookReceiver
from gcbridge.webhooks.testing import encode_event, sample_event, signed_headers

pytest_plugins = ["pytester"]

SECRET = "whsec_testing"


def receiver_app(tmp_path):
    receiver = WebhookReceiver(SECRET, delivery_log=DeliveryLog(tmp_path / "log.db"))
    app = FastAPI(exception_handlers=receiver.exception_handlers)
    seen: list[str] = []

    @app.post("/webhooks/gc")
    def handle(event: WebhookEvent = Depends(receiver)) -> dict[str, bool]:
        seen.append(event.data.comment.content)
        return {"ok": True}

    app.state.seen = seen
    return app


@pytest.mark.parametrize("event_type", EVENT_TYPES)
def test_sample_event_is_a_complete_spec_body_with_typed_overrides(event_type):
    body = encode_event(sample_event(event_type, content="Hi ✓", author_name="bob", guest=True))
    delivery = construct_delivery(SECRET, body, signed_headers(SECRET, body, delivery_id="d1"))
    event = delivery.event
    assert event.event_type == event_type
    assert event.data.comment.content == "Hi ✓"
    assert event.data.comment.author.name == "bob" and event.data.comment.author.guest
    assert event.data.comment.status == (
        "deleted" if event_type == "comment.deleted" else "approved"
    )
    assert delivery.delivery_id == "d1" and delivery.retry_count == 0


def test_a_bad_override_fails_in_sample_event_not_in_the_test():
    with pytest.raises(WebhookPayloadError):
        sample_event("comment.refused")
    with pytest.raises(WebhookPayloadError):
        sample_event(website_id="not-hex")


def test_signed_headers_take_a_timestamp_and_retry_count():
    body = encode_event(sample_event(timestamp_ms=1_700_000_000_000))
    headers = signed_headers(SECRET, body, timestamp_ms=1_700_000_000_000, retry_count=3)
    delivery = construct_delivery(SECRET, body, headers, now=1_700_000_000)
    assert delivery.retry_count == 3 and delivery.timestamp_ms == 1_700_000_000_000
    assert headers["X-Webhook-Delivery-Id"].startswith("dlv_")


def test_the_fixture_posts_to_an_asgi_app_with_every_case_one_argument_away(gc_webhook, tmp_path):
    app = receiver_app(tmp_path)
    gc_webhook.configure(app, secret=SECRET, path="/webhooks/gc")
    first = gc_webhook("comment.created", content="first")
    assert first.status_code == 200 and first.json() == {"ok": True}
    again = gc_webhook(duplicate=True)
    assert again.status_code == 200 and again.json()["duplicate"] is True
    stale = gc_webhook(stale=True)
    assert stale.status_code == 401 and stale.json()["error"] == "timestamp_too_old"
    wrong = gc_webhook(wrong_secret=True)
    assert wrong.status_code == 401 and wrong.json()["error"] == "signature_mismatch"
    assert gc_webhook(b"not json").json()["error"] == "malformed_payload"
    assert app.state.seen == ["first"]


def test_the_poster_posts_to_a_url(gc_webhook):
    lines: list[str] = []
    with BackgroundServer(lambda port: create_app(SECRET, out=lines.append)) as server:
        gc_webhook.configure(server.url, secret=SECRET, path="/any/path")
        assert gc_webhook("comment.approved").status_code == 200
        assert gc_webhook(wrong_secret=True).status_code == 401
    assert lines[0].startswith("VERIFIED  comment.approved")
    assert lines[1].startswith("REJECTED  signature_mismatch")


def _plugin_args() -> list[str]:
    installed = {ep.name for ep in entry_points(group="pytest11")}
    return [] if "gcbridge_webhooks" in installed else ["-p", "gcbridge.webhooks.pytest_plugin"]


def test_the_plugin_gives_receivers_suites_the_fixture(pytester):
    pytester.makepyfile(
        test_receiver="""
        import asyncio
        from fastapi import Depends, FastAPI
        from gcbridge.webhooks import WebhookEvent
        from gcbridge.webhooks.receiver import WebhookReceiver

        receiver = WebhookReceiver("s3cret")
        app = FastAPI(exception_handlers=receiver.exception_handlers)

        @app.post("/hook")
        def hook(event: WebhookEvent = Depends(receiver)):
            return {"type": event.event_type}

        def test_sync(gc_webhook):
            gc_webhook.configure(app, secret="s3cret", path="/hook")
            assert gc_webhook("comment.deleted").json() == {"type": "comment.deleted"}
            assert gc_webhook(stale=True).status_code == 401

        def test_inside_a_running_loop(gc_webhook):
            gc_webhook.configure(app, secret="s3cret", path="/hook")

            async def main():
                sync = gc_webhook("comment.updated")          # from a thread of its own
                awaited = await gc_webhook.apost("comment.created")
                return sync.json(), awaited.json()

            assert asyncio.run(main()) == ({"type": "comment.updated"}, {"type": "comment.created"})
        """
    )
    result = pytester.runpytest_subprocess(*_plugin_args(), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_the_testing_module_imports_without_pytest_or_httpx():
    code = (
        "import sys\n"
        "sys.modules['pytest'] = None; sys.modules['httpx'] = None\n"
        "from gcbridge.webhooks.testing import sample_event, signed_headers, encode_event\n"
        "body = encode_event(sample_event('comment.created'))\n"
        "print(sorted(signed_headers('s', body)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "X-Webhook-Signature" in out.stdout
