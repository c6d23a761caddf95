"""The ssoData wire format "gc" (contract.md), as pure functions.

``<message> <signature> <timestamp>``, single spaces, where ``message`` is the
standard base64 of the UTF-8 JSON user, ``timestamp`` Unix seconds in decimal and
``signature`` the lowercase hex HMAC-SHA1, keyed with the site's SSO secret, of
``"<message> <timestamp>"``.

Threat model: anyone may send the verifier arbitrary text. Only the HMAC makes
a token trustworthy, so the structure is checked with bounded regular
expressions, the MAC is compared in constant time (itsdangerous's
``HMACAlgorithm.verify_signature``, i.e. :func:`hmac.compare_digest`) *before*
the message is decoded, and every decoding failure is translated into
:class:`~gcbridge.sso.errors.SsoInvalid` with a reason code.
"""

from __future__ import annotations

import binascii
import hashlib
import hmac
import json
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from itsdangerous.encoding import want_bytes
from itsdangerous.signer import HMACAlgorithm

from gcbridge.sso.errors import SsoInvalid

__all__ = [
    "MAX_TOKEN_LENGTH",
    "SsoParts",
    "split_token",
    "signing_input",
    "compute_signature",
    "signature_matches",
    "encode_message",
    "encode_checked_message",
    "decode_message",
    "TOKEN_SHAPE",
    "hmac_digest",
    "keyed_sha1",
    "assemble",
]

MAX_TOKEN_LENGTH = 16 * 1024
"""Longest ssoData accepted; a user with a long bio stays far below it."""

_ALGORITHM = HMACAlgorithm(hashlib.sha1)
# What json.dumps(..., ensure_ascii=False, separators=(",", ":")) builds on every
# call, built once.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_MESSAGE = re.compile(r"[A-Za-z0-9+/=]+")
_SIGNATURE = re.compile(r"[0-9a-f]{40}")
_TIMESTAMP = re.compile(r"[0-9]{1,12}")
TOKEN_SHAPE = re.compile(r"([A-Za-z0-9+/=]+) ([0-9a-f]{40}) ([0-9]{1,12})")
"""The three fields at once: a full match is exactly what :func:`split_token` accepts."""
# The C string encoder json uses with ensure_ascii=False, and the C scanner of
# json.loads: the verifier's and issuer's hot paths call them without the
# Python-level wrappers (same output; anything unusual takes the full path).
_JSON_STR = json.encoder.encode_basestring
try:  # hmac.digest and hmac.new minus their Python wrappers (the same OpenSSL HMAC)
    from _hashlib import hmac_digest as _hmac_digest
    from _hashlib import hmac_new as _hmac_new
except ImportError:  # pragma: no cover - a Python built without OpenSSL
    _hmac_digest = hmac.digest  # type: ignore[assignment]
    _hmac_new = hmac.new  # type: ignore[assignment]
hmac_digest = _hmac_digest
"""``hmac.digest(key, msg, name)``: one-shot HMAC, in C."""


def keyed_sha1(secret: bytes) -> Any:
    """An HMAC-SHA1 keyed with ``secret`` to ``copy()`` per token (the key schedule done once).

    Never updated itself, only copied, so one instance serves every thread.
    """
    return _hmac_new(secret, b"", "sha1")


_SCAN_ONCE = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


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
    # hmac.digest: the one-shot C path of what itsdangerous's HMACAlgorithm computes.
    return hmac_digest(want_bytes(secret), signing_input(message, timestamp), "sha1").hex()


def signature_matches(secret: str | bytes, message: str, timestamp: int, signature: str) -> bool:
    """Constant-time check of a hex signature (shape already checked by :func:`split_token`)."""
    try:
        mac = bytes.fromhex(signature)
    except ValueError:
        return False
    return _ALGORITHM.verify_signature(want_bytes(secret), signing_input(message, timestamp), mac)


def encode_message(claims: Mapping[str, Any]) -> str:
    """Standard base64 of the compact UTF-8 JSON of ``claims``."""
    text = _ENCODER.encode(claims if type(claims) is dict else dict(claims))
    return binascii.b2a_base64(text.encode("utf-8"), newline=False).decode("ascii")


def encode_checked_message(claims: dict[str, str]) -> str:
    """:func:`encode_message` for claims whose values are all ``str`` (checked claims)."""
    text = "{" + ",".join([f'"{k}":{_JSON_STR(v)}' for k, v in claims.items()]) + "}"
    return binascii.b2a_base64(text.encode("utf-8"), newline=False).decode("ascii")


def _loads(text: str) -> Any:
    # json.loads(text) for the common shape "{...}" with nothing around it.
    if text[:1] == "{":
        try:
            value, end = _SCAN_ONCE(text, 0)
        except (StopIteration, ValueError, RecursionError):
            end = -1
        if end == len(text):
            return value
    return json.loads(text)  # the full path, and its errors


def decode_message(message: str) -> dict[str, Any]:
    """The JSON object inside an authenticated message; raises ``SsoInvalid`` otherwise."""
    try:
        # base64.b64decode(message, validate=True) minus its wrapper.
        raw = binascii.a2b_base64(message, strict_mode=True)
    except (binascii.Error, ValueError):
        raise SsoInvalid("the message is not valid base64", reason="bad_base64") from None
    try:
        value = _loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, RecursionError):
        raise SsoInvalid("the message is not UTF-8 JSON", reason="bad_json") from None
    except ValueError:
        # JSONDecodeError, and also Python's int digit limit (a 5,000-digit number
        # raises a bare ValueError from inside the parser).
        raise SsoInvalid("the message is not UTF-8 JSON", reason="bad_json") from None
    if not isinstance(value, dict):
        raise SsoInvalid("the message is JSON but not an object", reason="bad_json")
    return value


def assemble(secret: str | bytes, message: str, timestamp: int) -> str:
    """Sign ``message`` at ``timestamp`` and join the three fields."""
    return f"{message} {compute_signature(secret, message, timestamp)} {timestamp}"
