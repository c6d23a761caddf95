"""Delivery signatures (spec 2.6 and 5.3): sign on the sender, verify on the receiver.

``X-Webhook-Signature`` is the hex HMAC-SHA256, keyed with the webhook secret, of
``b"<X-Webhook-Timestamp>." + raw body``; the timestamp is epoch milliseconds.

Threat model: the receiver URL is public, so anyone can POST to it, and anyone on
the path may capture a genuine delivery. Hence:

- the body must be the raw bytes as received: a re-serialized JSON body would
  not verify, and accepting ``str`` would hide an encoding round-trip, so
  non-bytes bodies are refused (``body_not_bytes``) rather than encoded;
- header values are bounded in size and shape before any work is done;
- the timestamp is signed and must be within ``tolerance`` seconds of now *in
  both directions*, which bounds how long a captured request can be replayed
  (:class:`~gcbridge.webhooks.delivery_log.DeliveryLog` closes the rest of the window);
- the MAC (one-shot :func:`hmac.digest`, the C path of what itsdangerous's
  ``HMACAlgorithm`` computes) is compared in constant time
  (:func:`hmac.compare_digest`) against *every* accepted secret, so secret
  rotation does not reveal which key matched through timing.

``now`` is always float Unix **seconds** (like :meth:`gcbridge.clock.Clock.now`);
pass ``now=clock.now()`` to use an injected clock.
"""

from __future__ import annotations

import functools
import hmac
import time
from collections.abc import Mapping, Sequence
from typing import Any

from itsdangerous.encoding import want_bytes

from gcbridge.webhooks.errors import WebhookVerificationError

__all__ = [
    "SIGNATURE_HEADER",
    "TIMESTAMP_HEADER",
    "DELIVERY_ID_HEADER",
    "RETRY_COUNT_HEADER",
    "FIRST_SENT_AT_HEADER",
    "USER_AGENT",
    "DEFAULT_TOLERANCE",
    "MAX_TIMESTAMP_LENGTH",
    "sign",
    "signed_headers",
    "verify_signature",
    "header_value",
    "parse_timestamp",
    "normalize_secrets",
]

SIGNATURE_HEADER = "X-Webhook-Signature"
"""Hex HMAC-SHA256 of ``"<timestamp>." + body`` (spec 2.6)."""
TIMESTAMP_HEADER = "X-Webhook-Timestamp"
"""Epoch milliseconds the signature was computed with."""
DELIVERY_ID_HEADER = "X-Webhook-Delivery-Id"
"""Unique delivery id, the idempotency key (not signed)."""
RETRY_COUNT_HEADER = "X-Webhook-Retry-Count"
"""Attempts already made (0 = first attempt)."""
FIRST_SENT_AT_HEADER = "X-Webhook-First-Sent-At"
"""ISO 8601 date of the first attempt."""
USER_AGENT = "Service-Webhook/1.0"
"""The User-Agent of every delivery (spec 9)."""

DEFAULT_TOLERANCE = 300
"""Allowed distance between the signed timestamp and now, seconds, either way (spec 8)."""
MAX_TIMESTAMP_LENGTH = 20
"""Longest timestamp header accepted (epoch ms has 13 digits until the year 2286)."""

_DIGEST = "sha256"
_TIMESTAMP_KEY = TIMESTAMP_HEADER.lower()
_SIGNATURE_KEY = SIGNATURE_HEADER.lower()
_compare_digest = hmac.compare_digest
_NAME_LENGTH = len(TIMESTAMP_HEADER)
assert len(SIGNATURE_HEADER) == _NAME_LENGTH

try:
    from _hashlib import hmac_new as _hmac_new
except ImportError:  # pragma: no cover - a Python built without OpenSSL
    _hmac_new = hmac.new  # type: ignore[assignment]


# An HMAC keyed once per secret, copied for every request: the key schedule
# (ipad/opad) is not recomputed each time, which is a third of the cost of a
# 1 KiB verification. Holds the last few secrets (their state, like the
# secrets themselves, is in the caller's memory anyway); never updated, only
# copied, so it is safe to share between threads.
_KEYED_MEMO = 64


@functools.lru_cache(maxsize=_KEYED_MEMO)
def _keyed(keys: tuple[bytes, ...]) -> tuple[Any, ...]:
    return tuple(_hmac_new(key, b"", _DIGEST) for key in keys)


_KEYED_TEXT: dict[str, tuple[Any, ...]] = {}


def _keyed_text(secret: str) -> tuple[Any, ...]:
    # The common call, verify_signature("whsec_...", ...): one dict lookup.
    found = _KEYED_TEXT.get(secret)
    if found is None:
        if len(_KEYED_TEXT) >= _KEYED_MEMO:
            _KEYED_TEXT.clear()  # a process rotating through many secrets: start over
        found = _KEYED_TEXT[secret] = _keyed((secret.encode("utf-8"),))
    return found


def normalize_secrets(secrets: str | bytes | Sequence[str | bytes]) -> tuple[bytes, ...]:
    """One secret or several (rotation) as a tuple of non-empty byte strings."""
    # Fast paths for the common shapes (one str, one bytes, an already
    # normalised tuple), so per-request callers do not pay for the general case.
    if type(secrets) is str and secrets:
        return (secrets.encode("utf-8"),)  # what want_bytes does
    if type(secrets) is bytes and secrets:
        return (secrets,)
    if type(secrets) is tuple and secrets and all(type(k) is bytes and k for k in secrets):
        return secrets
    items = [secrets] if isinstance(secrets, str | bytes) else list(secrets)
    keys = tuple(want_bytes(s) for s in items if isinstance(s, str | bytes))
    if not keys or len(keys) != len(items) or not all(keys):
        raise ValueError("webhook secrets must be one or more non-empty str or bytes")
    return keys


def _signing_input(timestamp_ms: int, body: bytes) -> bytes:
    return str(timestamp_ms).encode("ascii") + b"." + body


def sign(secret: str | bytes, timestamp_ms: int, body: bytes) -> str:
    """The ``X-Webhook-Signature`` value: 64 lowercase hex characters."""
    if not isinstance(body, bytes | bytearray | memoryview):
        raise TypeError("sign() needs the raw body as bytes")
    if isinstance(timestamp_ms, bool) or not isinstance(timestamp_ms, int) or timestamp_ms < 0:
        raise TypeError("timestamp_ms must be a non-negative int (epoch milliseconds)")
    (key,) = normalize_secrets(secret)
    return hmac.digest(key, _signing_input(timestamp_ms, bytes(body)), _DIGEST).hex()


def signed_headers(secret: str | bytes, timestamp_ms: int, body: bytes) -> dict[str, str]:
    """The two headers a receiver checks, for tests and ``gcbridge webhooks sign``."""
    return {
        TIMESTAMP_HEADER: str(timestamp_ms),
        SIGNATURE_HEADER: sign(secret, timestamp_ms, body),
    }


def header_value(headers: Mapping[Any, Any], name: str) -> str | None:
    """Case-insensitive lookup in any mapping (dict, starlette/httpx Headers, bytes keys).

    A header sent twice with different values is ambiguous and returned as ``""``
    (treated as malformed by the caller) rather than picking one.
    """
    wanted = name.lower()
    found: str | None = None
    for key, value in _header_items(headers):
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


def _header_items(headers: Mapping[Any, Any]) -> Any:
    # Every (name, value) pair, repeated headers included where the mapping keeps them.
    if type(headers) is dict:  # the common case, without the attribute probe
        return headers.items()
    return headers.multi_items() if hasattr(headers, "multi_items") else headers.items()


def _header_text(value: Any) -> str:
    # A header value as header_value sees it; "" for anything that is not text.
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    return value.strip() if isinstance(value, str) else ""


def _delivery_headers(headers: Mapping[Any, Any]) -> tuple[str | None, str | None]:
    """``(header_value(h, TIMESTAMP_HEADER), header_value(h, SIGNATURE_HEADER))`` in one scan."""
    # Same rules as header_value: absent -> None; a non-text value, or the same
    # header twice with different values, -> "" (and "" then stays "").
    timestamp: str | None = None
    signature: str | None = None
    for key, value in _header_items(headers):
        if type(key) is not str:
            if isinstance(key, bytes):
                key = key.decode("latin-1")
            elif not isinstance(key, str):
                continue
        if len(key) != _NAME_LENGTH:  # both names have 19 characters: skip the rest cheaply
            continue
        lowered = key.lower()
        if lowered == _TIMESTAMP_KEY:
            text = value.strip() if type(value) is str else _header_text(value)
            timestamp = text if timestamp is None or timestamp == text else ""
        elif lowered == _SIGNATURE_KEY:
            text = value.strip() if type(value) is str else _header_text(value)
            signature = text if signature is None or signature == text else ""
    return timestamp, signature


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
    # Same as a full match of [0-9]{1,20}, without a regex (isdigit alone takes "²").
    if not (len(value) <= MAX_TIMESTAMP_LENGTH and value.isdigit() and value.isascii()):
        raise _malformed_timestamp()
    return int(value)


def _malformed_timestamp() -> WebhookVerificationError:
    return WebhookVerificationError(
        f"{TIMESTAMP_HEADER} must be epoch milliseconds in decimal digits "
        f"(at most {MAX_TIMESTAMP_LENGTH})",
        reason="malformed_timestamp",
    )


def verify_signature(
    secrets: str | bytes | Sequence[str | bytes],
    body: bytes,
    headers: Mapping[Any, Any],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    now: float | None = None,
) -> None:
    """Check a delivery as spec 5.3 says; raises ``WebhookVerificationError`` with a reason.

    ``now`` is Unix seconds (default: the system clock); ``tolerance`` is seconds,
    applied both ways, bounds inclusive.
    """
    # The checks of normalize_secrets, parse_timestamp and header_value are
    # inlined or merged below: this runs once per request (issue #6, row 2).
    if type(secrets) is str and secrets:
        keyed = _KEYED_TEXT.get(secrets) or _keyed_text(secrets)
    else:
        keyed = _keyed(normalize_secrets(secrets))
    if type(body) is not bytes and not isinstance(body, bytes | bytearray | memoryview):
        hint = (
            "it is a str: pass the raw request bytes, not decoded text"
            if isinstance(body, str)
            else "pass the raw request bytes (e.g. `await request.body()`), before any JSON parsing"
        )
        raise WebhookVerificationError(
            f"the body must be the raw bytes as received, not {type(body).__name__}; {hint}",
            reason="body_not_bytes",
        )
    if type(headers) is dict and len(headers) == 2:
        # Exactly the two signed headers, spelled canonically (tests, scripts,
        # gcbridge's own callers): the general scan finds the same values.
        raw_timestamp = headers.get(TIMESTAMP_HEADER)
        raw_signature = headers.get(SIGNATURE_HEADER)
        if type(raw_timestamp) is str and type(raw_signature) is str:
            raw_timestamp = raw_timestamp.strip()
            raw_signature = raw_signature.strip()
        else:
            raw_timestamp, raw_signature = _delivery_headers(headers)
    else:
        raw_timestamp, raw_signature = _delivery_headers(headers)
    if raw_timestamp is None or raw_signature is None:
        missing = [
            n
            for n, v in ((TIMESTAMP_HEADER, raw_timestamp), (SIGNATURE_HEADER, raw_signature))
            if v is None
        ]
        raise WebhookVerificationError(
            f"missing header {' and '.join(missing)}", reason="missing_header"
        )
    if not (
        len(raw_timestamp) <= MAX_TIMESTAMP_LENGTH
        and raw_timestamp.isdigit()
        and raw_timestamp.isascii()
    ):
        raise _malformed_timestamp()
    timestamp_ms = int(raw_timestamp)
    # _signature_bytes, inlined.
    try:
        expected: bytes | None = bytes.fromhex(raw_signature) if len(raw_signature) == 64 else None
    except ValueError:
        expected = None
    if expected is None or len(expected) != 32:
        raise WebhookVerificationError(
            f"{SIGNATURE_HEADER} must be exactly 64 hex characters", reason="malformed_signature"
        )

    current_ms = (time.time() if now is None else float(now)) * 1000.0
    tolerance_ms = float(tolerance) * 1000.0
    if timestamp_ms < current_ms - tolerance_ms:
        raise WebhookVerificationError(
            f"{TIMESTAMP_HEADER} is more than {tolerance:g}s in the past",
            reason="timestamp_too_old",
        )
    if timestamp_ms > current_ms + tolerance_ms:
        raise WebhookVerificationError(
            f"{TIMESTAMP_HEADER} is more than {tolerance:g}s in the future",
            reason="timestamp_too_new",
        )

    # _signing_input, fed in two parts: the body is not copied.
    prefix = b"%d." % timestamp_ms
    matched = False
    for base in keyed:  # no early exit: timing does not tell which secret matched
        mac = base.copy()
        mac.update(prefix)
        mac.update(body)
        matched |= _compare_digest(mac.digest(), expected)
    if not matched:
        raise WebhookVerificationError(
            "the signature does not match any accepted secret "
            "(it covers '<timestamp>.' + the raw body, not a re-serialized body)",
            reason="signature_mismatch",
        )
