"""Typed, immutable models of the webhook delivery body.

docs/reference/wire-formats.md, "Webhook deliveries".

Unknown fields are kept (``model_extra``) rather than refused, so a receiver
keeps working when the service adds fields. Dates inside ``data`` are parsed
into timezone-aware datetimes (a date without offset is taken as UTC); the root
``timestamp`` stays integer epoch milliseconds, with :attr:`WebhookEvent.sent_at`
as its datetime.

These models are also the one source of the published JSON Schemas
(:mod:`gcbridge.webhooks.event_schemas`): one body model per event type of the
catalog (:data:`EVENT_MODELS`, ``event_type`` fixed), each field described.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.json_schema import WithJsonSchema

from gcbridge.webhooks.catalog import CATALOG, EVENT_TYPES, EventKind
from gcbridge.webhooks.errors import WebhookPayloadError

__all__ = [
    "EventType",
    "Author",
    "Comment",
    "Thread",
    "EventData",
    "WebhookEvent",
    "EVENT_MODELS",
    "parse_event",
]

if TYPE_CHECKING:
    EventType: TypeAlias = str
else:
    EventType = Literal[EVENT_TYPES]
"""The catalog's event types, a ``Literal`` at run time (:mod:`gcbridge.webhooks.catalog`)."""


def _aware(value: datetime) -> datetime:
    # ISO 8601 without an offset is ambiguous; the service speaks UTC.
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


IsoDate = Annotated[datetime, AfterValidator(_aware)]
_Url = Annotated[str, WithJsonSchema({"type": "string", "format": "uri"})]

_MODEL = ConfigDict(frozen=True, extra="allow")


def _d(text: str) -> Any:
    return Field(description=text)


def _nullable(text: str) -> Any:
    # The service always sends these keys (null when there is no value); a receiver
    # still accepts a body without them.
    return Field(default=None, description=text)


class Author(BaseModel):
    """The author of the comment (data.comment.author)."""

    model_config = _MODEL

    id: str = _d("Author id.")
    external_id: str | None = _nullable("For SSO users, the id supplied through SSO.")
    guest: bool = _d("Whether the author is a guest.")
    name: str = _d("Display name.")
    # The service lists a string, but guests of some sites have none: null is tolerated
    # (docs/reference/event-schemas.md#what-the-schemas-say).
    email: str | None = _nullable("Author e-mail address (null for a guest without one).")
    avatar: _Url | None = _nullable("Avatar image URL.")


class Comment(BaseModel):
    """The comment the event is about (data.comment)."""

    model_config = _MODEL

    id: str = _d("Comment id.")
    external_id: str | None = _nullable("Caller-side comment id.")
    content: str = _d("Comment text.")
    created_at: IsoDate = _d("ISO 8601 date-time.")
    updated_at: IsoDate = _d("ISO 8601 date-time.")
    thread_id: str = _d("Id of the thread.")
    external_thread_id: str | None = _nullable("Caller-side thread id.")
    parent_id: str | None = _nullable("Null for a top-level comment.")
    external_parent_id: str | None = _nullable("Caller-side parent id.")
    status: str = _d("Public status of the comment, for example approved or deleted.")
    author: Author


class Thread(BaseModel):
    """The thread of the comment (data.thread)."""

    model_config = _MODEL

    id: str = _d("Thread id.")
    page_title: str = _d("Page title.")
    created_at: IsoDate = _d("ISO 8601 date-time.")
    updated_at: IsoDate = _d("ISO 8601 date-time.")
    external_id: str | None = _nullable("Caller-side thread id.")


class EventData(BaseModel):
    """The event's data: the comment and its thread."""

    model_config = _MODEL

    comment: Comment
    thread: Thread


class WebhookEvent(BaseModel):
    """One delivery body: event_type, timestamp (epoch ms), website_id and data."""

    model_config = _MODEL

    event_type: EventType = _d("One of the event types: " + ", ".join(EVENT_TYPES) + ".")
    timestamp: int = Field(
        strict=True,
        ge=0,
        description="Epoch milliseconds.",
        json_schema_extra={"format": "int64"},
    )
    website_id: str = Field(
        pattern=r"^[0-9a-fA-F]{24}$", description="Internal site id (24 hex characters)."
    )
    data: EventData

    @property
    def sent_at(self) -> datetime:
        """``timestamp`` as an aware UTC datetime."""
        return datetime.fromtimestamp(self.timestamp / 1000, tz=UTC)


def _body_model(event: EventKind) -> type[WebhookEvent]:
    # The same fields, event_type fixed: each event's own JSON Schema (a const
    # event_type), named after it (comment.pinned -> CommentPinnedEvent).
    name = "".join(part.title() for part in event.name.replace("_", ".").split(".")) + "Event"
    fixed: Any = Literal[event.name]
    model: type[WebhookEvent] = create_model(
        name,
        __base__=WebhookEvent,
        __module__=__name__,
        __doc__=f"The body of {event.name}. Fires when: {event.fires_when}",
        event_type=(fixed, _d(f"Always {event.name}.")),
    )
    return model


EVENT_MODELS: dict[str, type[WebhookEvent]] = {event.name: _body_model(event) for event in CATALOG}
"""Event type -> the model of its body (parse_event still answers a plain WebhookEvent)."""


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
            f"the body is not a webhook delivery body (bad: {', '.join(fields[:8])})",
            reason="malformed_payload",
        ) from None
