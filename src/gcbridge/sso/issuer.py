"""Mint ssoData on the customer's server (docs/explanation/service.md#signing-the-apps-user-in)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gcbridge.clock import SYSTEM_CLOCK, Clock
from gcbridge.sso.errors import WeakSecret
from gcbridge.sso.format import assemble, encode_message
from gcbridge.sso.user import SsoUser

__all__ = ["SsoIssuer", "coerce_user", "MIN_SECRET_BYTES"]

MIN_SECRET_BYTES = 16
"""Shortest SSO secret an issuer signs with (the site's secret is random, 32+ bytes)."""


def _secret_bytes(secret: str | bytes) -> bytes:
    if isinstance(secret, str):
        secret = secret.encode("utf-8")
    if not isinstance(secret, bytes) or not secret:
        raise ValueError("the SSO secret must be a non-empty str or bytes")
    return secret


def coerce_user(user: SsoUser | Mapping[str, Any]) -> SsoUser:
    """An :class:`SsoUser` from itself or a mapping; bad fields raise ``ValueError``."""
    if isinstance(user, SsoUser):
        return user
    if not isinstance(user, Mapping):
        raise TypeError(f"user must be an SsoUser or a mapping, not {type(user).__name__}")
    return SsoUser.model_validate(dict(user))


class SsoIssuer:
    """Issues ssoData tokens signed with the site's SSO secret.

    A secret under 16 bytes raises :class:`~gcbridge.sso.errors.WeakSecret`
    (reason ``weak_secret``): a short key can be guessed offline from one token.
    ``allow_weak_secret=True`` lifts the check for the short example credentials
    of tests and test vectors only.
    """

    def __init__(
        self,
        secret: str | bytes,
        *,
        clock: Clock = SYSTEM_CLOCK,
        allow_weak_secret: bool = False,
    ) -> None:
        self._secret = _secret_bytes(secret)
        if not allow_weak_secret and len(self._secret) < MIN_SECRET_BYTES:
            raise WeakSecret(
                f"the SSO secret is {len(self._secret)} bytes; an issuer needs at least "
                f"{MIN_SECRET_BYTES} (use the site's secret, or a random one such as "
                "secrets.token_urlsafe(32))"
            )
        self._clock = clock

    def __repr__(self) -> str:
        return "SsoIssuer(secret='***')"

    def issue(self, user: SsoUser | Mapping[str, Any], now: float | None = None) -> str:
        """A fresh token for ``user``; invalid user fields raise ``ValueError``."""
        message = encode_message(coerce_user(user).claims())
        timestamp = int(self._clock.now() if now is None else now)
        if timestamp < 0:
            raise ValueError("cannot issue ssoData before the Unix epoch")
        return assemble(self._secret, message, timestamp)
