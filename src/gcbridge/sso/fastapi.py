"""``GET /sso-data`` for customer backends, as a FastAPI router.

::

    app.include_router(sso_router(SsoIssuer(secret), current_user))

``current_user`` is the app's own authentication dependency: it returns the
signed-in user (an :class:`~gcbridge.sso.SsoUser` or a mapping of its fields) or
raises (e.g. ``HTTPException(401)``); returning ``None`` also answers 401. The
token is minted fresh per request and sent with ``Cache-Control: no-store`` so no
cache or proxy keeps a login credential.
"""

# No ``from __future__ import annotations``: FastAPI evaluates the endpoint's
# annotations at runtime, in this module's namespace.

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException
from fastapi.responses import JSONResponse

from gcbridge.sso.issuer import SsoIssuer, coerce_user

__all__ = ["sso_router", "NO_STORE_HEADERS"]

NO_STORE_HEADERS = {"Cache-Control": "no-store", "Pragma": "no-cache"}
"""Headers of every ssoData response: a credential must never be cached."""


def sso_router(
    issuer: SsoIssuer,
    current_user: Callable[..., Any],
    *,
    path: str = "/sso-data",
) -> APIRouter:
    """A router serving ``GET <path>`` -> ``{"ssoData": ...}`` for the signed-in user."""
    router = APIRouter()

    @router.get(path, summary="Fresh ssoData for the signed-in user")
    def sso_data(user: Annotated[Any, Depends(current_user)]) -> JSONResponse:
        if user is None:
            raise HTTPException(401, "not signed in", headers=NO_STORE_HEADERS)
        try:
            sso_user = coerce_user(user)
        except (TypeError, ValueError):
            # The app's own user record does not fit ssoData: a server bug, not
            # the caller's; do not echo the record back.
            raise HTTPException(
                500, "the signed-in user cannot be expressed as ssoData", headers=NO_STORE_HEADERS
            ) from None
        return JSONResponse({"ssoData": issuer.issue(sso_user)}, headers=NO_STORE_HEADERS)

    return router
