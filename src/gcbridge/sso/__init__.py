"""ssoData for the comment widget: issue it on your server, verify it like the service.

::

    from gcbridge.sso import SsoIssuer, SsoVerifier

    token = SsoIssuer(secret).issue({"id": "42", "username": "ada", "email": "ada@example.com"})
    user = SsoVerifier(secret).verify(token)          # -> SsoUser, or SsoInvalid / SsoExpired

The format is the service's public one (docs/reference/wire-formats.md#ssodata), so
tokens work against the real service. FastAPI glue lives in
:mod:`gcbridge.sso.fastapi` and is imported only when you ask for it.
"""

from __future__ import annotations

from gcbridge.sso.errors import SsoError, SsoExpired, SsoInvalid
from gcbridge.sso.issuer import SsoIssuer
from gcbridge.sso.policy import DEFAULT_LEEWAY, DEFAULT_MAX_AGE, sso_age_ok, sso_age_verdict
from gcbridge.sso.user import SsoUser
from gcbridge.sso.verifier import SsoVerifier

__all__ = [
    "SsoUser",
    "SsoIssuer",
    "SsoVerifier",
    "SsoError",
    "SsoInvalid",
    "SsoExpired",
    "sso_age_ok",
    "sso_age_verdict",
    "DEFAULT_MAX_AGE",
    "DEFAULT_LEEWAY",
]
