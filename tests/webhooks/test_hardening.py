"""Receiver SDK hardening: any authentic body gives the SDK's own error;
``listen`` prints nothing raw from a request."""

import asyncio

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcbridge.clock import ManualClock
from gcbridge.webhooks import WebhookError, WebhookPayloadError, construct_event
from gcbridge.webhooks.listen import create_app, format_rejected
from tests.webhooks.support import NOW, SECRET, TS, delivery_headers, event_body

HUGE = b'{"a": ' + b"9" * 5000 + b"}"


def test_an_authentic_body_with_a_huge_integer_is_malformed_payload():
    with pytest.raises(WebhookPayloadError) as info:
        construct_event(SECRET, HUGE, delivery_headers(HUGE), now=NOW)
    assert info.value.reason == "malformed_payload"


def test_a_huge_integer_inside_a_real_event_is_malformed_payload():
    body = event_body().replace(str(TS).encode(), b"1" * 5000, 1)
    with pytest.raises(WebhookPayloadError):
        construct_event(SECRET, body, delivery_headers(body), now=NOW)


@settings(max_examples=300)
@given(st.binary(max_size=400) | st.sampled_from([HUGE, b"[" * 100_000, b"\xff", b"1e9999"]))
def test_any_authentic_bytes_raise_only_the_sdk_error(raw):
    try:
        construct_event(SECRET, raw, delivery_headers(raw), now=NOW)
    except WebhookError as exc:
        assert exc.reason == "malformed_payload"


def test_listen_escapes_header_values_and_cannot_print_a_forged_line():
    lines: list[str] = []
    asyncio.run(_post_evil_requests(lines))
    assert len(lines) == 2
    for line in lines:
        assert line.isprintable(), line
        assert "\x1b" not in line and "\r" not in line
    assert lines[0].startswith("REJECTED") and "\\x1b[31mRED" in lines[0]
    assert lines[0].count("VERIFIED") == 1 and not lines[0].startswith("VERIFIED")
    assert lines[1].startswith("VERIFIED") and "id\\x07" in lines[1]
    assert "\\x1b[31mthere\\u202e" in lines[1]


async def _post_evil_requests(lines):
    app = create_app(SECRET, out=lines.append, clock=ManualClock(start=NOW))
    evil_id = "\x1b[31mRED\x1b[0m\rVERIFIED  comment.created delivery=x"
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://listen") as client:
        forged = {**delivery_headers(b"{}"), "X-Webhook-Delivery-Id": evil_id}
        forged["X-Webhook-Signature"] = "0" * 64
        forged["X-Webhook-Retry-Count"] = "\x1b[2J"
        assert (await client.post("/", content=b"{}", headers=forged)).status_code == 401
        body = event_body(content="hi \x1b[31mthere\u202e")
        good = {**delivery_headers(body), "X-Webhook-Delivery-Id": "\u202eid\x07".encode()}
        assert (await client.post("/", content=body, headers=good)).status_code == 200


def test_format_rejected_bounds_long_values():
    line = format_rejected("signature_mismatch", "x" * 10_000, "9" * 500)
    assert len(line) < 200


def test_a_receiver_app_answers_400_not_500_to_an_authentic_huge_integer(gc_webhook):
    from fastapi import Depends, FastAPI

    from gcbridge.webhooks import WebhookEvent
    from gcbridge.webhooks.receiver import WebhookReceiver

    receiver = WebhookReceiver(SECRET)
    app = FastAPI(exception_handlers=receiver.exception_handlers)

    @app.post("/hook")
    def hook(event: WebhookEvent = Depends(receiver)) -> dict[str, bool]:
        return {"ok": True}

    gc_webhook.configure(app, secret=SECRET, path="/hook")
    answer = gc_webhook(HUGE)
    assert answer.status_code == 400 and answer.json()["error"] == "malformed_payload"
