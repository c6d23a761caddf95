"""Errors of :mod:`gcbridge.sso`, one tree with reason codes (the reason codes page lists each).

Messages never contain the secret nor the token (a token is a credential for
about five minutes): log them freely.
"""

from __future__ import annotations

from collections.abc import Iterable

from gcbridge.errors import GcBridgeError
from gcbridge.sso.fields import UserProblem

__all__ = [
    "SsoError",
    "SsoInvalid",
    "SsoExpired",
    "WeakSecret",
    "INVALID_REASONS",
    "EXPIRED_REASONS",
]

INVALID_REASONS = frozenset(
    {"malformed", "bad_timestamp", "bad_signature", "bad_base64", "bad_json", "bad_user"}
)
"""Every ``reason`` an :class:`SsoInvalid` can carry."""

EXPIRED_REASONS = frozenset({"expired", "issued_in_future"})
"""Every ``reason`` an :class:`SsoExpired` can carry."""


class SsoError(GcBridgeError):
    """ssoData was refused; ``reason`` says why."""

    reason = "sso_error"


class SsoInvalid(SsoError):
    """ssoData is not a well-formed token signed with one of the accepted secrets."""

    reason = "malformed"

    def __init__(
        self, message: str, *, reason: str | None = None, problems: Iterable[UserProblem] = ()
    ) -> None:
        super().__init__(message, reason=reason)
        self.problems: tuple[UserProblem, ...] = tuple(problems)
        """For ``bad_user``: one entry per refused field (field, code, message, meant)."""

    @property
    def field(self) -> str | None:
        """The first refused user field (``bad_user``), e.g. ``"avatar"``; else ``None``."""
        return self.problems[0].field if self.problems else None

    @property
    def meant(self) -> str | None:
        """The service's field the first refused one stands for, e.g. ``"picture"``."""
        return self.problems[0].meant if self.problems else None


class SsoExpired(SsoError):
    """ssoData is authentic but outside its validity window."""

    reason = "expired"

    def __init__(self, message: str, *, reason: str, issued_at: int, now: float) -> None:
        super().__init__(message, reason=reason)
        self.issued_at = issued_at
        """Unix seconds the token was issued at (its signed timestamp)."""
        self.now = now
        """The verifier's current time, Unix seconds."""


class WeakSecret(SsoError, ValueError):
    """An issuer was given an SSO secret shorter than ``MIN_SECRET_BYTES`` (16) bytes."""

    reason = "weak_secret"
