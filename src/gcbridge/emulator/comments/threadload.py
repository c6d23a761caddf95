"""``GET /api/pub/thread-load/``: the widget URL of a thread.

docs/explanation/service.md, "Loading the widget".

Every parameter is checked and a wrong one answers 400 with ``gcCode`` and the
parameter's name; no input reaches a 500. A parameter given twice is refused
rather than silently picking one, because an app that builds its query string
wrongly should learn it here, not in production.
"""

from __future__ import annotations

from urllib.parse import quote, urlencode

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from gcbridge.emulator.comments.openapi import THREAD_LOAD_EXTRA
from gcbridge.emulator.comments.store import upsert_thread
from gcbridge.emulator.comments.validate import check_page_title, check_true, check_uid, check_url
from gcbridge.emulator.errors import ApiError, invalid
from gcbridge.emulator.openapi import error_responses
from gcbridge.emulator.state import state_of

__all__ = ["router", "build_gc_url"]

router = APIRouter(tags=["thread-load"])

_PARAMS = ("service_id", "url", "uid", "page_title", "inapp", "redirect")


def build_gc_url(widget_url: str, *, shortname: str, url: str, uid: str, page_title: str) -> str:
    """``{front_url}?website_id=...&url=...&uid=...&page_title=...&inapp=true``."""
    query = urlencode(
        {
            "website_id": shortname,
            "url": url,
            "uid": uid,
            "page_title": page_title,
            "inapp": "true",
        },
        quote_via=quote,
        safe="",
    )
    return f"{widget_url}{'&' if '?' in widget_url else '?'}{query}"


def _single(request: Request, name: str) -> str | None:
    values = request.query_params.getlist(name)
    if len(values) > 1:
        raise invalid(name, "given more than once")
    return values[0] if values else None


@router.get(
    "/api/pub/thread-load/",
    summary="Widget URL of a thread",
    responses=error_responses(400, 404),
    openapi_extra=THREAD_LOAD_EXTRA,
)
async def thread_load(request: Request) -> dict[str, str]:
    """Validate the query parameters, create the thread if new, answer ``{"gc_url"}``."""
    state = state_of(request)
    raw = {name: _single(request, name) for name in _PARAMS}
    service_id = raw["service_id"]
    if service_id is None or not service_id.strip():
        raise invalid("service_id", "required: the site's shortname")
    url = check_url(raw["url"])
    uid = check_uid(raw["uid"])
    page_title = check_page_title(raw["page_title"])
    check_true("inapp", raw["inapp"])
    check_true("redirect", raw["redirect"])
    site = state.settings.sites.by_shortname(service_id)
    if site is None:
        raise ApiError(
            404, "unknown_site", f"service_id: no site has the shortname {service_id[:64]!r}"
        )

    def write() -> None:
        with state.db.transaction() as conn:
            upsert_thread(
                conn,
                site=site.shortname,
                uid=uid,
                url=url,
                page_title=page_title,
                now=state.clock.now(),
            )

    await run_in_threadpool(write)
    gc_url = build_gc_url(
        state.settings.widget_url, shortname=site.shortname, url=url, uid=uid, page_title=page_title
    )
    return {"gc_url": gc_url}
