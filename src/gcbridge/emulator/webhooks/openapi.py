"""The webhook engine's OpenAPI fragments: its routes' parameters, and the ``webhooks`` section.

Documentation only, like :mod:`gcbridge.emulator.openapi`. :func:`add_webhooks` adds one
``webhooks`` entry per event type (its delivery body and headers, per
docs/reference/wire-formats.md, "Webhook deliveries"), with each body schema inline and
without ``$ref`` (so a catalog importer needs nothing else), and again as named
``components/schemas`` (shared parts prefixed ``Webhook``), for code generators.
"""

from __future__ import annotations

import copy
from typing import Any

from gcbridge.emulator.openapi import json_request_body, query_parameters
from gcbridge.emulator.settings import DEFAULT_RETRY_SCHEDULE
from gcbridge.emulator.webhooks.journal import CALL_STATUSES
from gcbridge.emulator.webhooks.schedule import duration_text, schedule_text
from gcbridge.webhooks import signature as wire
from gcbridge.webhooks.catalog import EVENT_TYPES, example_body, kind
from gcbridge.webhooks.event_schemas import body_schema

__all__ = [
    "CALLS_EXTRA",
    "SETUP_EXTRA",
    "VERIFY_EXTRA",
    "add_webhooks",
    "webhook_components",
    "webhook_operation",
    "inline_body_schema",
    "DELIVERY_HEADERS",
]

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
            (wire.SIGNATURE_HEADER, "The delivery's signature header."),
            (wire.TIMESTAMP_HEADER, "The delivery's timestamp header."),
        )
    ],
}


_SHARED = ("Author", "Comment", "EventData", "Thread")
_PREFIX = "Webhook"
ANY_BODY = "WebhookEvent"

DELIVERY_HEADERS: list[dict[str, Any]] = [
    {
        "name": wire.SIGNATURE_HEADER,
        "in": "header",
        "required": True,
        "description": "Lowercase hex HMAC-SHA256, keyed with the webhook secret, of "
        "`<X-Webhook-Timestamp>.<raw body>`: verify it on the raw bytes, in "
        "constant time, before parsing the JSON.",
        "schema": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
    },
    {
        "name": wire.TIMESTAMP_HEADER,
        "in": "header",
        "required": True,
        "description": "Epoch milliseconds the signature was computed with; refuse it "
        f"outside plus or minus {duration_text(wire.DEFAULT_TOLERANCE)} of your clock.",
        "schema": {"type": "integer", "format": "int64", "minimum": 0},
        "example": 1700000000000,
    },
    {
        "name": wire.DELIVERY_ID_HEADER,
        "in": "header",
        "required": True,
        "description": "Unique id of this delivery, the same on every retry of it: "
        "use it as an idempotency key.",
        "schema": {"type": "string", "minLength": 1},
        "example": "dlv_4f9c2a7e1b3d4c5e8f60718293a4b5c6",
    },
    {
        "name": wire.RETRY_COUNT_HEADER,
        "in": "header",
        "required": True,
        "description": "Number of attempts already made (0 on the first attempt).",
        "schema": {"type": "integer", "minimum": 0},
        "example": 0,
    },
    {
        "name": wire.FIRST_SENT_AT_HEADER,
        "in": "header",
        "required": True,
        "description": "ISO 8601 date-time of the first attempt of this delivery.",
        "schema": {"type": "string", "format": "date-time"},
        "example": "2023-11-14T22:13:20.000Z",
    },
    {
        "name": "User-Agent",
        "in": "header",
        "required": True,
        "description": "Always " + wire.USER_AGENT + ".",
        "schema": {"type": "string", "const": wire.USER_AGENT},
    },
]
"""The delivery headers (docs/reference/wire-formats.md), as OpenAPI Parameter Objects."""

_RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds or an HTTP date: honoured, rounded up to the next retry "
        "slot (it never adds attempts).",
        "schema": {"type": "string"},
    }
}

_RESPONSES: dict[str, Any] = {
    "2XX": {
        "description": "Taken: the delivery succeeded. Verify, enqueue and answer quickly; "
        "a delivery id already processed may be answered 2xx and skipped."
    },
    "401": {
        "description": "Recommended when a header is missing, the timestamp is not numeric "
        "or outside the window, or the signature differs. Not retried."
    },
    "429": {
        "description": "Too many requests: retried on the schedule.",
        "headers": _RETRY_AFTER,
    },
    "4XX": {"description": "Any other logical client error: the delivery fails, not retried."},
    "5XX": {
        "description": f"Retried on the schedule: after {schedule_text(DEFAULT_RETRY_SCHEDULE)} "
        f"({len(DEFAULT_RETRY_SCHEDULE)} attempts in all); network errors and timeouts are "
        "retried too.",
        "headers": _RETRY_AFTER,
    },
}


def _component_name(def_name: str) -> str:
    return _PREFIX + def_name if def_name in _SHARED else def_name


def _relink(node: Any) -> Any:
    """``#/$defs/X`` -> ``#/components/schemas/<name of X>``, everywhere in ``node``."""
    if isinstance(node, dict):
        out = {k: _relink(v) for k, v in node.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            out["$ref"] = "#/components/schemas/" + _component_name(ref[len("#/$defs/") :])
        mapping = out.get("mapping")
        if isinstance(mapping, dict) and "propertyName" in out:
            out["mapping"] = {
                k: "#/components/schemas/" + _component_name(v.rsplit("/", 1)[-1])
                for k, v in mapping.items()
            }
        return out
    if isinstance(node, list):
        return [_relink(v) for v in node]
    return node


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """``node`` with every ``#/$defs/X`` replaced by X itself (the models have no cycle)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            rest = {k: v for k, v in node.items() if k != "$ref"}
            return {**_inline(defs[ref[len("#/$defs/") :]], defs), **_inline(rest, defs)}
        return {k: _inline(v, defs) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


def inline_body_schema(event_type: str) -> dict[str, Any]:
    """The body schema of ``event_type`` with its parts inlined: no ``$ref``, no ``$defs``."""
    schema = body_schema(event_type)
    defs = schema.pop("$defs", {})
    schema.pop("$schema", None)
    inlined: dict[str, Any] = _inline(schema, defs)
    return inlined


def webhook_components() -> dict[str, dict[str, Any]]:
    """``components/schemas`` entries: each event body, its parts and ``WebhookEvent`` (any)."""
    union = body_schema()
    components: dict[str, dict[str, Any]] = {
        _component_name(name): _relink(schema) for name, schema in union["$defs"].items()
    }
    components[ANY_BODY] = _relink(
        {k: v for k, v in union.items() if k not in ("$schema", "$defs")}
    )
    for event_type in EVENT_TYPES:
        one = body_schema(event_type)  # with its own description and example
        name = one["title"]
        components[name] = _relink({k: v for k, v in one.items() if k not in ("$schema", "$defs")})
    return components


def webhook_operation(event_type: str) -> dict[str, Any]:
    """The Path Item of one event type: a ``post`` with body, headers, answers, example."""
    fires_when = kind(event_type).fires_when
    return {
        "post": {
            "operationId": "webhook_" + event_type.replace(".", "_"),
            "summary": f"{event_type}: {fires_when}",
            "description": f"Sent to the site's webhook URL when: {fires_when} "
            "The body is compact UTF-8 JSON; its exact bytes are signed, so verify before "
            "parsing. Unknown fields may appear: ignore them.",
            "tags": ["webhook events"],
            "parameters": copy.deepcopy(DELIVERY_HEADERS),
            "requestBody": {
                "required": True,
                "description": f"The {event_type} delivery body.",
                "content": {
                    "application/json": {
                        "schema": inline_body_schema(event_type),
                        "examples": {
                            event_type.replace(".", "_"): {
                                "summary": f"A {event_type} delivery",
                                "value": example_body(event_type),
                            }
                        },
                    }
                },
            },
            "responses": copy.deepcopy(_RESPONSES),
        }
    }


def add_webhooks(document: dict[str, Any]) -> dict[str, Any]:
    """Add ``webhooks`` and the body schemas to an OpenAPI 3.1 ``document``; returns it.

    Raises ``ValueError`` if a component name is already taken by another schema.
    """
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in webhook_components().items():
        if name in schemas and schemas[name] != schema:
            raise ValueError(f"components/schemas/{name} is already taken")
        schemas[name] = schema
    webhooks = document.setdefault("webhooks", {})
    for event_type in EVENT_TYPES:
        webhooks[event_type] = webhook_operation(event_type)
    tags = document.setdefault("tags", [])
    if not any(t.get("name") == "webhook events" for t in tags):
        tags.append(
            {
                "name": "webhook events",
                "description": (
                    "What the service POSTs to your webhook URL: the delivery body and its headers."
                ),
            }
        )
    return document
