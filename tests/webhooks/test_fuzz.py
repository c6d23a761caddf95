"""Hypothesis: construct_event raises nothing but WebhookError subclasses."""

import contextlib
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from gcbridge.webhooks import WebhookError, construct_event, sign
from tests.webhooks.support import NOW, SECRET, TS, event_dict

header_values = st.one_of(
    st.text(max_size=80),
    st.integers(-(10**15), 10**15).map(str),
    st.binary(max_size=70).map(lambda b: b.hex()[:64]),
)


@settings(max_examples=200)
@given(
    body=st.binary(max_size=200),
    headers=st.dictionaries(
        st.sampled_from(
            ["X-Webhook-Timestamp", "x-webhook-signature", "X-WEBHOOK-SIGNATURE", "other"]
        ),
        header_values,
        max_size=4,
    ),
    now=st.floats(0, 4e9, allow_nan=False),
)
def test_arbitrary_requests(body, headers, now):
    with contextlib.suppress(WebhookError):
        construct_event(SECRET, body, headers, now=now)


@settings(max_examples=150)
@given(body=st.binary(max_size=300))
def test_signed_arbitrary_bodies(body):
    with contextlib.suppress(WebhookError):
        construct_event(
            SECRET,
            body,
            {"X-Webhook-Timestamp": str(TS), "X-Webhook-Signature": sign(SECRET, TS, body)},
            now=NOW,
        )


scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10)
)


@settings(max_examples=150)
@given(
    path=st.sampled_from(
        [
            ("event_type",),
            ("timestamp",),
            ("website_id",),
            ("data", "comment", "created_at"),
            ("data", "comment", "author", "guest"),
            ("data", "thread"),
            ("data", "comment", "status"),
        ]
    ),
    value=scalars | st.lists(scalars, max_size=2),
)
def test_signed_mutated_events(path, value):
    raw = event_dict()
    target = raw
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    body = json.dumps(raw).encode()
    with contextlib.suppress(WebhookError):
        construct_event(
            SECRET,
            body,
            {"X-Webhook-Timestamp": str(TS), "X-Webhook-Signature": sign(SECRET, TS, body)},
            now=NOW,
        )
