"""The dashboard's own routes under ``/api/dashboard/``: the site of a token, the event catalog.

``GET /api/dashboard/site`` gives the site an account token belongs to: the dashboard needs
the site's public facts before it can call the public routes, and the account token is all
the user typed. The answer holds no secret. A missing or unknown token answers HTTP 200 with
``{"gcCode": 410, ...}``, as the webhook routes do (docs/explanation/service.md#webhooks).

The event catalog routes (the event types, their JSON Schemas, a body check) need no token:
they hold the public contract only, no site data. ``POST /api/dashboard/events/check`` runs
the one validation function (:func:`gcbridge.webhooks.schema_check.check_body`) that the
dashboard's test events apply to the body of each delivery they caused.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from gcbridge.emulator.auth.accounts import bearer_token
from gcbridge.emulator.errors import ApiError, bad_request
from gcbridge.emulator.inputs import parse_json_object
from gcbridge.emulator.openapi import SITE_AUTH_OK, error_responses, json_request_body
from gcbridge.emulator.state import state_of
from gcbridge.webhooks.catalog import CATALOG, EVENT_TYPES, example_body
from gcbridge.webhooks.event_schemas import schema_json
from gcbridge.webhooks.schema_check import WebhookSchemaError, check_body

__all__ = ["router", "SAMPLE_THREAD"]

router = APIRouter(tags=["dashboard"])

#: The thread the dashboard uses for its thread-load link and its test events.
SAMPLE_THREAD: dict[str, str] = {
    "uid": "dashboard-sample",
    "url": "https://example.com/articles/dashboard-sample",
    "page_title": "Dashboard sample thread",
}

_NO_STORE = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}


@router.get(
    "/api/dashboard/site",
    summary="The site of an account token (dashboard)",
    responses={200: SITE_AUTH_OK},
)
async def dashboard_site(request: Request) -> Response:
    """``{"shortname", "website_id", "sso_public_key", "widget_url", "thread_load_url", ...}``."""
    token = bearer_token(request)
    settings = state_of(request).settings
    site = None if token is None else settings.sites.by_account_token(token)
    if site is None:
        return JSONResponse(
            {
                "gcCode": 410,
                "error": "invalid_account_token",
                "message": "not the account token of any site of this emulator",
            },
            headers=_NO_STORE,
        )
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


def _schema_path(event_type: str) -> str:
    return f"/api/dashboard/events/{event_type}/schema"


@router.get("/api/dashboard/events", summary="The webhook event catalog (dashboard)")
async def event_catalog() -> Response:
    """``{"events": [{"event_type", "fires_when", "trigger", "schema_url", "example"}], ...}``.

    The dashboard's lists (subscriptions, test buttons, journal filter) are built from it.
    """
    events = [
        {
            "event_type": event.name,
            "fires_when": event.fires_when,
            "trigger": event.trigger,
            "schema_url": _schema_path(event.name),
            "example": example_body(event.name),
        }
        for event in CATALOG
    ]
    body = {
        "events": events,
        "any_event_schema_url": "/api/dashboard/events/any/schema",
        "openapi_url": "/openapi.json",
    }
    return JSONResponse(body, headers=_NO_STORE)


@router.get(
    "/api/dashboard/events/{event_type}/schema",
    summary="The JSON Schema of one event type's body ('any': of any body)",
    responses=error_responses(404),
)
async def event_schema(event_type: str) -> Response:
    """The self-contained JSON Schema, as ``gcbridge webhooks schema EVENT_TYPE`` prints it."""
    if event_type != "any" and event_type not in EVENT_TYPES:
        raise ApiError(
            404,
            "unknown_event_type",
            f"no event type of that name; one of {', '.join(EVENT_TYPES)}",
        )
    text = schema_json(None if event_type == "any" else event_type)
    return Response(text, media_type="application/schema+json", headers=_NO_STORE)


@router.post(
    "/api/dashboard/events/check",
    summary="Check a delivery body against its event's JSON Schema",
    responses=error_responses(400),
    openapi_extra=json_request_body(
        {
            "type": "object",
            "required": ["body"],
            "properties": {
                "body": {"type": "string", "description": "The delivery body as sent."},
                "event_type": {"type": "string", "enum": list(EVENT_TYPES)},
            },
        },
        "The body to check, and the event type it must be (optional).",
        required=True,
    ),
)
async def check_event_body(request: Request) -> Response:
    """``{"valid": bool, "event_type": str|null, "reason": str|null, "problems": [str]}``."""
    # Its size is capped before the route reads it (BodyLimit, DEFAULT_BODY_LIMIT).
    # The one rule of every JSON body (depth, integers, surrogates): a 400, never a 500.
    request_body = parse_json_object(
        await request.body(), what='{"body": "<the delivery body as text>"}'
    )
    if not isinstance(request_body.get("body"), str):
        raise bad_request('expected {"body": "<the delivery body as text>", "event_type"?}')
    expected = request_body.get("event_type")
    if expected is not None and not isinstance(expected, str):
        raise bad_request("event_type must be a string")
    try:
        event_type: str | None = check_body(request_body["body"], expected)
    except WebhookSchemaError as exc:
        verdict = {
            "valid": False,
            "event_type": expected,
            "reason": exc.reason,
            "problems": list(exc.problems) or [str(exc)],
        }
        return JSONResponse(verdict, headers=_NO_STORE)
    verdict = {"valid": True, "event_type": event_type, "reason": None, "problems": []}
    return JSONResponse(verdict, headers=_NO_STORE)
