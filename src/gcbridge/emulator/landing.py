"""The emulator's front door: ``GET /`` leads to the dashboard; ``/docs`` and ``/redoc`` offline.

FastAPI's own API pages load Swagger UI and ReDoc from a CDN, so in an offline
CI job or on a plane ``/docs`` stayed blank. Here they load the same assets from
the pinned ``fastapi-offline`` package (in the ``emulator`` extra), served by
the emulator itself under ``/docs-static/``: nothing is fetched from elsewhere.
"""

from __future__ import annotations

from importlib.resources import files

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

__all__ = ["mount", "DASHBOARD_PATH", "DOCS_PATH", "STATIC_PATH"]

DASHBOARD_PATH = "/dashboard/"
DOCS_PATH = "/docs"
STATIC_PATH = "/docs-static"


def mount(app: FastAPI) -> None:
    """Add ``GET /`` (a redirect to the dashboard) and the offline ``/docs`` and ``/redoc``.

    Build ``app`` with ``docs_url=None, redoc_url=None`` so FastAPI's CDN pages are not there.
    """
    assets = str(files("fastapi_offline") / "static")
    app.mount(STATIC_PATH, StaticFiles(directory=assets), name="docs-static")
    title = app.title

    @app.get("/", include_in_schema=False)
    async def root() -> RedirectResponse:
        return RedirectResponse(DASHBOARD_PATH, status_code=307)

    @app.get(DOCS_PATH, include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root_path = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=f"{root_path}{app.openapi_url}",
            title=f"{title} - API",
            swagger_js_url=f"{root_path}{STATIC_PATH}/swagger-ui-bundle.js",
            swagger_css_url=f"{root_path}{STATIC_PATH}/swagger-ui.css",
            swagger_favicon_url=f"{root_path}{STATIC_PATH}/favicon.png",
        )

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root_path = request.scope.get("root_path", "")
        return get_redoc_html(
            openapi_url=f"{root_path}{app.openapi_url}",
            title=f"{title} - API",
            redoc_js_url=f"{root_path}{STATIC_PATH}/redoc.standalone.js",
            redoc_favicon_url=f"{root_path}{STATIC_PATH}/favicon.png",
            with_google_fonts=False,
        )
