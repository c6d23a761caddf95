"""OpenAPI fragments of the webhook routes (documentation only; see ``emulator.openapi``)."""

from __future__ import annotations

from typing import Any

from gcbridge.emulator.openapi import json_request_body, query_parameters
from gcbridge.emulator.webhooks.journal import CALL_STATUSES
from gcbridge.webhooks.catalog import EVENT_TYPES

__all__ = ["CALLS_EXTRA", "SETUP_EXTRA", "VERIFY_EXTRA"]

_LIMIT = {"type": "integer", "minimum": 1, "maximum": 200, "default": 50}
_CURSOR = {"type": "string", "pattern": "^[0-9]{0,18}$"}

CALLS_EXTRA = query_parameters(
    ("limit", False, _LIMIT, "Page size."),
    ("status", False, {"type": "string", "enum": list(CALL_STATUSES)}, "Only calls in this state."),
    ("event_type", False, {"type": "string", "enum": list(EVENT_TYPES)}, "Only this event kind."),
    ("cursor", False, _CURSOR, "The next_cursor of the previous page."),
)
"""The delivery journal's filters and paging (webhook_routes reads them by hand)."""

SETUP_EXTRA = json_request_body(
    {
        "type": "object",
        "required": ["url"],
        "properties": {
            "url": {"type": "string", "format": "uri", "description": "The receiver's https URL."},
            "events": {
                "type": "array",
                "minItems": 1,
                "items": {"type": "string", "enum": list(EVENT_TYPES)},
                "description": "Event kinds to deliver; all of them when left out.",
            },
        },
    },
    "The webhook configuration; read raw, since a site-key signature covers its bytes.",
    required=True,
)

VERIFY_EXTRA: dict[str, Any] = {
    "requestBody": {
        "required": False,
        "description": "The exact body of a delivery, byte for byte.",
        "content": {
            "application/json": {"schema": {"type": "object"}},
            "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
        },
    },
    "parameters": [
        {
            "name": name,
            "in": "header",
            "required": False,
            "schema": {"type": "string"},
            "description": description,
        }
        for name, description in (
            ("X-Webhook-Signature", "The delivery's signature header."),
            ("X-Webhook-Timestamp", "The delivery's timestamp header."),
        )
    ],
}
