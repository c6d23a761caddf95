"""The widget page at ``/widget/`` (docs/explanation/service.md): static files, strict headers.

The files of ``WIDGET_FILES`` are served as they are: no templating, so no query parameter
reaches the HTML (the page reads ``location.search`` and renders with ``textContent``).

Threat model: the page runs a signed-in user's session in a WebView. The CSP admits
scripts, styles, fetches and images from its own origin only, forbids navigating form
submissions (a form falling back to a GET would put a password in a URL) and keeps the
page out of other sites' frames; ``no-referrer`` keeps its URL out of every request.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib import resources

from fastapi import FastAPI
from fastapi.responses import Response

__all__ = ["mount", "SECURITY_HEADERS", "CONTENT_SECURITY_POLICY", "WIDGET_FILES"]

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "form-action 'none'",
        "base-uri 'none'",
        "frame-ancestors 'self'",
    ]
)

SECURITY_HEADERS: dict[str, str] = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
    # Always revalidated: a new emulator version must not run an old widget module.
    "Cache-Control": "no-cache",
}

_JS = "text/javascript; charset=utf-8"

#: Served name -> media type. Anything else under /widget/ is a 404. Module
#: scripts need a JavaScript media type (``nosniff`` is strict about it).
WIDGET_FILES: dict[str, str] = {
    "index.html": "text/html; charset=utf-8",
    "widget.css": "text/css; charset=utf-8",
    "main.js": _JS,
    "state.js": _JS,
    "api.js": _JS,
    "dom.js": _JS,
    "session.js": _JS,
    "messages.js": _JS,
    "comments.js": _JS,
    "view.js": _JS,
}


def _endpoint(body: bytes, media_type: str) -> Callable[[], Awaitable[Response]]:
    async def serve() -> Response:
        return Response(body, media_type=media_type, headers=SECURITY_HEADERS)

    return serve


def mount(app: FastAPI) -> None:
    """Serve the widget page and its assets under ``/widget/``."""
    package = resources.files(__name__)
    for name, media_type in WIDGET_FILES.items():
        serve = _endpoint((package / name).read_bytes(), media_type)
        paths = ["/widget/", "/widget/index.html"] if name == "index.html" else [f"/widget/{name}"]
        for path in paths:
            app.add_api_route(path, serve, methods=["GET"], include_in_schema=False)
