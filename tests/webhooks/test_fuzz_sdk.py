"""Fuzzing the receiver SDK with Hypothesis: verify_signature, construct_event, construct_delivery.

Whatever the headers, body, secrets and clock, the only exceptions are the
documented ones: ``WebhookVerificationError`` with a documented reason code,
and (for an authentic body that is not an event) ``WebhookPayloadError``.
Seeds are fixed (``SEED``) so that a failure reproduces.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from gcbridge.webhooks import (
    WebhookEvent,
    WebhookPayloadError,
    WebhookVerificationError,
    construct_delivery,
    construct_event,
    sign,
    verify_signature,
)
from gcbridge.webhooks.errors import VERIFICATION_REASONS
from gcbridge.webhooks.testing import sample_event

SEED = 20240602
FUZZ = settings(
    max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)

SECRET = "a3" * 32
NOW = 1_700_000_000.0
TS_MS = int(NOW * 1000)

EVENT: dict[str, Any] = sample_event("comment.created", timestamp_ms=TS_MS, content="hello")

header_names = st.sampled_from(
    [
        "X-Webhook-Signature",
        "x-webhook-signature",
        "X-Webhook-Timestamp",
        "x-webhook-timestamp",
        "X-Webhook-Delivery-Id",
        "X-Webhook-Retry-Count",
        "X-Webhook-First-Sent-At",
        "Content-Type",
    ]
) | st.text(max_size=30)
header_values = st.one_of(
    st.text(max_size=100),
    st.text(alphabet="0123456789abcdefABCDEF", min_size=60, max_size=68),
    st.integers(min_value=-(10**20), max_value=10**20).map(str),
    st.binary(max_size=80),
    st.none(),
    st.integers(),
)
headers_st = st.one_of(
    st.dictionaries(header_names, header_values, max_size=8),
    st.dictionaries(st.binary(max_size=30), st.binary(max_size=80), max_size=6),
)
bodies = st.one_of(
    st.binary(max_size=2000), st.text(max_size=200), st.none(), st.just(json.dumps(EVENT).encode())
)
secrets_st = st.one_of(
    st.just(SECRET),
    st.text(min_size=1, max_size=80),
    st.binary(min_size=1, max_size=80),
    st.lists(st.text(min_size=1, max_size=40), min_size=1, max_size=4),
)
clocks = st.floats(min_value=0, max_value=4e9)
tolerances = st.floats(min_value=0, max_value=1e6)


@seed(SEED)
@FUZZ
@given(secrets=secrets_st, body=bodies, headers=headers_st, now=clocks, tolerance=tolerances)
def test_verify_signature_raises_only_verification_errors(
    secrets: Any, body: Any, headers: dict[Any, Any], now: float, tolerance: float
) -> None:
    try:
        verify_signature(secrets, body, headers, tolerance=tolerance, now=now)
    except WebhookVerificationError as exc:
        assert exc.reason in VERIFICATION_REASONS
    else:
        # Passing without the right HMAC would be forgery: it needs our signature.
        raise AssertionError(f"accepted unsigned input: {headers!r}")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=20,
)


def _mutate(event: dict[str, Any], path: list[str], value: Any) -> dict[str, Any]:
    out = json.loads(json.dumps(event))
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


paths = st.sampled_from(
    [
        ["event_type"],
        ["timestamp"],
        ["website_id"],
        ["data"],
        ["data", "comment"],
        ["data", "thread"],
        ["data", "comment", "created_at"],
        ["data", "comment", "author"],
        ["data", "comment", "author", "guest"],
        ["data", "comment", "parent_id"],
        ["data", "thread", "updated_at"],
        ["data", "comment", "status"],
    ]
)
signed_bodies = st.one_of(
    st.builds(lambda p, v: json.dumps(_mutate(EVENT, p, v)).encode(), paths, json_values),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=300),
    st.just(b'{"a":' * 5000 + b"1" + b"}" * 5000),  # deep nesting
    st.just(json.dumps(EVENT).encode()),
)


@seed(SEED)
@FUZZ
@given(body=signed_bodies, skew=st.floats(min_value=-400, max_value=400))
def test_construct_event_on_authentic_bodies(body: bytes, skew: float) -> None:
    headers = {
        "X-Webhook-Signature": sign(SECRET, TS_MS, body),
        "X-Webhook-Timestamp": str(TS_MS),
        "X-Webhook-Delivery-Id": "dlv_1",
        "X-Webhook-Retry-Count": "0",
    }
    try:
        event = construct_event(SECRET, body, headers, now=NOW + skew)
    except WebhookVerificationError as exc:
        assert abs(skew) > 300 and exc.reason in ("timestamp_too_old", "timestamp_too_new")
    except WebhookPayloadError as exc:
        assert exc.reason == "malformed_payload"
    else:
        assert isinstance(event, WebhookEvent)
        assert abs(skew) <= 300


@seed(SEED)
@FUZZ
@given(headers=headers_st)
def test_construct_delivery_with_junk_bookkeeping_headers(headers: dict[Any, Any]) -> None:
    body = json.dumps(EVENT).encode()
    merged: dict[Any, Any] = {
        k: v
        for k, v in headers.items()
        if not (isinstance(k, str) and k.lower() in ("x-webhook-signature", "x-webhook-timestamp"))
    }
    merged["X-Webhook-Signature"] = sign(SECRET, TS_MS, body)
    merged["X-Webhook-Timestamp"] = str(TS_MS)
    try:
        delivery = construct_delivery(SECRET, body, merged, now=NOW)
    except WebhookVerificationError as exc:
        # Only a byte-keyed duplicate of the two signed headers can make them ambiguous.
        assert exc.reason in VERIFICATION_REASONS
    else:
        assert delivery.event.website_id == EVENT["website_id"]
        assert delivery.retry_count is None or delivery.retry_count >= 0
