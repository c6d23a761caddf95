"""Mint ssoData on the customer's server (spec 5.1 step 3)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gcbridge.clock import SYSTEM_CLOCK, Clock
from gcbridge.sso.format import assemble, encode_message
from gcbridge.sso.user import SsoUser

__all__ = ["SsoIssuer", "coerce_user"]


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
    """Issues ssoData tokens signed with the site's SSO secret."""

    def __init__(self, secret: str | bytes, *, clock: Clock = SYSTEM_CLOCK) -> None:
        self._secret = _secret_bytes(secret)
        self._clock = clock

    def __repr__(self) -> str:
        return "SsoIssuer(secret='***')"

    def issue(self, user: SsoUser | Mapping[str, Any], now: float | None = None) -> str:
        """A fresh token for ``user``; invalid user fields raise ``ValueError``."""
        sso_user = coerce_user(user)
        timestamp = int(self._clock.now() if now is None else now)
        if timestamp < 0:
            raise ValueError("cannot issue ssoData before the Unix epoch")
        return assemble(self._secret, encode_message(sso_user.claims()), timestamp)
