"""The high-level entry points: verify, then parse (stripe-python's two layers)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Unpack

from gcbridge.webhooks.delivery_log.claims import MAX_DELIVERY_ID_LENGTH
from gcbridge.webhooks.errors import WebhookDeliveryIdError
from gcbridge.webhooks.events import WebhookEvent, parse_event
from gcbridge.webhooks.signature import (
    DELIVERY_ID_HEADER,
    FIRST_SENT_AT_HEADER,
    RETRY_COUNT_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    Secrets,
    Window,
    header_value,
    verify_signature,
)

__all__ = ["Delivery", "construct_event", "construct_delivery"]


@dataclass(frozen=True)
class Delivery:
    """A verified delivery: the event plus its unsigned bookkeeping headers."""

    event: WebhookEvent
    delivery_id: str | None
    retry_count: int | None
    first_sent_at: datetime | None
    timestamp_ms: int
    signature: str


def construct_event(
    secrets: Secrets, body: bytes, headers: Mapping[Any, Any], **window: Unpack[Window]
) -> WebhookEvent:
    """Verify a delivery and parse it into a typed :class:`WebhookEvent`.

    ``tolerance`` and ``now`` as :func:`verify_signature`. Raises
    ``WebhookVerificationError`` if not authentic or not fresh, and
    ``WebhookPayloadError`` (reason ``malformed_payload``) if authentic but not an event.
    """
    verify_signature(secrets, body, headers, **window)
    return parse_event(bytes(body))


def construct_delivery(
    secrets: Secrets, body: bytes, headers: Mapping[Any, Any], **window: Unpack[Window]
) -> Delivery:
    """Like :func:`construct_event`, plus delivery id, retry count and first-sent date.

    A delivery id longer than 200 characters is refused (``WebhookDeliveryIdError``,
    reason ``delivery_id_too_long``): the service's ids are short, and the id is
    the de-duplication key, so it is never cut or dropped.
    """
    event = construct_event(secrets, body, headers, **window)
    # verify_signature has checked both headers' presence and shape.
    timestamp = int(header_value(headers, TIMESTAMP_HEADER) or 0)
    signature = (header_value(headers, SIGNATURE_HEADER) or "").lower()
    delivery_id = header_value(headers, DELIVERY_ID_HEADER) or None
    if delivery_id is not None and len(delivery_id) > MAX_DELIVERY_ID_LENGTH:
        raise WebhookDeliveryIdError(
            f"the {DELIVERY_ID_HEADER} header has {len(delivery_id)} characters, more than "
            f"{MAX_DELIVERY_ID_LENGTH}: not a delivery id of the service",
            reason="delivery_id_too_long",
        )
    raw_retry = header_value(headers, RETRY_COUNT_HEADER) or ""
    retry_count = (
        int(raw_retry)
        if raw_retry.isascii() and raw_retry.isdigit() and len(raw_retry) < 6
        else None
    )
    first_sent_at: datetime | None = None
    raw_first = header_value(headers, FIRST_SENT_AT_HEADER) or ""
    if 0 < len(raw_first) <= 40:
        try:
            first_sent_at = datetime.fromisoformat(raw_first)
        except ValueError:
            first_sent_at = None
    return Delivery(event, delivery_id, retry_count, first_sent_at, timestamp, signature)
