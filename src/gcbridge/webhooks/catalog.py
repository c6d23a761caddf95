"""The webhook event types: each one's name, when it fires, how to fire one, and an example.

This is the one list of event types: the models, the JSON Schemas, the OpenAPI
``webhooks``, the emulator, the demo, the CLI and the dashboard all derive from
:data:`CATALOG`. An event type is added here, and only here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "EventKind",
    "Trigger",
    "CREATED",
    "UPDATED",
    "APPROVED",
    "DELETED",
    "CATALOG",
    "EVENT_TYPES",
    "kind",
    "example_body",
]

Trigger = Literal["post", "edit", "approve", "delete"]
"""The comment change that fires an event: what ``webhooks trigger`` and the dashboard do."""


@dataclass(frozen=True)
class EventKind:
    """One event type: its name, when it fires, its trigger and its example's values."""

    name: str
    fires_when: str
    trigger: Trigger
    example_content: str
    example_status: str
    example_updated_at: str


CREATED = EventKind(
    "comment.created",
    "A new comment is submitted.",
    "post",
    "Great article, thanks!",
    "approved",
    "2023-11-14T22:13:20.000Z",
)
UPDATED = EventKind(
    "comment.updated",
    "A comment's content is edited.",
    "edit",
    "Great article, thanks! (edited)",
    "approved",
    "2023-11-14T22:15:00.000Z",
)
APPROVED = EventKind(
    "comment.approved",
    "A moderator approves a comment.",
    "approve",
    "Great article, thanks!",
    "approved",
    "2023-11-14T22:20:00.000Z",
)
DELETED = EventKind(
    "comment.deleted",
    "A comment is deleted, or a moderator refuses it (there is no comment.refused event).",
    "delete",
    "Great article, thanks!",
    "deleted",
    "2023-11-14T22:30:00.000Z",
)

CATALOG: tuple[EventKind, ...] = (CREATED, UPDATED, APPROVED, DELETED)
"""Every event type, in the order the service's documentation lists them."""

EVENT_TYPES: tuple[str, ...] = tuple(event.name for event in CATALOG)
"""The event types' names, in :data:`CATALOG`'s order."""


def kind(event_type: str) -> EventKind:
    """The catalog's entry of ``event_type``; ``KeyError`` naming the known ones otherwise."""
    for event in CATALOG:
        if event.name == event_type:
            return event
    raise KeyError(f"unknown event type {event_type!r}; one of {', '.join(EVENT_TYPES)}")


def example_body(event_type: str) -> dict[str, Any]:
    """A complete, fixed example body of ``event_type`` (``KeyError`` for an unknown type)."""
    event = kind(event_type)
    return {
        "event_type": event.name,
        "timestamp": 1700000000000 + CATALOG.index(event) * 60000,
        "website_id": "65a1f00da1b2c3d4e5f6a7b8",
        "data": {
            "comment": {
                "id": "6553f100a1b2c3d4e5f60001",
                "external_id": None,
                "content": event.example_content,
                "created_at": "2023-11-14T22:13:20.000Z",
                "updated_at": event.example_updated_at,
                "thread_id": "6553f0f0a1b2c3d4e5f60000",
                "external_thread_id": "article-42",
                "parent_id": None,
                "external_parent_id": None,
                "status": event.example_status,
                "author": {
                    "id": "6553ef00a1b2c3d4e5f6000a",
                    "external_id": "user-42",
                    "guest": False,
                    "name": "Ada Lovelace",
                    "email": "ada@example.com",
                    "avatar": "https://example.com/avatars/ada.png",
                },
            },
            "thread": {
                "id": "6553f0f0a1b2c3d4e5f60000",
                "page_title": "How the analytical engine works",
                "created_at": "2023-11-14T22:00:00.000Z",
                "updated_at": event.example_updated_at,
                "external_id": "article-42",
            },
        },
    }
