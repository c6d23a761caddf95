"""The emulator dashboard at ``/dashboard/``: site, webhook configuration, delivery journal.

A static page (``static/``: ES modules from ``main.js`` on, no build step, nothing loaded
from elsewhere) on the emulator's public routes, plus two of its own: ``GET
/api/dashboard/site`` (the site of an account token) and the event catalog
(``events_api.py``). Data needs the account token, kept in ``sessionStorage``. The pages
carry a strict CSP (``'self'`` only), ``nosniff``, ``no-store`` and no framing; untrusted
text reaches the DOM through ``textContent`` only.
"""

from __future__ import annotations

from fastapi import FastAPI

from gcbridge.emulator.dashboard.api import router as api_router
from gcbridge.emulator.dashboard.events_api import router as events_router
from gcbridge.emulator.dashboard.pages import router as pages_router

__all__ = ["mount"]


def mount(app: FastAPI) -> None:
    """Add the dashboard's pages (``/dashboard/``) and its site-info route to ``app``."""
    app.include_router(pages_router)
    app.include_router(api_router)
    app.include_router(events_router)
