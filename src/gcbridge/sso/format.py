"""The ssoData wire format "gc" (docs/reference/wire-formats.md#ssodata), as pure functions.

``<message> <signature> <timestamp>``, single spaces, where ``message`` is the
standard base64 of the UTF-8 JSON user, ``timestamp`` Unix seconds in decimal and
``signature`` the lowercase hex HMAC-SHA1, keyed with the site's SSO secret, of
``"<message> <timestamp>"``.

Threat model: anyone may send the verifier arbitrary text. Only the HMAC makes
a token trustworthy, so the structure is checked with bounded regular
expressions, the MAC is compared in constant time (:func:`hmac.compare_digest`)
*before* the message is decoded, and every decoding failure is translated into
:class:`~gcbridge.sso.errors.SsoInvalid` with a reason code.
"""

from __future__ import annotations

import binascii
import hmac
import json
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from itsdangerous.encoding import want_bytes

from gcbridge.sso.errors import SsoInvalid

__all__ = [
    "MAX_TOKEN_LENGTH",
    "SsoParts",
    "split_token",
    "signing_input",
    "compute_signature",
    "signature_matches",
    "encode_message",
    "decode_message",
    "assemble",
]

MAX_TOKEN_LENGTH = 16 * 1024
"""Longest ssoData accepted; a user with a long bio stays far below it."""

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))  # built once
_MESSAGE = re.compile(r"[A-Za-z0-9+/=]+")
_SIGNATURE = re.compile(r"[0-9a-f]{40}")
_TIMESTAMP = re.compile(r"[0-9]{1,12}")


class SsoParts(NamedTuple):
    """The three fields of a token, checked for shape but not yet authenticated."""

    message: str
    signature: str
    timestamp: int


def split_token(sso_data: object) -> SsoParts:
    """Split ssoData into its three checked fields; raises ``SsoInvalid`` on any bad shape."""
    if not isinstance(sso_data, str):
        raise SsoInvalid(
            f"ssoData must be a str, not {type(sso_data).__name__}", reason="malformed"
        )
    if len(sso_data) > MAX_TOKEN_LENGTH:
        raise SsoInvalid(
            f"ssoData is longer than {MAX_TOKEN_LENGTH} characters", reason="malformed"
        )
    fields = sso_data.split(" ")
    if len(fields) != 3 or not all(fields):
        raise SsoInvalid(
            "ssoData must be '<message> <signature> <timestamp>' with single spaces",
            reason="malformed",
        )
    message, signature, timestamp = fields
    if not _MESSAGE.fullmatch(message):
        raise SsoInvalid("the message is not base64 text", reason="bad_base64")
    if not _TIMESTAMP.fullmatch(timestamp):
        raise SsoInvalid("the timestamp is not decimal Unix seconds", reason="bad_timestamp")
    if not _SIGNATURE.fullmatch(signature):
        raise SsoInvalid("the signature is not 40 lowercase hex digits", reason="bad_signature")
    return SsoParts(message, signature, int(timestamp))


def signing_input(message: str, timestamp: int) -> bytes:
    """The bytes the HMAC covers: ``"<message> <timestamp>"``."""
    return f"{message} {timestamp}".encode("ascii")


def compute_signature(secret: str | bytes, message: str, timestamp: int) -> str:
    """Lowercase hex HMAC-SHA1 of the signing input."""
    return hmac.digest(want_bytes(secret), signing_input(message, timestamp), "sha1").hex()


def signature_matches(secret: str | bytes, message: str, timestamp: int, signature: str) -> bool:
    """Constant-time check of a hex signature (shape already checked by :func:`split_token`)."""
    try:
        mac = bytes.fromhex(signature)
    except ValueError:
        return False
    expected = hmac.digest(want_bytes(secret), signing_input(message, timestamp), "sha1")
    return hmac.compare_digest(expected, mac)


def encode_message(claims: Mapping[str, Any]) -> str:
    """Standard base64 of the compact UTF-8 JSON of ``claims``."""
    text = _ENCODER.encode(claims if type(claims) is dict else dict(claims))
    return binascii.b2a_base64(text.encode("utf-8"), newline=False).decode("ascii")


def decode_message(message: str) -> dict[str, Any]:
    """The JSON object inside an authenticated message; raises ``SsoInvalid`` otherwise."""
    try:
        raw = binascii.a2b_base64(message, strict_mode=True)  # b64decode(validate=True)
    except (binascii.Error, ValueError):
        raise SsoInvalid("the message is not valid base64", reason="bad_base64") from None
    try:
        value = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        # ValueError: UnicodeDecodeError, JSONDecodeError, and also Python's int digit limit
        # (a 5,000-digit number raises a bare ValueError from inside the parser).
        raise SsoInvalid("the message is not UTF-8 JSON", reason="bad_json") from None
    if not isinstance(value, dict):
        raise SsoInvalid("the message is JSON but not an object", reason="bad_json")
    return value


def assemble(secret: str | bytes, message: str, timestamp: int) -> str:
    """Sign ``message`` at ``timestamp`` and join the three fields."""
    return f"{message} {compute_signature(secret, message, timestamp)} {timestamp}"
