"""Deliveries of one comment out of order: what a receiver must expect, and bodies to test it.

The service delivers each event on its own, and retries a failed delivery later
(minutes to hours later, on its retry schedule): a comment's creation whose first
attempt failed arrives *after* the update that followed it, and its deletion can
overtake both. So a receiver:

- keeps, per comment, the ``timestamp`` of the last event it applied (the body's
  ``timestamp``, when the service produced the event, never the signature's
  ``X-Webhook-Timestamp``, which is new on every retry) and ignores an older one
  (:func:`is_newer`);
- treats an update of an unknown comment as its creation (upsert);
- keeps a deleted comment's tombstone, so a late creation or update does not
  bring it back.

:func:`comment_history` builds the bodies to post out of order with
:meth:`~gcbridge.webhooks.testing.WebhookPoster.post_each`. Imports only the SDK.
"""

from __future__ import annotations

import time
from typing import Any

from gcbridge.webhooks.catalog import CREATED
from gcbridge.webhooks.events import WebhookEvent

__all__ = ["comment_history", "is_newer", "RETRIED_CREATE_AFTER_UPDATE"]

RETRIED_CREATE_AFTER_UPDATE = (1, 0)
"""Delivery order of ``comment_history(CREATED.name, UPDATED.name)`` after the create's
first attempt failed: the update arrives first."""


def comment_history(
    *event_types: str,
    comment_id: str = "c1",
    start_ms: int | None = None,
    step_ms: int = 1000,
    contents: list[str] | None = None,
    **fields: Any,
) -> list[dict[str, Any]]:
    """Bodies of one comment's events, in the order they happened (checked, as the service's).

    Event ``i`` has ``timestamp`` ``start_ms + i * step_ms`` and that time as the
    comment's ``updated_at`` (``created_at`` stays the first event's). ``contents``
    gives each event's text (default: ``"v1"``, ``"v2"``, ...); ``fields`` go to
    every :func:`~gcbridge.webhooks.testing.sample_event`.
    """
    from gcbridge.webhooks.testing import sample_event

    if not event_types:
        raise ValueError(f"name at least one event type, e.g. {CREATED.name!r}")
    start = int(time.time() * 1000) if start_ms is None else start_ms
    texts = contents or [f"v{number}" for number in range(1, len(event_types) + 1)]
    if len(texts) != len(event_types):
        raise ValueError("contents: one text per event type")
    first = sample_event(event_types[0], timestamp_ms=start, comment_id=comment_id, **fields)
    created_at = first["data"]["comment"]["created_at"]
    bodies = []
    for number, (event_type, text) in enumerate(zip(event_types, texts, strict=True)):
        body = sample_event(
            event_type,
            timestamp_ms=start + number * step_ms,
            comment_id=comment_id,
            content=text,
            **fields,
        )
        body["data"]["comment"]["created_at"] = created_at
        bodies.append(body)
    return bodies


def is_newer(event: WebhookEvent, last_applied_ms: int | None) -> bool:
    """Whether ``event`` is newer than the last one applied to its comment (apply it), by the
    body's ``timestamp``; ``None``: nothing applied yet."""
    return last_applied_ms is None or event.timestamp > last_applied_ms
