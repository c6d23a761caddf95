"""Check ssoData as the service does: signature, age, then the user inside.

Order matters: the MAC is checked before anything in the message is decoded,
and the age only once the timestamp is known to be authentic, so an attacker
learns nothing but "bad_signature" from a forged token.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from pydantic import ValidationError

from gcbridge.clock import SYSTEM_CLOCK, Clock
from gcbridge.sso.errors import SsoExpired, SsoInvalid
from gcbridge.sso.fields import describe_errors
from gcbridge.sso.format import decode_message, signature_matches, split_token
from gcbridge.sso.issuer import _secret_bytes
from gcbridge.sso.policy import DEFAULT_LEEWAY, DEFAULT_MAX_AGE, sso_age_verdict
from gcbridge.sso.user import SsoUser

__all__ = ["SsoVerifier", "USER_MEMO_SIZE"]

USER_MEMO_SIZE = 256
"""Authenticated messages whose decoded user each verifier remembers (see ``verify``)."""


def _user_from_message(message: str) -> SsoUser:
    # A pure function of the message: the same text always gives an equal
    # (frozen) user or the same error, so remembering its successes is safe.
    try:
        return SsoUser.model_validate(decode_message(message))
    except ValidationError as exc:
        # bad_user names every refused field, and why
        problems = describe_errors(exc.errors())
        raise SsoInvalid(
            "the user in ssoData is invalid: " + "; ".join(p.message for p in problems),
            reason="bad_user",
            problems=problems,
        ) from None


class SsoVerifier:
    """Verifies ssoData against one secret or several (key rotation: any may match)."""

    def __init__(
        self,
        secrets: str | bytes | Sequence[str | bytes],
        *,
        max_age: float = DEFAULT_MAX_AGE,
        leeway: float = DEFAULT_LEEWAY,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        keys = [secrets] if isinstance(secrets, str | bytes) else list(secrets)
        if not keys:
            raise ValueError("at least one SSO secret is needed")
        self._secrets = tuple(_secret_bytes(k) for k in keys)
        if max_age < 0 or leeway < 0:
            raise ValueError("max_age and leeway must not be negative")
        self.max_age = max_age
        self.leeway = leeway
        self._clock = clock
        # The same user comes back with a new token on every page: its message
        # (base64 JSON, without the timestamp) repeats, so skip re-decoding and
        # re-validating it. Only consulted after the MAC and age checks pass;
        # errors are not remembered. Bounded: at most 256 * 16 KiB.
        self._user_of = functools.lru_cache(maxsize=USER_MEMO_SIZE)(_user_from_message)

    def __repr__(self) -> str:
        return (
            f"SsoVerifier(secrets=<{len(self._secrets)} hidden>, "
            f"max_age={self.max_age!r}, leeway={self.leeway!r})"
        )

    def verify(self, sso_data: str, now: float | None = None) -> SsoUser:
        """The user inside authentic, fresh ssoData; raises ``SsoInvalid`` or ``SsoExpired``."""
        message, signature, timestamp = split_token(sso_data)
        matched = False
        for secret in self._secrets:  # every key, even after a match: timing tells nothing
            matched |= signature_matches(secret, message, timestamp, signature)
        if not matched:
            raise SsoInvalid(
                "the signature does not match any accepted secret", reason="bad_signature"
            )
        current = self._clock.now() if now is None else float(now)
        verdict = sso_age_verdict(timestamp, current, self.max_age, self.leeway)
        if verdict != "ok":
            what = "expired" if verdict == "expired" else "was issued in the future"
            raise SsoExpired(
                f"ssoData {what} (issued {timestamp}, now {int(current)}, "
                f"max age {self.max_age}s, leeway {self.leeway}s)",
                reason=verdict,
                issued_at=timestamp,
                now=current,
            )
        return self._user_of(message)
