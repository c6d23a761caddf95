"""The emulator dashboard at ``/dashboard/``: site, webhook configuration, delivery journal.

A static page (``static/index.html``, ES modules from ``static/main.js`` on, ``dashboard.css``;
no build step, nothing loaded from elsewhere) that talks to the emulator's public routes
only — ``/webhook/...`` for the configuration, the journal and replays, the comment
and account routes for test events — plus routes of its own:
``GET /api/dashboard/site``, that turns an account token into the site it belongs
to, and the event catalog (``events_api.py``: the four event types, their JSON
Schemas, and the check the test events run on each body they caused). Everything
with data needs the account token, which the page keeps in
``sessionStorage``; without it the page shows nothing but the token form.

Security: the pages are served with a strict Content-Security-Policy (``'self'``
only, no inline script or style), ``nosniff``, ``no-store`` and no framing; the
script renders untrusted text (comment content, receiver responses) through
``textContent`` only.
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
