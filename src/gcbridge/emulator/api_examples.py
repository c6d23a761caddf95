"""Example answers of the emulator's routes, for ``/openapi.json`` and the HTTP API page.

Documentation only, like :mod:`gcbridge.emulator.openapi`: the routes build their answers
themselves; a test compares every example's fields with a live emulator's answer.
"""

from __future__ import annotations

import copy
from typing import Any

from gcbridge.emulator.settings import DEFAULT_RETRY_SCHEDULE
from gcbridge.webhooks.catalog import CREATED

__all__ = ["EXAMPLES", "add_examples"]

_ISO = "2026-01-15T09:30:00.000Z"
_LATER = "2026-01-15T09:31:00.000Z"
_NOW_MS = 1768469400000
_SITE_ID = "5f1c0ffee0ddba11c0ffee00"
_USER = {
    "id": "65a4f1c2b3d4e5f6a7b8c9d0",
    "external_id": "42",
    "guest": False,
    "name": "ada",
    "email": "ada@example.com",
    "avatar": "http://127.0.0.1:8000/api/pub/avatars/65a4f1c2b3d4e5f6a7b8c9d0.svg",
    "username": "ada",
}
_SESSION = {
    # a session token of the widget API: send it as Authorization: Bearer <token>
    "token": "eyJ1IjoiNjVhNGYxYzJiM2Q0ZTVmNmE3YjhjOWQwIiwicyI6IjAxMjM0NTY3In0.aWi0GA.c2lnbmF0dXJl",
    "user": _USER,
}
_AUTHOR = {k: v for k, v in _USER.items() if k not in ("email", "username")}
_THREAD = {
    "id": "65a4f0f0b3d4e5f6a7b80000",
    "page_title": "Native apps, hosted comments",
    "created_at": _ISO,
    "updated_at": _ISO,
    "external_id": "article-42",
}
_COMMENT = {
    "id": "65a4f100b3d4e5f6a7b80001",
    "external_id": None,
    "content": "Great article, thanks!",
    "created_at": _ISO,
    "updated_at": _ISO,
    "thread_id": _THREAD["id"],
    "external_thread_id": "article-42",
    "parent_id": None,
    "external_parent_id": None,
    "status": "approved",
    "author": _AUTHOR,
}
_WEBHOOK = {
    "website_id": _SITE_ID,
    "url": "https://hooks.example.com/gc",
    "events": [CREATED.name],
    # the signing secret of the deliveries: keep it in your receiver's secret store
    "secret": "4f0c2b0e8a3d41f6b9e7c5a2d1f08e3b7c6a5d4e3f2a1b0c9d8e7f6a5b4c3d2e",
    "enabled": True,
    "created_at": _ISO,
    "updated_at": _ISO,
}
_CALL = {
    "id": "65a4f200b3d4e5f6a7b80002",
    "website_id": _SITE_ID,
    "delivery_id": "dlv_0f3c9a7e5b1d4c2a8e6f0b9d7c5a3e1f",
    "event_type": CREATED.name,
    "url": "https://hooks.example.com/gc",
    "status": "success",
    "response_code": 200,
    "retry_count": 0,
    "created_at": _ISO,
    "next_attempt_at": None,
    "first_sent_at": _ISO,
    "replay_of": None,
    "error": None,
    "body": f'{{"event_type":"{CREATED.name}","timestamp":{_NOW_MS},...}}',
    "attempts": [
        {
            "number": 0,
            "started_at": _ISO,
            "duration_ms": 41,
            "in_flight": False,
            "response_code": 200,
            "error": None,
            "location": None,
            "response_body": "ok",
            "request_headers": {
                "Host": "hooks.example.com",
                "Accept": "*/*",
                "Accept-Encoding": "gzip, deflate",
                "Connection": "keep-alive",
                "Content-Type": "application/json",
                "User-Agent": "Service-Webhook/1.0",
                "X-Webhook-Signature": "<hex HMAC-SHA256>",
                "X-Webhook-Timestamp": str(_NOW_MS),
                "X-Webhook-Delivery-Id": "dlv_0f3c9a7e5b1d4c2a8e6f0b9d7c5a3e1f",
                "X-Webhook-Retry-Count": "0",
                "X-Webhook-First-Sent-At": _ISO,
                "Content-Length": "751",
            },
        }
    ],
}
_CLOCK = {"mode": "manual", "now": _NOW_MS}

EXAMPLES: dict[tuple[str, str], dict[int, Any]] = {
    ("get", "/api/pub/thread-load/"): {
        200: {
            "gc_url": "http://127.0.0.1:8000/widget/?website_id=demo&url=https%3A%2F%2F"
            "news.example.com%2Farticles%2F42&uid=article-42&page_title=Native+apps&inapp=true"
        }
    },
    ("post", "/api/pub/sso/login"): {200: _SESSION},
    ("get", "/api/pub/me"): {200: {"user": _USER}},
    ("post", "/api/pub/auth/register"): {201: {**_SESSION, "user": {**_USER, "external_id": None}}},
    ("post", "/api/pub/auth/login"): {200: {**_SESSION, "user": {**_USER, "external_id": None}}},
    ("get", "/api/pub/comments"): {200: {"thread": _THREAD, "comments": [_COMMENT]}},
    ("post", "/api/pub/comments"): {201: _COMMENT},
    ("patch", "/api/pub/comments/{comment_id}"): {200: {**_COMMENT, "updated_at": _LATER}},
    ("delete", "/api/pub/comments/{comment_id}"): {200: {**_COMMENT, "status": "deleted"}},
    ("post", "/api/moderation/comments/{comment_id}/approve"): {
        200: {**_COMMENT, "author": {**_AUTHOR, "email": _USER["email"]}}
    },
    ("post", "/api/moderation/comments/{comment_id}/refuse"): {
        200: {**_COMMENT, "status": "deleted", "author": {**_AUTHOR, "email": _USER["email"]}}
    },
    ("post", "/webhook/website/{website_id}/setup"): {200: _WEBHOOK},
    ("get", "/webhook/website/{website_id}/config"): {200: _WEBHOOK},
    ("delete", "/webhook/website/{website_id}/disable"): {200: {**_WEBHOOK, "enabled": False}},
    ("get", "/webhook/website/{website_id}/calls"): {200: {"calls": [_CALL], "next_cursor": None}},
    ("post", "/webhook/call/{call_id}/replay"): {
        200: {
            # fresh: false when this failed call was already replayed (the same replay again)
            "call": {
                **_CALL,
                "id": "65a4f300b3d4e5f6a7b80003",
                "delivery_id": "dlv_6e2a0c8f4b7d41e3a9c5f1b8d0e7a2c4",
                "status": "pending",
                "response_code": None,
                "next_attempt_at": _LATER,
                "first_sent_at": None,
                "replay_of": _CALL["id"],
                "attempts": [],
            },
            "fresh": True,
        }
    },
    ("post", "/webhook/website/{website_id}/verify"): {
        200: {"valid": False, "reason": "missing_header"}
    },
    ("get", "/_emulator/health"): {
        200: {
            "status": "ok",
            "version": "0.1.0",
            "clock": _CLOCK,
            "dispatcher": {"pending": 0, "next_due_at": None},
        }
    },
    ("get", "/_emulator/clock"): {200: _CLOCK},
    ("post", "/_emulator/clock"): {200: {**_CLOCK, "attempts": 0}},
    ("post", "/_emulator/reset"): {200: {"reset": True, "clock": _CLOCK}},
    ("get", "/_emulator/snapshots"): {200: {"snapshots": ["before-test"]}},
    ("put", "/_emulator/snapshots/{name}"): {200: {"snapshot": "before-test", "saved": True}},
    ("post", "/_emulator/snapshots/{name}/restore"): {
        200: {"snapshot": "before-test", "restored": True, "clock": _CLOCK}
    },
    ("get", "/api/dashboard/site"): {
        200: {
            "shortname": "demo",
            "website_id": _SITE_ID,
            "sso_public_key": "pk_demo",
            "widget_url": "http://127.0.0.1:8000/widget/",
            "thread_load_url": "http://127.0.0.1:8000/api/pub/thread-load/",
            "sample_thread": {
                "uid": "dashboard-sample",
                "url": "https://example.com/articles/dashboard-sample",
                "page_title": "Dashboard sample thread",
            },
            "retry_schedule": list(DEFAULT_RETRY_SCHEDULE),
        }
    },
    ("post", "/api/dashboard/events/check"): {
        200: {
            "valid": False,
            "event_type": None,
            "reason": "unknown_event_type",
            "problems": ["event_type: missing is not a known event type"],
        }
    },
}
"""``(method, path) -> {status: example body}`` of the routes that answer JSON."""


def add_examples(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with each example in its operation's JSON answer (added in place)."""
    for (method, path), answers in EXAMPLES.items():
        operation = schema.get("paths", {}).get(path, {}).get(method)
        if operation is None:
            continue  # a route that is gone: the docs test says so
        for status, example in answers.items():
            answer = operation.setdefault("responses", {}).setdefault(
                str(status), {"description": "Successful Response"}
            )
            media = answer.setdefault("content", {}).setdefault("application/json", {})
            media["example"] = copy.deepcopy(example)
    return schema
