"""Typed events and construct_event / construct_delivery."""

import json
from datetime import UTC, datetime, timedelta

import pytest

from gcbridge.webhooks import (
    EVENT_TYPES,
    WebhookEvent,
    WebhookPayloadError,
    WebhookVerificationError,
    construct_delivery,
    construct_event,
)
from gcbridge.webhooks.events import parse_event
from gcbridge.webhooks.testing import signed_headers
from tests.webhooks.support import (
    NOW,
    SECRET,
    TS,
    WEBSITE_ID,
    delivery_headers,
    event_body,
    event_dict,
)


@pytest.mark.parametrize("event_type", EVENT_TYPES)
def test_construct_event_types_every_field(event_type):
    body = event_body(event_type=event_type)
    event = construct_event(SECRET, body, delivery_headers(body), now=NOW)
    assert isinstance(event, WebhookEvent)
    assert event.event_type == event_type
    assert event.timestamp == TS
    assert event.sent_at == datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)
    assert event.website_id == WEBSITE_ID
    comment = event.data.comment
    assert comment.content == "Hello ✓"
    assert comment.created_at == datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)
    assert comment.parent_id is None and comment.external_thread_id == "article-1"
    assert comment.author.guest is False and comment.author.external_id == "42"
    thread = event.data.thread
    assert thread.updated_at.utcoffset() == timedelta(hours=1)
    assert thread.updated_at == datetime(2023, 11, 14, 21, 13, 20, tzinfo=UTC)


def test_event_is_immutable():
    event = parse_event(event_body())
    with pytest.raises(ValueError):
        event.event_type = "comment.deleted"
    with pytest.raises(ValueError):
        event.data.comment.content = "changed"


def test_dates_without_offset_are_utc():
    raw = event_dict()
    raw["data"]["thread"]["created_at"] = "2023-11-14T22:00:00"
    event = parse_event(json.dumps(raw).encode())
    assert event.data.thread.created_at.tzinfo is not None
    assert event.data.thread.created_at == datetime(2023, 11, 14, 22, tzinfo=UTC)


def test_unknown_fields_are_kept_for_forward_compatibility():
    raw = event_dict(api_version="2")
    raw["data"]["comment"]["likes"] = 3
    event = parse_event(json.dumps(raw).encode())
    assert event.model_extra == {"api_version": "2"}
    assert event.data.comment.model_extra == {"likes": 3}


def test_guest_author_without_email_or_avatar():
    raw = event_dict()
    raw["data"]["comment"]["author"].update(guest=True, email=None, avatar=None, external_id=None)
    assert parse_event(json.dumps(raw).encode()).data.comment.author.guest is True


def broken(mutate):
    raw = event_dict()
    mutate(raw)
    return json.dumps(raw).encode()


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"\xff\xfe",
        b"[]",
        b"null",
        b"[" * 50_000,
        broken(lambda r: r.update(event_type="comment.refused")),
        broken(lambda r: r.update(timestamp="1700000000000")),
        broken(lambda r: r.update(timestamp=1.7e12)),
        broken(lambda r: r.update(timestamp=True)),
        broken(lambda r: r.update(website_id="demo")),
        broken(lambda r: r.update(website_id="5f1c0ffee0ddba11c0ffee0g")),
        broken(lambda r: r.pop("data")),
        broken(lambda r: r["data"]["comment"].pop("author")),
        broken(lambda r: r["data"]["comment"].update(created_at="yesterday")),
        broken(lambda r: r["data"]["thread"].update(id=None)),
    ],
)
def test_authentic_but_malformed_payload(body):
    with pytest.raises(WebhookPayloadError) as info:
        construct_event(SECRET, body, signed_headers(SECRET, body, timestamp_ms=TS), now=NOW)
    assert info.value.reason == "malformed_payload"


def test_verification_comes_before_parsing():
    with pytest.raises(WebhookVerificationError) as info:
        construct_event(
            SECRET, b"not json", signed_headers("other", b"not json", timestamp_ms=TS), now=NOW
        )
    assert info.value.reason == "signature_mismatch"


def test_construct_delivery_reads_the_bookkeeping_headers():
    body = event_body()
    headers = delivery_headers(body, delivery_id="dlv_123", retry=2)
    delivery = construct_delivery(SECRET, body, {k.lower(): v for k, v in headers.items()}, now=NOW)
    assert delivery.delivery_id == "dlv_123"
    assert delivery.retry_count == 2
    assert delivery.first_sent_at == datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)
    assert delivery.timestamp_ms == TS
    assert delivery.signature == headers["X-Webhook-Signature"]
    assert delivery.event.event_type == "comment.created"


def test_construct_delivery_tolerates_odd_unsigned_headers():
    body = event_body()
    headers = signed_headers(SECRET, body, timestamp_ms=TS)
    del headers["X-Webhook-Delivery-Id"]  # the two signed headers, and two odd ones
    headers.update({"X-Webhook-Retry-Count": "many", "X-Webhook-First-Sent-At": "soon"})
    delivery = construct_delivery(SECRET, body, headers, now=NOW)
    assert (delivery.delivery_id, delivery.retry_count, delivery.first_sent_at) == (
        None,
        None,
        None,
    )
