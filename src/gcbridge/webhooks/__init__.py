"""Receive the service's signed webhooks safely.

::

    from gcbridge.webhooks import construct_event, WebhookError

    event = construct_event(secret, raw_body, request.headers)   # verified, typed
    print(event.event_type, event.data.comment.content)

Low level: :func:`sign` and :func:`verify_signature`; idempotency and replay
memory: :class:`DeliveryLog`; the event types: :mod:`gcbridge.webhooks.catalog`.
The FastAPI dependency is in :mod:`gcbridge.webhooks.receiver`, the ``listen`` app
in :mod:`gcbridge.webhooks.listen` and the test helpers (sample events, signed
headers, a poster) in :mod:`gcbridge.webhooks.testing`, imported only when you ask.
"""

from __future__ import annotations

from gcbridge.webhooks.catalog import EVENT_TYPES
from gcbridge.webhooks.construct import Delivery, construct_delivery, construct_event
from gcbridge.webhooks.delivery_log import DeliveryLog
from gcbridge.webhooks.emulator_clock import EmulatorClock
from gcbridge.webhooks.errors import (
    WebhookError,
    WebhookPayloadError,
    WebhookReplayError,
    WebhookVerificationError,
)
from gcbridge.webhooks.events import EventType, WebhookEvent
from gcbridge.webhooks.signature import (
    DELIVERY_ID_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    sign,
    verify_signature,
)

__all__ = [
    "construct_event",
    "construct_delivery",
    "Delivery",
    "DeliveryLog",
    "EmulatorClock",
    "WebhookEvent",
    "EventType",
    "EVENT_TYPES",
    "sign",
    "verify_signature",
    "WebhookError",
    "WebhookVerificationError",
    "WebhookReplayError",
    "WebhookPayloadError",
    "SIGNATURE_HEADER",
    "TIMESTAMP_HEADER",
    "DELIVERY_ID_HEADER",
]
