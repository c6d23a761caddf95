"""Errors of :mod:`gcbridge.webhooks`, one tree with reason codes (the reason codes page lists
each class with its reasons). Messages never contain secrets or signatures.
"""

from __future__ import annotations

from gcbridge.errors import GcBridgeError

__all__ = [
    "WebhookError",
    "WebhookVerificationError",
    "WebhookReplayError",
    "WebhookPayloadError",
    "WebhookDeliveryIdError",
    "VERIFICATION_REASONS",
    "DeliveryLogUnavailable",
    "DeliveryLogConfigError",
    "EmulatorClockError",
    "RespondStepsError",
]

VERIFICATION_REASONS = frozenset(
    {
        "missing_header",
        "malformed_timestamp",
        "timestamp_too_old",
        "timestamp_too_new",
        "malformed_signature",
        "signature_mismatch",
        "body_not_bytes",
    }
)
"""Every ``reason`` a :class:`WebhookVerificationError` can carry."""


class WebhookError(GcBridgeError):
    """A webhook delivery was refused; ``reason`` says why."""

    reason = "webhook_error"


class WebhookVerificationError(WebhookError):
    """The delivery is not signed by an accepted secret, or not within the time window."""

    reason = "signature_mismatch"


class WebhookReplayError(WebhookError):
    """A signature already accepted came back with another delivery id: a captured replay."""

    reason = "replayed_signature"


class WebhookPayloadError(WebhookError):
    """The body is authentic but not a valid webhook event (its fields are wrong or missing)."""

    reason = "malformed_payload"


class WebhookDeliveryIdError(WebhookPayloadError):
    """The delivery id header is too long to be the service's (it is refused, not truncated)."""

    reason = "delivery_id_too_long"


class DeliveryLogUnavailable(WebhookError):
    """The delivery log's backend failed (down, unreachable, locked): retry the delivery later."""

    reason = "delivery_log_unavailable"


class DeliveryLogConfigError(GcBridgeError):
    """A delivery log cannot be used as configured: URL, extra, schema or privileges."""

    reason = "unsupported_url"


class EmulatorClockError(GcBridgeError):
    """A running emulator's clock cannot be read (:class:`~gcbridge.webhooks.EmulatorClock`)."""

    reason = "emulator_clock_unavailable"


class RespondStepsError(GcBridgeError):
    """The steps of ``gcbridge webhooks listen --respond`` cannot be read."""

    reason = "bad_respond_steps"
