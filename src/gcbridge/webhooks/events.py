"""Typed, immutable models of the webhook delivery body (spec 2.4).

Unknown fields are kept (``model_extra``) rather than refused, so a receiver
keeps working when the service adds fields. Dates inside ``data`` are parsed
into timezone-aware datetimes (a date without offset is taken as UTC); the root
``timestamp`` stays integer epoch milliseconds, with :attr:`WebhookEvent.sent_at`
as its datetime.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from gcbridge.webhooks.errors import WebhookPayloadError

__all__ = ["EventType", "Author", "Comment", "Thread", "EventData", "WebhookEvent", "parse_event"]

EventType = Literal["comment.created", "comment.updated", "comment.approved", "comment.deleted"]
"""The four event kinds of spec 6.1."""


def _aware(value: datetime) -> datetime:
    # ISO 8601 without an offset is ambiguous; the service speaks UTC.
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


IsoDate = Annotated[datetime, AfterValidator(_aware)]

_MODEL = ConfigDict(frozen=True, extra="allow")


class Author(BaseModel):
    """``data.comment.author``."""

    model_config = _MODEL

    id: str
    external_id: str | None = None
    guest: bool
    name: str
    # Spec 2.4 says string; guests of some sites have none, so null is tolerated.
    email: str | None = None
    avatar: str | None = None


class Comment(BaseModel):
    """``data.comment``."""

    model_config = _MODEL

    id: str
    external_id: str | None = None
    content: str
    created_at: IsoDate
    updated_at: IsoDate
    thread_id: str
    external_thread_id: str | None = None
    parent_id: str | None = None
    external_parent_id: str | None = None
    status: str
    author: Author


class Thread(BaseModel):
    """``data.thread``."""

    model_config = _MODEL

    id: str
    page_title: str
    created_at: IsoDate
    updated_at: IsoDate
    external_id: str | None = None


class EventData(BaseModel):
    """``data``: the comment and its thread."""

    model_config = _MODEL

    comment: Comment
    thread: Thread


class WebhookEvent(BaseModel):
    """One delivery body: ``event_type``, ``timestamp`` (epoch ms), ``website_id``, ``data``."""

    model_config = _MODEL

    event_type: EventType
    timestamp: int = Field(strict=True, ge=0)
    website_id: str = Field(pattern=r"^[0-9a-fA-F]{24}$")
    data: EventData

    @property
    def sent_at(self) -> datetime:
        """``timestamp`` as an aware UTC datetime."""
        return datetime.fromtimestamp(self.timestamp / 1000, tz=UTC)


def parse_event(body: bytes | str) -> WebhookEvent:
    """Parse a body into a :class:`WebhookEvent` *without* verifying it (use construct_event)."""
    try:
        value: Any = json.loads(body)
    except (ValueError, RecursionError):
        # ValueError: JSONDecodeError, UnicodeDecodeError, and an integer beyond
        # Python's digit limit (a bare ValueError raised inside the parser).
        raise WebhookPayloadError(
            "the body is not UTF-8 JSON", reason="malformed_payload"
        ) from None
    try:
        return WebhookEvent.model_validate(value)
    except ValidationError as exc:
        fields = sorted({".".join(str(p) for p in e["loc"]) or "body" for e in exc.errors()})
        raise WebhookPayloadError(
            f"the body is not a webhook event of spec 2.4 (bad: {', '.join(fields[:8])})",
            reason="malformed_payload",
        ) from None
