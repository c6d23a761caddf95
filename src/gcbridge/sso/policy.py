"""The ssoData validity window, as small pure functions.

A token issued at ``issued`` is accepted at ``now`` when
``-leeway <= now - issued <= max_age + leeway``: ``max_age``
is the lifetime, ``leeway`` absorbs clock skew between the customer's
server and the verifier, in both directions. Both bounds are inclusive.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["AgeVerdict", "sso_age_verdict", "sso_age_ok", "DEFAULT_MAX_AGE", "DEFAULT_LEEWAY"]

DEFAULT_MAX_AGE = 300
"""Lifetime of ssoData in seconds, as the service accepts it."""

DEFAULT_LEEWAY = 30
"""Clock-skew allowance in seconds, either side."""

AgeVerdict = Literal["ok", "expired", "issued_in_future"]
"""Outcome of :func:`sso_age_verdict`."""


def sso_age_verdict(issued: float, now: float, max_age: float, leeway: float) -> AgeVerdict:
    """Classify a token's age: ``ok``, ``expired`` or ``issued_in_future``."""
    age = now - issued
    if age > max_age + leeway:
        return "expired"
    if age < -leeway:
        return "issued_in_future"
    return "ok"


def sso_age_ok(issued: float, now: float, max_age: float, leeway: float) -> bool:
    """Whether a token issued at ``issued`` is still acceptable at ``now``."""
    return sso_age_verdict(issued, now, max_age, leeway) == "ok"
