"""Mint ssoData on the customer's server (spec 5.1 step 3)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from gcbridge.clock import SYSTEM_CLOCK, Clock
from gcbridge.sso.errors import WeakSecret
from gcbridge.sso.fields import fast_claims
from gcbridge.sso.format import encode_checked_message, encode_message, keyed_sha1
from gcbridge.sso.user import SsoUser

__all__ = ["SsoIssuer", "coerce_user", "MESSAGE_MEMO_SIZE", "MIN_SECRET_BYTES"]

MIN_SECRET_BYTES = 16
"""Shortest SSO secret an issuer signs with (the site's secret is random, 32+ bytes)."""

MESSAGE_MEMO_SIZE = 256
"""Users whose encoded message each issuer remembers (see ``SsoIssuer.issue``)."""

# Values whose == is exact identity of meaning for validation (True == 1 and
# 1.0 == 1 would not be: bool and float are refused where int is accepted).
_MEMO_VALUE_TYPES = (str, int, type(None))


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
    return SsoUser.model_validate(user if type(user) is dict else dict(user))


def _claims(user: SsoUser) -> dict[str, Any]:
    # SsoUser.claims() without the serializer: its fields are all str or None,
    # which model_dump returns as they are. Subclasses keep their own claims().
    if type(user) is SsoUser:
        return {name: value for name, value in user.__dict__.items() if value is not None}
    return user.claims()


def _memo_key(user: object) -> object:
    """A hashable key equal only for inputs that validate and encode the same, else None."""
    if type(user) is SsoUser:
        return user  # frozen: hashable, == compares the fields
    if type(user) is dict and all(type(v) in _MEMO_VALUE_TYPES for v in user.values()):
        return tuple(user.items())
    return None


def _encoded(user: SsoUser | Mapping[str, Any]) -> str:
    # A plain dict that is certainly valid skips the model (same claims, same
    # order, same bytes); anything else goes through it, which raises the
    # precise error.
    if type(user) is dict:
        claims = fast_claims(user)
        if claims is not None:
            return encode_checked_message(claims)
    return encode_message(_claims(coerce_user(user)))


def _message_for(key: object) -> str:
    return _encoded(key if isinstance(key, SsoUser) else dict(key))  # type: ignore[call-overload]


def _check_strength(secret: bytes) -> None:
    if len(secret) < MIN_SECRET_BYTES:
        raise WeakSecret(
            f"the SSO secret is {len(secret)} bytes; an issuer needs at least "
            f"{MIN_SECRET_BYTES} (use the site's secret, or a random one such as "
            "secrets.token_urlsafe(32))"
        )


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
        if not allow_weak_secret:
            _check_strength(self._secret)
        self._keyed = keyed_sha1(self._secret)
        self._clock = clock
        # A server issues a new token for the same user on every page: keep the
        # validated, encoded message of recent users (errors are not kept). Plain
        # dicts that pass fields.fast_claims skip it: checking and encoding them
        # directly costs less than building the memo key.
        self._message_of = functools.lru_cache(maxsize=MESSAGE_MEMO_SIZE)(_message_for)

    def __repr__(self) -> str:
        return "SsoIssuer(secret='***')"

    def issue(self, user: SsoUser | Mapping[str, Any], now: float | None = None) -> str:
        """A fresh token for ``user``; invalid user fields raise ``ValueError``."""
        # A plain valid dict is checked and encoded directly (cheaper than a memo
        # lookup); a model or an unusual mapping goes through the memo.
        claims = fast_claims(user) if type(user) is dict else None
        if claims is not None:
            message = encode_checked_message(claims)
        else:
            key = _memo_key(user)
            message = self._message_of(key) if key is not None else _encoded(user)
        timestamp = int(self._clock.now() if now is None else now)
        if timestamp < 0:
            raise ValueError("cannot issue ssoData before the Unix epoch")
        # format.assemble, inlined: the secret is already bytes.
        signed = f"{message} {timestamp}".encode("ascii")
        mac = self._keyed.copy()
        mac.update(signed)
        return f"{message} {mac.hexdigest()} {timestamp}"
