"""Authentication of the webhook configuration routes: the account token, or a site-key
signature (docs/reference/wire-formats.md#site-key-signature) over the request target as
sent (percent-encoding kept).

Threat model: tokens and signatures are compared in constant time, and a token
is compared with every site's so the time taken does not tell which site
matched. A signature binds method, path, query and body, so a captured request
cannot be re-aimed at another route or site, and it expires.
Every failure, including a valid credential of another site or an unknown or
shortname ``website_id``, is the same answer: HTTP 200 with ``gcCode`` 410, as
the service does (clients must check every body for ``gcCode``).
"""

from __future__ import annotations

import hashlib
import hmac

from fastapi import Request

from gcbridge.emulator.errors import ApiError
from gcbridge.emulator.sites import Site
from gcbridge.emulator.state import state_of

__all__ = [
    "SITE_KEY_ID_HEADER",
    "SITE_TIMESTAMP_HEADER",
    "SITE_SIGNATURE_HEADER",
    "SITE_SIGNATURE_TOLERANCE",
    "site_signature",
    "authenticated_site",
    "require_site",
]

SITE_KEY_ID_HEADER = "X-Site-Key-Id"
SITE_TIMESTAMP_HEADER = "X-Site-Timestamp"
SITE_SIGNATURE_HEADER = "X-Site-Signature"
SITE_SIGNATURE_TOLERANCE = 300.0
"""Seconds a site-key signature stays valid, either side of now."""

_MAX_HEADER = 256


def site_signature(
    secret: str, timestamp_ms: int | str, method: str, target: str, body: bytes
) -> str:
    """Hex HMAC-SHA256 of ``"<timestamp>.<METHOD>.<target>.<body>"`` keyed with ``secret``."""
    message = f"{timestamp_ms}.{method.upper()}.{target}.".encode() + body
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def _refused(reason: str, message: str) -> ApiError:
    return ApiError(200, reason, message, gc_code=410)


def _request_target(request: Request) -> str:
    raw = request.scope.get("raw_path")
    path = raw.decode("latin-1") if isinstance(raw, bytes | bytearray) else request.url.path
    query = request.scope.get("query_string", b"")
    return f"{path}?{query.decode('latin-1')}" if query else path


async def _by_site_key(request: Request, key_id: str) -> Site:
    state = state_of(request)
    timestamp = request.headers.get(SITE_TIMESTAMP_HEADER, "")
    signature = request.headers.get(SITE_SIGNATURE_HEADER, "")
    if not timestamp or not signature:
        raise _refused(
            "missing_site_signature",
            f"{SITE_KEY_ID_HEADER} needs {SITE_TIMESTAMP_HEADER} and {SITE_SIGNATURE_HEADER}",
        )
    if len(timestamp) > 20 or not (timestamp.isascii() and timestamp.isdigit()):
        raise _refused("malformed_site_timestamp", f"{SITE_TIMESTAMP_HEADER}: epoch milliseconds")
    if abs(int(timestamp) / 1000 - state.clock.now()) > SITE_SIGNATURE_TOLERANCE:
        raise _refused(
            "stale_site_timestamp",
            f"{SITE_TIMESTAMP_HEADER} is not within {SITE_SIGNATURE_TOLERANCE:g} seconds",
        )
    site = state.settings.sites.by_site_key_id(key_id)
    # Unknown key ids still compute a signature, so that timing says nothing.
    secret = site.site_key_secret if site is not None else "unknown-site-key"
    body = await request.body()
    expected = site_signature(secret, timestamp, request.method, _request_target(request), body)
    valid = hmac.compare_digest(
        signature.strip().lower().encode("ascii", "replace"), expected.encode()
    )
    if site is None or not valid:
        raise _refused("invalid_site_signature", "the site-key signature is not valid")
    return site


async def authenticated_site(request: Request) -> Site:
    """The site whose credential the request carries; ``ApiError`` (gcCode 410) otherwise."""
    auth = request.headers.get("authorization")
    key_id = request.headers.get(SITE_KEY_ID_HEADER)
    if auth is not None:
        scheme, _, token = auth.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip() or len(token) > _MAX_HEADER:
            raise _refused("invalid_token", "Authorization: Bearer <account_token> expected")
        site = state_of(request).settings.sites.by_account_token(token.strip())
        if site is None:
            raise _refused("invalid_token", "the account token is not valid")
        return site
    if key_id is not None:
        if len(key_id) > _MAX_HEADER:
            raise _refused("invalid_site_signature", "the site-key signature is not valid")
        return await _by_site_key(request, key_id)
    raise _refused(
        "auth_required",
        "authentication required: Authorization: Bearer <account_token>, "
        f"or {SITE_KEY_ID_HEADER} + {SITE_TIMESTAMP_HEADER} + {SITE_SIGNATURE_HEADER}",
    )


async def require_site(request: Request, website_id: str) -> Site:
    """The site ``website_id`` if the request's credential belongs to it; gcCode 410 otherwise."""
    site = await authenticated_site(request)
    if not hmac.compare_digest(site.website_id.encode(), website_id.encode("utf-8", "replace")):
        raise _refused(
            "wrong_website",
            "these credentials are not valid for this website_id (the webhook routes take the "
            "site's internal 24-hex website_id, not its shortname)",
        )
    return site
