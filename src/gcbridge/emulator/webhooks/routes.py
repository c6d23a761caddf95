"""The webhook routes at their exact paths (docs/explanation/service.md#webhooks).

Every route authenticates first (:mod:`~gcbridge.emulator.auth.siteauth`, a dependency:
HTTP 200 with gcCode 410 on failure), then validates, so an unauthenticated caller learns
nothing about the site. ``website_id`` is the 24-hex internal id; a shortname is treated
like any id the credential does not own. Bodies are parsed by hand after authentication,
since a site-key signature covers the raw bytes.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from starlette.concurrency import run_in_threadpool

from gcbridge.emulator.auth.siteauth import authenticated_site, require_site
from gcbridge.emulator.errors import ApiError, ReceiverRefused, bad_request
from gcbridge.emulator.inputs import parse_int, parse_json_object
from gcbridge.emulator.openapi import site_auth_responses
from gcbridge.emulator.sites import Site
from gcbridge.emulator.state import state_of
from gcbridge.emulator.webhooks.journal import (
    CALL_STATUSES,
    call_json,
    config_json,
    disable_config,
    get_call,
    get_config,
    insert_call,
    latest_replay,
    list_calls,
    save_config,
)
from gcbridge.emulator.webhooks.openapi import CALLS_EXTRA, SETUP_EXTRA, VERIFY_EXTRA
from gcbridge.emulator.webhooks.ssrf import check_receiver_url
from gcbridge.webhooks.catalog import EVENT_TYPES

__all__ = ["router", "DEFAULT_LIMIT", "MAX_LIMIT", "MAX_CURSOR"]

router = APIRouter(tags=["webhooks"])
# Authentication comes first, before the body is read or checked (see the module docstring).
SiteAuth = Depends(require_site)
AnySiteAuth = Depends(authenticated_site)  # the routes without a website_id

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
MAX_CURSOR = 2**62  # a calls.seq; larger is no cursor of ours (and overflows SQLite)
_MAX_BODY = 16_384


def _not_configured(request: Request | None = None) -> ApiError:
    # The dashboard reads the config on load, before any setup; a browser logs every
    # non-2xx answer in its console as an error. So a same-origin page's fetch gets the
    # service's other convention (docs/explanation/service.md#webhooks): HTTP 200 with gcCode 404.
    page = request is not None and request.headers.get("sec-fetch-site") == "same-origin"
    return ApiError(
        200 if page else 404,
        "webhook_not_configured",
        "no webhook is set up for this website yet",
        gc_code=404,
    )


def _check_events(raw: Any) -> tuple[str, ...]:
    if raw is None:
        return EVENT_TYPES
    if not isinstance(raw, list) or not all(isinstance(e, str) for e in raw):
        raise bad_request("events: an array of event kind strings expected")
    unknown = [e for e in raw if e not in EVENT_TYPES]
    if unknown:
        raise bad_request(
            f"events: unknown event kind {unknown[0][:64]!r}; allowed: {', '.join(EVENT_TYPES)}",
            "unknown_event_type",
        )
    if not raw:
        raise bad_request("events: at least one event kind (or disable the webhook)")
    # Stored in the canonical order, once each.
    return tuple(e for e in EVENT_TYPES if e in raw)


@router.post(
    "/webhook/website/{website_id}/setup",
    summary="Set up the site's webhook",
    responses=site_auth_responses(400),
    openapi_extra=SETUP_EXTRA,
)
async def setup(request: Request, site: Site = SiteAuth) -> dict[str, Any]:
    """Replace the configuration and generate a new secret; answers the configuration."""
    state = state_of(request)
    raw = await request.body()
    if len(raw) > _MAX_BODY:
        raise bad_request(f"body larger than {_MAX_BODY} bytes")
    data = parse_json_object(raw, what='a JSON object {"url", "events"}')
    url = data.get("url")
    if not isinstance(url, str) or not url:
        raise bad_request("url: required, the receiver's https URL")
    try:
        check_receiver_url(url, allow_private=state.settings.allow_private_receivers)
    except ReceiverRefused as exc:
        raise bad_request(f"url: {exc} [{exc.reason}]", "invalid_url") from None
    events = _check_events(data.get("events"))

    def write() -> dict[str, Any]:
        with state.db.transaction() as conn:
            config = save_config(
                conn, website_id=site.website_id, url=url, events=events, now=state.clock.now()
            )
        return config_json(config)

    return await run_in_threadpool(write)


@router.get(
    "/webhook/website/{website_id}/config",
    summary="Read the site's webhook configuration",
    responses=site_auth_responses(404),
)
async def config(request: Request, site: Site = SiteAuth) -> dict[str, Any]:
    """The configuration, including the secret."""
    state = state_of(request)
    with state.db.read() as conn:
        found = get_config(conn, site.website_id)
    if found is None:
        raise _not_configured(request)
    return config_json(found)


@router.delete(
    "/webhook/website/{website_id}/disable",
    summary="Turn the site's webhook off",
    responses=site_auth_responses(404),
)
async def disable(request: Request, site: Site = SiteAuth) -> dict[str, Any]:
    """Stop deliveries: later events are not queued, waiting calls fail ``webhook_disabled``."""
    state = state_of(request)

    def write() -> dict[str, Any] | None:
        with state.db.transaction() as conn:
            found = disable_config(conn, site.website_id, state.clock.now())
        return None if found is None else config_json(found)

    answer = await run_in_threadpool(write)
    if answer is None:
        raise _not_configured()
    return answer


@router.get(
    "/webhook/website/{website_id}/calls",
    summary="Recent deliveries, newest first",
    responses=site_auth_responses(400),
    openapi_extra=CALLS_EXTRA,
)
async def calls(request: Request, site: Site = SiteAuth) -> dict[str, Any]:
    """``{"calls": [...], "next_cursor": str | null}`` filtered by status and event_type."""
    state = state_of(request)
    q = request.query_params
    limit = parse_int("limit", q.get("limit"), low=1, high=MAX_LIMIT, default=DEFAULT_LIMIT)
    status = q.get("status") or None
    if status is not None and status not in CALL_STATUSES:
        raise bad_request(f"status: one of {', '.join(CALL_STATUSES)}")
    event_type = q.get("event_type") or None
    if event_type is not None and event_type not in EVENT_TYPES:
        raise bad_request(f"event_type: one of {', '.join(EVENT_TYPES)}", "unknown_event_type")
    cursor = q.get("cursor")
    before = parse_int("cursor", cursor, low=0, high=MAX_CURSOR) if cursor else None
    with state.db.read() as conn:
        page, next_seq = list_calls(
            conn,
            site.website_id,
            limit=limit,
            status=status,
            event_type=event_type,
            before_seq=before,
        )
    return {"calls": page, "next_cursor": None if next_seq is None else str(next_seq)}


@router.post(
    "/webhook/call/{call_id}/replay",
    summary="Replay a failed delivery",
    responses=site_auth_responses(404, 409),
)
async def replay(call_id: str, request: Request, site: Site = AnySiteAuth) -> dict[str, Any]:
    """A fresh call for the same event: new delivery id, retry count 0, ``replay_of`` set.

    Idempotent: a call is replayed once. While its replay is pending or has
    succeeded, replaying it again (a double click, a CLI retried after a
    time-out, ten at once) answers that same replay, ``"fresh": false``, and
    delivers nothing more. Once the replay has failed, replaying the original
    or the replay makes one new delivery (the replay of the latest failed one).
    The check and the insert share one transaction, so concurrent replays
    cannot both pass it.
    """
    state = state_of(request)

    def write() -> tuple[dict[str, Any], bool]:
        with state.db.transaction() as conn:
            original = get_call(conn, call_id)
            # Another site's call is "not found": call ids do not leak across sites.
            if original is None or original["website_id"] != site.website_id:
                raise ApiError(404, "call_not_found", f"no call {call_id[:64]!r} for this website")
            latest = latest_replay(conn, original)
            if latest["id"] != original["id"] and latest["status"] != "failed":
                return call_json(conn, latest), False
            if latest["status"] != "failed":
                raise ApiError(
                    409,
                    "not_replayable",
                    f"only a failed call can be replayed; this one is {latest['status']}",
                )
            current = get_config(conn, site.website_id)
            if current is None or not current.enabled:
                raise ApiError(
                    409, "webhook_disabled", "the webhook is disabled; set it up again first"
                )
            new_id = insert_call(
                conn,
                website_id=site.website_id,
                event_type=latest["event_type"],
                url=current.url,
                body=bytes(latest["body"]),
                now=state.clock.now(),
                replay_of=latest["id"],
            )
            fresh = get_call(conn, new_id)
            assert fresh is not None
            return call_json(conn, fresh), True

    answer, made = await run_in_threadpool(write)
    if made:
        state.dispatcher.wake()
    return {"call": answer, "fresh": made}


@router.post(
    "/webhook/website/{website_id}/verify",
    summary="Check a delivery signature",
    responses=site_auth_responses(404),
    openapi_extra=VERIFY_EXTRA,
)
async def verify(request: Request, site: Site = SiteAuth) -> dict[str, Any]:
    """Whether X-Webhook-Signature matches the body and timestamp under the site's secret."""
    from gcbridge.webhooks import WebhookVerificationError, verify_signature

    state = state_of(request)
    with state.db.read() as conn:
        found = get_config(conn, site.website_id)
    if found is None:
        raise _not_configured()
    body = await request.body()
    try:
        verify_signature(found.secret, body, request.headers, now=state.clock.now())
    except WebhookVerificationError as exc:
        return {"valid": False, "reason": exc.reason}
    return {"valid": True, "reason": "ok"}
