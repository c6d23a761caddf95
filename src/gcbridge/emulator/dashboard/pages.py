"""The dashboard's static files, served with strict headers.

Files are read once from the package (``static/``) and answered from memory by
name: no path from the request ever reaches the file system.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from urllib.parse import urlsplit

from fastapi import APIRouter, Request, Response
from fastapi.responses import RedirectResponse

from gcbridge.emulator.errors import ApiError
from gcbridge.emulator.state import state_of

__all__ = ["router", "security_headers", "SCRIPT_MODULES", "STATIC_FILES"]

router = APIRouter(include_in_schema=False)

_JS = "text/javascript; charset=utf-8"  # module scripts need a JavaScript MIME type

#: The page's ES modules (``main.js`` is the entry; it imports the others by relative path).
SCRIPT_MODULES: tuple[str, ...] = (
    "main.js",
    "api.js",
    "signin.js",
    "site-panel.js",
    "event-sender.js",
    "catalog.js",
    "journal.js",
    "attempts.js",
    "clock.js",
    "dom.js",
    "time.js",
)

#: Served name -> media type. Anything else under /dashboard/ is a 404.
STATIC_FILES: dict[str, str] = {
    "index.html": "text/html; charset=utf-8",
    "dashboard.css": "text/css; charset=utf-8",
    **dict.fromkeys(SCRIPT_MODULES, _JS),
}


@cache
def _read(name: str) -> bytes:
    return resources.files("gcbridge.emulator.dashboard").joinpath("static", name).read_bytes()


def security_headers(widget_url: str | None) -> dict[str, str]:
    """CSP (own origin only), nosniff, no-store, no framing of the dashboard itself.

    ``frame-src`` also admits the widget's origin when ``--front-url`` puts the
    widget elsewhere, so the phone-sized preview can show it.
    """
    frame_src = "'self'"
    widget = urlsplit(widget_url or "")
    if widget.scheme in ("http", "https") and widget.netloc:
        frame_src += f" {widget.scheme}://{widget.netloc}"
    csp = "; ".join(
        [
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "connect-src 'self'",
            "img-src 'self' data:",
            f"frame-src {frame_src}",
            "base-uri 'none'",
            "form-action 'none'",
            # The page carries replay buttons and a secret: never inside another page.
            "frame-ancestors 'none'",
        ]
    )
    return {
        "Content-Security-Policy": csp,
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "no-store",
        "Referrer-Policy": "no-referrer",
        "X-Frame-Options": "DENY",
        "Cross-Origin-Opener-Policy": "same-origin",
    }


@router.get("/dashboard")
async def dashboard_redirect() -> Response:
    """``/dashboard`` -> ``/dashboard/`` (relative links resolve under the slash)."""
    return RedirectResponse("/dashboard/", status_code=308)


@router.get("/dashboard/")
async def dashboard_index(request: Request) -> Response:
    """The dashboard page."""
    return _serve(request, "index.html")


@router.get("/dashboard/{name}")
async def dashboard_file(name: str, request: Request) -> Response:
    """The script modules and ``dashboard.css``; any other name is 404."""
    return _serve(request, name)


def _serve(request: Request, name: str) -> Response:
    media_type = STATIC_FILES.get(name)
    if media_type is None:
        raise ApiError(404, "not_found", "no such dashboard file")
    headers = security_headers(state_of(request).settings.widget_url)
    return Response(_read(name), media_type=media_type, headers=headers)


@router.get("/favicon.ico")
async def favicon() -> Response:
    """The emulator's icon: browsers ask for it on every page, and a 404 is console noise."""
    return Response(
        _read("favicon.ico"),
        media_type="image/x-icon",
        headers={"Cache-Control": "public, max-age=86400", "X-Content-Type-Options": "nosniff"},
    )
