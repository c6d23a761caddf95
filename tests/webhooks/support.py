"""Shared helpers of the receiver SDK's tests (tests/webhooks/ and its delivery_log/)."""

from gcbridge.webhooks.testing import encode_event, sample_event, signed_headers

SECRET = "whsec_test_secret"
TS = 1_700_000_000_000
NOW = TS / 1000
WEBSITE_ID = "5f1c0ffee0ddba11c0ffee00"


def event_dict(event_type="comment.created", content="Hello ✓", **root):
    """A webhook body as a dict (the SDK's sample event, at TS)."""
    raw = sample_event(
        event_type,
        timestamp_ms=TS,
        content=content,
        status="approved",
        author_id="a1",
        avatar="https://example.com/a.png",
        page_title="Title",
        **root,
    )
    raw["data"]["thread"]["updated_at"] = "2023-11-14T22:13:20+01:00"  # an offset date
    return raw


def event_body(**kw):
    """The compact UTF-8 JSON bytes of :func:`event_dict`."""
    return encode_event(event_dict(**kw))


def delivery_headers(body, *, secret=SECRET, ts=TS, delivery_id="d-1", retry=0):
    """Every delivery header for ``body``."""
    return signed_headers(secret, body, timestamp_ms=ts, delivery_id=delivery_id, retry_count=retry)
