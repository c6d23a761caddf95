"""Receive the service's signed webhooks safely.

::

    from gcbridge.webhooks import construct_event, WebhookError

    event = construct_event(secret, raw_body, request.headers)   # verified, typed
    print(event.event_type, event.data.comment.content)

Low level: :func:`sign` and :func:`verify_signature`; idempotency and replay
memory: :class:`DeliveryLog`. The FastAPI dependency is in
:mod:`gcbridge.webhooks.receiver` and the ``listen`` app in
:mod:`gcbridge.webhooks.listen`, imported only when you ask for them.
"""

from __future__ import annotations

from gcbridge.webhooks.catalog import EVENT_TYPES
from gcbridge.webhooks.construct import Delivery, construct_delivery, construct_event
from gcbridge.webhooks.delivery_log import DeliveryLog
from gcbridge.webhooks.emulator_clock import EmulatorClock, EmulatorClockError
from gcbridge.webhooks.errors import (
    WebhookDeliveryIdError,
    WebhookError,
    WebhookPayloadError,
    WebhookReplayError,
    WebhookVerificationError,
)
from gcbridge.webhooks.events import (
    Author,
    Comment,
    EventData,
    EventType,
    Thread,
    WebhookEvent,
    parse_event,
)
from gcbridge.webhooks.signature import (
    DEFAULT_TOLERANCE,
    DELIVERY_ID_HEADER,
    FIRST_SENT_AT_HEADER,
    RETRY_COUNT_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    USER_AGENT,
    sign,
    signed_headers,
    verify_signature,
)

__all__ = [
    "construct_event",
    "construct_delivery",
    "Delivery",
    "DeliveryLog",
    "EmulatorClock",
    "EmulatorClockError",
    "parse_event",
    "WebhookEvent",
    "EventData",
    "Comment",
    "Author",
    "Thread",
    "EventType",
    "sign",
    "signed_headers",
    "verify_signature",
    "WebhookError",
    "WebhookVerificationError",
    "WebhookReplayError",
    "WebhookPayloadError",
    "WebhookDeliveryIdError",
    "SIGNATURE_HEADER",
    "TIMESTAMP_HEADER",
    "DELIVERY_ID_HEADER",
    "RETRY_COUNT_HEADER",
    "FIRST_SENT_AT_HEADER",
    "USER_AGENT",
    "EVENT_TYPES",
    "DEFAULT_TOLERANCE",
]
