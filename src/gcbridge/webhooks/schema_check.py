"""Check a delivery body against the published JSON Schemas: the one validation function.

``webhooks trigger`` and the emulator dashboard's test events run every body they made the
emulator send through :func:`check_body`. It validates with ``jsonschema`` (the ``emulator``
extra; the receiver SDK never imports it) against the very files that ship in
``gcbridge/webhooks/schemas/``, not a second Python-only definition, so what it accepts is
what a team validating in another language accepts. Formats are asserted too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from typing import Any
from urllib.parse import urlsplit

from gcbridge.webhooks.catalog import EVENT_TYPES
from gcbridge.webhooks.errors import WebhookPayloadError
from gcbridge.webhooks.event_schemas import shipped_schema

__all__ = ["WebhookSchemaError", "SCHEMA_REASONS", "check_body"]

SCHEMA_REASONS = frozenset(
    {"malformed_payload", "unknown_event_type", "schema_mismatch", "missing_dependency"}
)
"""Every ``reason`` a :class:`WebhookSchemaError` can carry."""

_MAX_PROBLEMS = 20
_RFC3339 = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$"
)


class WebhookSchemaError(WebhookPayloadError):
    """A body does not match its JSON Schema; ``problems`` lists ``"path: message"`` lines."""

    reason = "schema_mismatch"

    def __init__(
        self, message: str, *, reason: str | None = None, problems: tuple[str, ...] = ()
    ) -> None:
        super().__init__(message, reason=reason)
        self.problems = problems


def _date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    if not _RFC3339.match(value):
        return False
    from datetime import datetime

    try:
        datetime.fromisoformat(value.replace("z", "Z").replace("t", "T"))
    except ValueError:  # 2023-02-30, 25:00 ...
        return False
    return True


def _uri(value: object) -> bool:
    if not isinstance(value, str):
        return True
    parts = urlsplit(value)
    return bool(parts.scheme) and not any(c.isspace() for c in value)


def _int64(value: object) -> bool:
    if not isinstance(value, int) or isinstance(value, bool):
        return True
    return -(2**63) <= value < 2**63


@cache
def _validator(event_type: str | None) -> Any:
    try:
        from jsonschema import Draft202012Validator, FormatChecker
    except ImportError:  # pragma: no cover - the emulator extra brings it
        raise WebhookSchemaError(
            "checking against the JSON Schema needs the jsonschema package "
            "(pip install 'gc-bridge[emulator]')",
            reason="missing_dependency",
        ) from None
    checker = FormatChecker(formats=())
    checker.checks("date-time")(_date_time)
    checker.checks("uri")(_uri)
    checker.checks("int64")(_int64)
    schema = shipped_schema(event_type)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=checker)


def _path(error: Any) -> str:
    return ".".join(str(p) for p in error.absolute_path) or "body"


def check_body(body: bytes | str | Mapping[str, Any], event_type: str | None = None) -> str:
    """Validate a delivery body against its event type's JSON Schema; return the event type.

    ``body`` is the raw bytes (or text) as sent, or the parsed object. With
    ``event_type`` the body must be of that type; without, of any of the four.
    """
    if event_type is not None and event_type not in EVENT_TYPES:
        raise WebhookSchemaError(
            f"unknown event type {event_type!r}; one of {', '.join(EVENT_TYPES)}",
            reason="unknown_event_type",
        )
    value: Any = body
    if isinstance(body, (bytes, bytearray, str)):
        try:
            value = json.loads(body)
        except (ValueError, RecursionError):
            raise WebhookSchemaError(
                "the body is not UTF-8 JSON", reason="malformed_payload"
            ) from None
    if not isinstance(value, Mapping):
        raise WebhookSchemaError("the body is not a JSON object", reason="malformed_payload")
    sent_type = value.get("event_type")
    if sent_type not in EVENT_TYPES:
        shown = "missing" if sent_type is None else repr(sent_type)[:60]
        raise WebhookSchemaError(
            f"event_type is {shown}; one of {', '.join(EVENT_TYPES)}",
            reason="unknown_event_type",
            problems=(f"event_type: {shown} is not a known event type",),
        )
    # A body of a known type is checked against its own schema: the messages then
    # name the bad field, not "is not valid under any of the given schemas".
    errors = sorted(
        _validator(event_type or str(sent_type)).iter_errors(dict(value)),
        key=lambda e: (list(map(str, e.absolute_path)), e.message),
    )
    if errors:
        problems = tuple(f"{_path(e)}: {e.message}"[:300] for e in errors[:_MAX_PROBLEMS])
        raise WebhookSchemaError(
            f"the body does not match the {event_type or sent_type} schema: {problems[0]}"
            + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""),
            reason="schema_mismatch",
            problems=problems,
        )
    return str(sent_type)
