"""The emulator dashboard at ``/dashboard/``: site, webhook configuration, delivery journal.

A static page (``static/``, headers in ``pages.py``) on the emulator's public routes, plus
its own (``api.py``): ``GET /api/dashboard/site`` and the event catalog.
"""

from __future__ import annotations

from fastapi import FastAPI

from gcbridge.emulator.dashboard.api import router as api_router
from gcbridge.emulator.dashboard.pages import router as pages_router

__all__ = ["mount"]


def mount(app: FastAPI) -> None:
    """Add the dashboard's pages (``/dashboard/``) and its site-info route to ``app``."""
    app.include_router(pages_router)
    app.include_router(api_router)
