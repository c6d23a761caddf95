"""The widget page at ``/widget/`` (spec 4.8, 5.1, 6.2): three static files, strict headers.

``index.html``, ``widget.js`` and ``widget.css`` sit beside this module and are
served as they are: no templating, so no query parameter ever reaches the HTML
(the page reads its thread from ``location.search`` and renders user content
with ``textContent``).

Threat model: the page runs a signed-in user's session in a WebView. The
Content-Security-Policy admits scripts, styles, fetches and images from the
page's own origin only (no inline script, no CDN, no plugins), forbids form
submissions that would navigate (``form-action 'none'``: a form falling back
to a GET would put a password in a URL) and keeps the page out of other
sites' frames. ``Referrer-Policy: no-referrer`` keeps the page URL out of
every request it makes.
"""

from __future__ import annotations

from dataclasses import dataclass
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
    # Always revalidated: a new emulator version must not run an old widget.js.
    "Cache-Control": "no-cache",
}

WIDGET_FILES: dict[str, str] = {
    "index.html": "text/html; charset=utf-8",
    "widget.js": "text/javascript; charset=utf-8",
    "widget.css": "text/css; charset=utf-8",
}


@dataclass(frozen=True)
class _Asset:
    body: bytes
    media_type: str

    def response(self) -> Response:
        return Response(self.body, media_type=self.media_type, headers=SECURITY_HEADERS)


def _load_assets() -> dict[str, _Asset]:
    package = resources.files(__name__)
    return {
        name: _Asset((package / name).read_bytes(), media_type)
        for name, media_type in WIDGET_FILES.items()
    }


def mount(app: FastAPI) -> None:
    """Serve the widget page and its two assets under ``/widget/``."""
    assets = _load_assets()
    index, script, style = assets["index.html"], assets["widget.js"], assets["widget.css"]

    @app.get("/widget/", include_in_schema=False)
    @app.get("/widget/index.html", include_in_schema=False)
    async def widget_page() -> Response:
        return index.response()

    @app.get("/widget/widget.js", include_in_schema=False)
    async def widget_script() -> Response:
        return script.response()

    @app.get("/widget/widget.css", include_in_schema=False)
    async def widget_style() -> Response:
        return style.response()
