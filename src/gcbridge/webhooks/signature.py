"""Delivery signatures: sign on the sender, verify on the receiver.

``X-Webhook-Signature`` is the hex HMAC-SHA256, keyed with the webhook secret, of
``b"<X-Webhook-Timestamp>." + raw body``; the timestamp is epoch milliseconds
(docs/reference/wire-formats.md, "Webhook deliveries").

Threat model: the receiver URL is public, so anyone can POST to it, and anyone on
the path may capture a genuine delivery. Hence:

- the body must be the raw bytes as received: a re-serialized JSON body would
  not verify, and accepting ``str`` would hide an encoding round-trip, so
  non-bytes bodies are refused (``body_not_bytes``) rather than encoded;
- header values are bounded in size and shape before any work is done;
- the timestamp is signed and must be within ``tolerance`` seconds of now *in
  both directions*, which bounds how long a captured request can be replayed
  (:class:`~gcbridge.webhooks.delivery_log.DeliveryLog` closes the rest of the window);
- the MAC is compared in constant time (:func:`hmac.compare_digest`) against
  *every* accepted secret, so secret rotation does not reveal which key matched
  through timing.

``now`` is always float Unix **seconds** (like :meth:`gcbridge.clock.Clock.now`);
pass ``now=clock.now()`` to use an injected clock.
"""

from __future__ import annotations

import functools
import hmac
import time
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from gcbridge.webhooks.errors import WebhookVerificationError

__all__ = [
    "SIGNATURE_HEADER",
    "TIMESTAMP_HEADER",
    "DELIVERY_ID_HEADER",
    "RETRY_COUNT_HEADER",
    "FIRST_SENT_AT_HEADER",
    "USER_AGENT",
    "DEFAULT_TOLERANCE",
    "DEFAULT_MAX_BODY",
    "MAX_TIMESTAMP_LENGTH",
    "Secrets",
    "Window",
    "sign",
    "delivery_headers",
    "verify_signature",
    "header_value",
    "parse_timestamp",
    "normalize_secrets",
]

SIGNATURE_HEADER = "X-Webhook-Signature"
"""Hex HMAC-SHA256 of ``"<timestamp>." + body``."""
TIMESTAMP_HEADER = "X-Webhook-Timestamp"
"""Epoch milliseconds the signature was computed with."""
DELIVERY_ID_HEADER = "X-Webhook-Delivery-Id"
"""Unique delivery id, the idempotency key (not signed)."""
RETRY_COUNT_HEADER = "X-Webhook-Retry-Count"
"""Attempts already made (0 = first attempt)."""
FIRST_SENT_AT_HEADER = "X-Webhook-First-Sent-At"
"""ISO 8601 date of the first attempt."""
USER_AGENT = "Service-Webhook/1.0"
"""The User-Agent of every delivery."""

DEFAULT_TOLERANCE = 300
"""Allowed distance between the signed timestamp and now, seconds, either way."""
DEFAULT_MAX_BODY = 1024 * 1024
"""Largest body a receiver reads before verifying (a comment event is a few KiB); a larger one
is answered 413 unread (``WebhookReceiver``, ``gcbridge webhooks listen``)."""
MAX_TIMESTAMP_LENGTH = 20
"""Longest timestamp header accepted (epoch ms has 13 digits until the year 2286)."""

Secrets = str | bytes | Sequence[str | bytes]
"""One webhook secret, or several during a rotation (any may match)."""


class Window(TypedDict, total=False):
    """The time window's keywords of :func:`verify_signature` and the ``construct_*`` calls."""

    tolerance: float
    now: float | None


_DIGEST = "sha256"
_RAW = (bytes, bytearray, memoryview)  # the raw body's types


def normalize_secrets(secrets: str | bytes | Sequence[str | bytes]) -> tuple[bytes, ...]:
    """One secret or several (rotation) as a tuple of non-empty byte strings."""
    items = (secrets,) if isinstance(secrets, (str, bytes)) else tuple(secrets)
    keys = tuple([s.encode("utf-8") if isinstance(s, str) else s for s in items])
    if not keys or not all([isinstance(key, bytes) and key for key in keys]):
        raise ValueError("webhook secrets must be one or more non-empty str or bytes")
    return keys


@functools.lru_cache(maxsize=64)
def _keyed(keys: tuple[bytes, ...]) -> tuple[hmac.HMAC, ...]:
    # Each secret's HMAC keyed once and copied per request: the key schedule is a
    # fifth of a 1 KiB verification. Never updated itself, so threads may share it.
    return tuple(hmac.new(key, digestmod=_DIGEST) for key in keys)


def _signing_input(timestamp_ms: int, body: bytes) -> bytes:
    return b"%d." % timestamp_ms + body


def sign(secret: str | bytes, timestamp_ms: int, body: bytes) -> str:
    """The ``X-Webhook-Signature`` value: 64 lowercase hex characters."""
    if not isinstance(body, _RAW):
        raise TypeError("sign() needs the raw body as bytes")
    if isinstance(timestamp_ms, bool) or not isinstance(timestamp_ms, int) or timestamp_ms < 0:
        raise TypeError("timestamp_ms must be a non-negative int (epoch milliseconds)")
    (key,) = normalize_secrets(secret)
    return hmac.digest(key, _signing_input(timestamp_ms, bytes(body)), _DIGEST).hex()


def delivery_headers(
    secret: str | bytes,
    body: bytes,
    *,
    timestamp_ms: int,
    delivery_id: str,
    retry_count: int,
    first_sent_at: str,
) -> dict[str, str]:
    """Every header of one delivery attempt as the service sends it, signed at ``timestamp_ms``."""
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        SIGNATURE_HEADER: sign(secret, timestamp_ms, body),
        TIMESTAMP_HEADER: str(timestamp_ms),
        DELIVERY_ID_HEADER: delivery_id,
        RETRY_COUNT_HEADER: str(retry_count),
        FIRST_SENT_AT_HEADER: first_sent_at,
    }


def header_value(headers: Mapping[Any, Any], name: str) -> str | None:
    """Case-insensitive lookup in any mapping (dict, starlette/httpx Headers, bytes keys).

    A header sent twice with different values is ambiguous and returned as ``""``
    (treated as malformed by the caller) rather than picking one.
    """
    wanted = name.lower()
    found: str | None = None
    items = headers.multi_items() if hasattr(headers, "multi_items") else headers.items()
    for key, value in items:
        if isinstance(key, bytes):
            key = key.decode("latin-1")
        if not isinstance(key, str) or key.lower() != wanted:
            continue
        if isinstance(value, bytes):
            value = value.decode("latin-1")
        if not isinstance(value, str):
            return ""
        value = value.strip()
        if found is not None and found != value:
            return ""
        found = value
    return found


def _signature_bytes(value: str) -> bytes | None:
    """The 32 bytes of a signature header of exactly 64 hex digits, else ``None``."""
    if len(value) != 64:
        return None
    try:
        # fromhex also skips ASCII whitespace, but then 64 characters cannot
        # make 32 bytes: the length check below rejects it.
        raw = bytes.fromhex(value)
    except ValueError:
        return None
    return raw if len(raw) == 32 else None


def parse_timestamp(value: str) -> int:
    """The epoch-ms timestamp header as an int; raises ``malformed_timestamp``."""
    # A full match of [0-9]{1,20}, without a regex (isdigit alone takes "²").
    if not (len(value) <= MAX_TIMESTAMP_LENGTH and value.isdigit() and value.isascii()):
        raise WebhookVerificationError(
            f"{TIMESTAMP_HEADER} must be epoch milliseconds in decimal digits "
            f"(at most {MAX_TIMESTAMP_LENGTH})",
            reason="malformed_timestamp",
        )
    return int(value)


def _body_not_bytes(body: object) -> WebhookVerificationError:
    hint = (
        "it is a str: pass the raw request bytes, not decoded text"
        if isinstance(body, str)
        else "pass the raw request bytes (e.g. `await request.body()`), before any JSON parsing"
    )
    return WebhookVerificationError(
        f"the body must be the raw bytes as received, not {type(body).__name__}; {hint}",
        reason="body_not_bytes",
    )


def verify_signature(
    secrets: Secrets,
    body: bytes,
    headers: Mapping[Any, Any],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    now: float | None = None,
) -> None:
    """Check a delivery's signature and age; raises ``WebhookVerificationError`` with a reason.

    ``now`` is Unix seconds (default: the system clock); ``tolerance`` is seconds,
    applied both ways, bounds inclusive.
    """
    keys = normalize_secrets(secrets)
    if not isinstance(body, _RAW):
        raise _body_not_bytes(body)
    timestamp = header_value(headers, TIMESTAMP_HEADER)
    signature = header_value(headers, SIGNATURE_HEADER)
    if timestamp is None or signature is None:
        missing = [TIMESTAMP_HEADER] if timestamp is None else []
        missing += [SIGNATURE_HEADER] if signature is None else []
        raise WebhookVerificationError(
            f"missing header {' and '.join(missing)}", reason="missing_header"
        )
    timestamp_ms = parse_timestamp(timestamp)
    expected = _signature_bytes(signature)
    if expected is None:
        raise WebhookVerificationError(
            f"{SIGNATURE_HEADER} must be exactly 64 hex characters", reason="malformed_signature"
        )
    current_ms = (time.time() if now is None else float(now)) * 1000.0
    tolerance_ms = float(tolerance) * 1000.0
    too_old = timestamp_ms < current_ms - tolerance_ms
    if too_old or timestamp_ms > current_ms + tolerance_ms:
        when = "past" if too_old else "future"
        raise WebhookVerificationError(
            f"{TIMESTAMP_HEADER} is more than {tolerance:g}s in the {when}",
            reason="timestamp_too_old" if too_old else "timestamp_too_new",
        )
    signed = _signing_input(timestamp_ms, body)  # any of the raw types: no copy first
    matched = False
    for keyed in _keyed(keys):  # no early exit: timing does not tell which secret matched
        mac = keyed.copy()
        mac.update(signed)
        matched |= hmac.compare_digest(mac.digest(), expected)
    if not matched:
        raise WebhookVerificationError(
            "the signature does not match any accepted secret "
            "(it covers '<timestamp>.' + the raw body, not a re-serialized body)",
            reason="signature_mismatch",
        )
