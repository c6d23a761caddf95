"""``GET /api/dashboard/site``: the site an account token belongs to.

The dashboard needs the site's public facts before it can call the public routes, and the
account token is all the user typed. The answer holds no secret. A missing or unknown
token answers HTTP 200 with ``{"gcCode": 410, ...}``, as the webhook routes do
(docs/explanation/service.md#webhooks).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from gcbridge.emulator.auth.accounts import bearer_token
from gcbridge.emulator.openapi import SITE_AUTH_OK
from gcbridge.emulator.sites import Site
from gcbridge.emulator.state import state_of

__all__ = ["router", "site_for_token", "SAMPLE_THREAD"]

router = APIRouter(tags=["dashboard"])

#: The thread the dashboard uses for its thread-load link and its test events.
SAMPLE_THREAD: dict[str, str] = {
    "uid": "dashboard-sample",
    "url": "https://example.com/articles/dashboard-sample",
    "page_title": "Dashboard sample thread",
}

_NO_STORE = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}


def site_for_token(request: Request) -> Site | None:
    """The site whose account token is the request's Bearer token (constant-time compares)."""
    token = bearer_token(request)
    return None if token is None else state_of(request).settings.sites.by_account_token(token)


@router.get(
    "/api/dashboard/site",
    summary="The site of an account token (dashboard)",
    responses={200: SITE_AUTH_OK},
)
async def dashboard_site(request: Request) -> Response:
    """``{"shortname", "website_id", "sso_public_key", "widget_url", "thread_load_url", ...}``."""
    site = site_for_token(request)
    if site is None:
        return JSONResponse(
            {
                "gcCode": 410,
                "error": "invalid_account_token",
                "message": "not the account token of any site of this emulator",
            },
            headers=_NO_STORE,
        )
    settings = state_of(request).settings
    base = str(request.base_url).rstrip("/")
    body: dict[str, Any] = {
        "shortname": site.shortname,
        "website_id": site.website_id,
        "sso_public_key": site.sso_public_key,
        "widget_url": settings.widget_url,
        "thread_load_url": f"{base}/api/pub/thread-load/",
        "sample_thread": SAMPLE_THREAD,
        "retry_schedule": list(settings.retry_schedule),
    }
    return JSONResponse(body, headers=_NO_STORE)
