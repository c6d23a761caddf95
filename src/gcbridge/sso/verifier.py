"""Check ssoData as the service does: signature, age, then the user inside.

Order matters: the MAC is checked before anything in the message is decoded,
and the age only once the timestamp is known to be authentic, so an attacker
learns nothing but "bad_signature" from a forged token.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from hmac import compare_digest

from pydantic import ValidationError

from gcbridge.clock import SYSTEM_CLOCK, Clock
from gcbridge.sso.errors import SsoExpired, SsoInvalid
from gcbridge.sso.fields import describe_errors, fast_claims
from gcbridge.sso.format import (
    MAX_TOKEN_LENGTH,
    TOKEN_SHAPE,
    decode_message,
    keyed_sha1,
    split_token,
)
from gcbridge.sso.issuer import _secret_bytes
from gcbridge.sso.policy import DEFAULT_LEEWAY, DEFAULT_MAX_AGE, sso_age_verdict
from gcbridge.sso.user import SsoUser, user_from_checked_claims

__all__ = ["SsoVerifier", "USER_MEMO_SIZE"]

USER_MEMO_SIZE = 256
"""Authenticated messages whose decoded user each verifier remembers (see ``verify``)."""


def _user_from_message(message: str) -> SsoUser:
    # A pure function of the message: the same text always gives an equal
    # (frozen) user or the same error, so remembering its successes is safe.
    claims = decode_message(message)
    checked = fast_claims(claims)
    if checked is not None:  # certainly valid: skip the model's validators
        return user_from_checked_claims(checked)
    try:
        return SsoUser.model_validate(claims)
    except ValidationError as exc:
        raise user_refused(exc) from None


def user_refused(exc: ValidationError) -> SsoInvalid:
    """The ``bad_user`` refusal for a user the model refused: every field named, and why."""
    problems = describe_errors(exc.errors())
    return SsoInvalid(
        "the user in ssoData is invalid: " + "; ".join(p.message for p in problems),
        reason="bad_user",
        problems=problems,
    )


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
        self._keyed = tuple(keyed_sha1(k) for k in self._secrets)
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
        shape = (
            TOKEN_SHAPE.fullmatch(sso_data)
            if type(sso_data) is str and len(sso_data) <= MAX_TOKEN_LENGTH
            else None
        )
        if shape is None:
            split_token(sso_data)  # raises the precise reason
            raise AssertionError("unreachable: split_token accepts only TOKEN_SHAPE")
        message, signature, ts_text = shape.groups()
        timestamp = int(ts_text)
        # format.signing_input (the timestamp as an int, as the signer wrote it),
        # and signature_matches for every key, with the shared work done once.
        signed = f"{message} {timestamp}".encode("ascii")
        mac = bytes.fromhex(signature)
        # Try every key even after a match would be found: the loop is tiny and
        # its duration then depends only on how many secrets are configured.
        matched = False
        for keyed in self._keyed:
            check = keyed.copy()
            check.update(signed)
            matched |= compare_digest(check.digest(), mac)
        if not matched:
            raise SsoInvalid(
                "the signature does not match any accepted secret", reason="bad_signature"
            )

        current = self._clock.now() if now is None else float(now)
        # The policy's "ok" window, tested inline; the policy names any other verdict.
        if not -self.leeway <= current - timestamp <= self.max_age + self.leeway:
            verdict = sso_age_verdict(timestamp, current, self.max_age, self.leeway)
            if verdict != "ok":  # (only a NaN clock could make it "ok" here)
                what = "expired" if verdict == "expired" else "was issued in the future"
                raise SsoExpired(
                    f"ssoData {what} (issued {timestamp}, now {int(current)}, "
                    f"max age {self.max_age}s, leeway {self.leeway}s)",
                    reason=verdict,
                    issued_at=timestamp,
                    now=current,
                )

        return self._user_of(message)
