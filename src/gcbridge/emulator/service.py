"""The emulator's FastAPI application: ``create_app(settings, *, clock, transport)``.

The top of the emulator: it imports every part and nothing imports it (but the CLI, the
demo and tests). No module-level globals: what a route needs hangs off
``app.state.emulator`` (:class:`~gcbridge.emulator.state.EmulatorState`). The default clock
becomes a :class:`ControlledClock` in ``settings.clock_mode`` (``/_emulator/clock`` moves
it); a clock passed in (a test's ``ManualClock``) is used as is and cannot be moved by route.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from gcbridge.clock import SYSTEM_CLOCK, Clock, Sleep
from gcbridge.emulator import dashboard, landing, widget
from gcbridge.emulator.api_examples import add_examples
from gcbridge.emulator.auth import accounts
from gcbridge.emulator.bodylimit import BodyLimit
from gcbridge.emulator.comments import routes as comments
from gcbridge.emulator.comments import threadload
from gcbridge.emulator.control import routes as control_routes
from gcbridge.emulator.control.clock import ControlledClock
from gcbridge.emulator.control.operations import Control
from gcbridge.emulator.control.token import load_or_create_admin_token
from gcbridge.emulator.datadir import secure_data_dir
from gcbridge.emulator.db import Database
from gcbridge.emulator.errors import ApiError
from gcbridge.emulator.requestlog import RecordRequests, RequestLog
from gcbridge.emulator.settings import Settings
from gcbridge.emulator.state import EmulatorState, state_of
from gcbridge.emulator.webhooks import routes as webhook_routes
from gcbridge.emulator.webhooks.dispatcher import Dispatcher
from gcbridge.emulator.webhooks.openapi import add_webhooks

__all__ = ["create_app", "EmulatorState", "state_of"]  # the last two re-exported from .state


def create_app(
    settings: Settings,
    *,
    clock: Clock = SYSTEM_CLOCK,
    sleep: Sleep | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    run_dispatcher: bool = True,
) -> FastAPI:
    """Build the emulator app. ``transport`` replaces the network for webhook deliveries."""

    secure_data_dir(settings.data_dir)
    db = Database(settings.db_path)
    secure_data_dir(settings.data_dir)  # the -wal and -shm files exist now
    if clock is SYSTEM_CLOCK:
        clock = ControlledClock("manual" if settings.clock_mode == "manual" else "system")
    dispatcher = Dispatcher(db, settings, clock=clock, sleep=sleep, transport=transport)
    state = EmulatorState(settings=settings, db=db, clock=clock, dispatcher=dispatcher)
    admin_token = settings.admin_token or load_or_create_admin_token(settings.data_dir)
    control = Control(settings, db, clock, dispatcher, admin_token)
    control.catch_up_clock()  # before the dispatcher journals anything at the clock's time

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if run_dispatcher:
            await dispatcher.start()
        try:
            yield
        finally:
            await dispatcher.stop()
            db.close()

    app = FastAPI(
        title="gc-bridge emulator",
        version="1.0",
        description=(
            "A local stand-in for the commenting service: "
            "thread-load, widget, SSO, comments, webhooks."
        ),
        lifespan=lifespan,
        docs_url=None,  # served offline by landing.mount
        redoc_url=None,
    )
    app.state.emulator = state
    _document_webhooks(app)
    app.state.control = control

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(
            {"gcCode": exc.gc_code, "error": exc.reason, "message": str(exc)},
            status_code=exc.status,
        )

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = [
            {
                "field": ".".join(str(p) for p in err.get("loc", ())[1:]),
                "message": err.get("msg", ""),
            }
            for err in exc.errors()
        ]
        summary = "; ".join(f"{p['field'] or 'body'}: {p['message']}" for p in problems)
        return JSONResponse(
            {"gcCode": 400, "error": "invalid_request", "message": summary, "problems": problems},
            status_code=400,
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        # FastAPI's own errors (unparseable body, unknown path, wrong method) in the
        # gcCode shape too, never {"detail": ...}.
        reason = _HTTP_REASONS.get(exc.status_code, "http_error")
        message = exc.detail if isinstance(exc.detail, str) else reason
        return JSONResponse(
            {"gcCode": exc.status_code, "error": reason, "message": message},
            status_code=exc.status_code,
            headers=getattr(exc, "headers", None),
        )

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    app.include_router(threadload.router)
    app.include_router(accounts.router)
    app.include_router(comments.router)
    app.include_router(webhook_routes.router)
    app.include_router(control_routes.router)
    widget.mount(app)
    dashboard.mount(app)
    landing.mount(app)  # GET / -> the dashboard; /docs and /redoc without a CDN
    if settings.request_log:
        app.state.request_log = RequestLog()
        app.add_middleware(RecordRequests, log=app.state.request_log)
    # Outermost: an oversized body is refused before anything (the request log too) reads it.
    app.add_middleware(BodyLimit)
    return app


def _document_webhooks(app: FastAPI) -> None:
    """``/openapi.json`` also carries the ``webhooks`` section (the event catalog) and
    an example of each route's answer (:mod:`gcbridge.emulator.api_examples`)."""
    routes_only = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = add_examples(add_webhooks(routes_only()))
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


_HTTP_REASONS = {
    400: "invalid_request",
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
}
