"""Shared helpers of the webhook tests (unique module name: tests have no packages)."""

import json

from gcbridge.webhooks import signed_headers

SECRET = "whsec_test_secret"
TS = 1_700_000_000_000
NOW = TS / 1000
WEBSITE_ID = "5f1c0ffee0ddba11c0ffee00"


def event_dict(event_type="comment.created", content="Hello ✓", **root):
    """A spec 2.4 body as a dict."""
    return {
        "event_type": event_type,
        "timestamp": TS,
        "website_id": WEBSITE_ID,
        "data": {
            "comment": {
                "id": "c1",
                "external_id": None,
                "content": content,
                "created_at": "2023-11-14T22:13:20.000Z",
                "updated_at": "2023-11-14T22:13:20.000Z",
                "thread_id": "t1",
                "external_thread_id": "article-1",
                "parent_id": None,
                "external_parent_id": None,
                "status": "approved",
                "author": {
                    "id": "a1",
                    "external_id": "42",
                    "guest": False,
                    "name": "ada",
                    "email": "ada@example.com",
                    "avatar": "https://example.com/a.png",
                },
            },
            "thread": {
                "id": "t1",
                "page_title": "Title",
                "created_at": "2023-11-14T22:00:00Z",
                "updated_at": "2023-11-14T22:13:20+01:00",
                "external_id": "article-1",
            },
        },
        **root,
    }


def event_body(**kw):
    """The compact UTF-8 JSON bytes of :func:`event_dict`."""
    return json.dumps(event_dict(**kw), separators=(",", ":"), ensure_ascii=False).encode()


def delivery_headers(body, *, secret=SECRET, ts=TS, delivery_id="d-1", retry=0):
    """Every header of spec 2.6 for ``body``."""
    return {
        **signed_headers(secret, ts, body),
        "X-Webhook-Delivery-Id": delivery_id,
        "X-Webhook-Retry-Count": str(retry),
        "X-Webhook-First-Sent-At": "2023-11-14T22:13:20.000Z",
        "User-Agent": "Service-Webhook/1.0",
        "Content-Type": "application/json",
    }
