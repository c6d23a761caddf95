"""FastAPI integration: a dependency that hands your handler a verified, typed event.

::

    receiver = WebhookReceiver(secret, delivery_log=DeliveryLog("deliveries.db"))
    app = FastAPI(exception_handlers=receiver.exception_handlers)

    @app.post("/webhooks/gc")
    def handle(event: WebhookEvent = Depends(receiver)) -> dict[str, bool]:
        ...                      # runs only for authentic, fresh, first-time deliveries
        return {"ok": True}

Design:

- The dependency reads the **raw** body (bounded by ``max_body``), verifies it
  (spec 5.3) and parses it. A refusal never reaches the handler: it raises
  :class:`WebhookHTTPException`, answered 401 ``{"error": reason}`` (400 for an
  authentic body that is not an event) when ``exception_handlers`` are installed,
  or FastAPI's ``{"detail": {...}}`` with the same status otherwise.
- With a :class:`~gcbridge.webhooks.delivery_log.DeliveryLog`, a delivery id
  already processed is answered ``200 {"duplicate": true}`` and the handler is
  skipped; a signature already accepted under another delivery id (a captured
  request replayed) is answered 401 ``replayed_signature``. The id is claimed
  atomically *before* the handler runs (so a retry arriving right after the
  answer is already known) and released again if the handler **raises**: the
  service's retry (same id, new signature) is then processed. Signal failure by
  raising, answer quickly (spec 6.1), and keep handlers idempotent: delivery is
  at least once.
- Use either ``Depends(receiver)`` (the event) or ``Depends(receiver.delivery)``
  (event plus delivery id, retry count, first-sent date) on a route, not both.
"""

# No ``from __future__ import annotations``: FastAPI evaluates dependency
# annotations at runtime, in this module's namespace.

import logging
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse, Response

from gcbridge.clock import SYSTEM_CLOCK, Clock
from gcbridge.webhooks.construct import Delivery, construct_delivery
from gcbridge.webhooks.delivery_log import DeliveryLog
from gcbridge.webhooks.errors import WebhookError, WebhookPayloadError
from gcbridge.webhooks.events import WebhookEvent
from gcbridge.webhooks.signature import DEFAULT_TOLERANCE, normalize_secrets

__all__ = ["WebhookReceiver", "WebhookHTTPException", "webhook_exception_handler"]

logger = logging.getLogger("gcbridge.webhooks")

DEFAULT_MAX_BODY = 1024 * 1024
"""Largest body read before verifying (a comment event is a few KiB)."""


class WebhookHTTPException(HTTPException):
    """Ends a webhook request before the handler: ``body`` is the JSON answer."""

    def __init__(self, status_code: int, body: dict[str, Any]) -> None:
        super().__init__(status_code, detail=body)
        self.body = body


async def webhook_exception_handler(request: Request, exc: Exception) -> Response:
    """Render :class:`WebhookHTTPException` as its bare JSON ``body``."""
    assert isinstance(exc, WebhookHTTPException)
    return JSONResponse(exc.body, status_code=exc.status_code)


Handler = Callable[[Request, Exception], Coroutine[Any, Any, Response]]


class WebhookReceiver:
    """A FastAPI dependency verifying deliveries with one or more secrets (rotation)."""

    def __init__(
        self,
        secrets: str | bytes | Sequence[str | bytes],
        *,
        delivery_log: DeliveryLog | None = None,
        tolerance: float = DEFAULT_TOLERANCE,
        clock: Clock = SYSTEM_CLOCK,
        max_body: int = DEFAULT_MAX_BODY,
    ) -> None:
        self._secrets = normalize_secrets(secrets)
        if delivery_log is not None and delivery_log.tolerance < tolerance:
            raise ValueError(
                "the delivery log must remember signatures at least as long as the tolerance"
            )
        self.delivery_log = delivery_log
        self.tolerance = tolerance
        self.clock = clock
        self.max_body = max_body

    def __repr__(self) -> str:
        return (
            f"WebhookReceiver(secrets=<{len(self._secrets)} hidden>, tolerance={self.tolerance:g})"
        )

    def rotate(self, secrets: str | bytes | Sequence[str | bytes]) -> None:
        """Replace the accepted secrets (e.g. new and old during a rotation)."""
        self._secrets = normalize_secrets(secrets)

    @property
    def exception_handlers(self) -> dict[Any, Handler]:
        """Pass to ``FastAPI(exception_handlers=...)`` for bare ``{"error": ...}`` bodies."""
        return {WebhookHTTPException: webhook_exception_handler}

    def install(self, app: FastAPI) -> None:
        """Register :attr:`exception_handlers` on an existing app."""
        for exc_class, handler in self.exception_handlers.items():
            app.add_exception_handler(exc_class, handler)

    async def __call__(self, request: Request) -> AsyncIterator[WebhookEvent]:
        """Dependency: the verified event (see the module docstring for the answers)."""
        delivery = await self._admit(request)
        with self._released_on_error(delivery):
            yield delivery.event

    async def delivery(self, request: Request) -> AsyncIterator[Delivery]:
        """Dependency: the verified event with its delivery headers."""
        delivery = await self._admit(request)
        with self._released_on_error(delivery):
            yield delivery

    @contextmanager
    def _released_on_error(self, delivery: Delivery) -> Iterator[None]:
        try:
            yield
        except BaseException:
            # The handler failed: un-claim the id so the service's retry (same id,
            # fresh signature) is processed rather than skipped as a duplicate.
            if self.delivery_log is not None and delivery.delivery_id is not None:
                self.delivery_log.release(delivery.delivery_id)
            raise

    async def _admit(self, request: Request) -> Delivery:
        body = await self._read_body(request)
        try:
            delivery = construct_delivery(
                self._secrets,
                body,
                request.headers,
                tolerance=self.tolerance,
                now=self.clock.now(),
            )
            log = self.delivery_log
            if log is not None and delivery.delivery_id is not None:
                claimed = log.claim(delivery.delivery_id, delivery.signature, delivery.timestamp_ms)
                if claimed == "duplicate":
                    logger.info("webhook delivery %s already processed", delivery.delivery_id)
                    raise WebhookHTTPException(
                        200, {"duplicate": True, "delivery_id": delivery.delivery_id}
                    )
            elif log is not None:  # no id to deduplicate on; still refuse replays
                log.check(None, delivery.signature, delivery.timestamp_ms)
        except WebhookError as exc:
            logger.warning("webhook delivery refused: %s", exc.reason)
            status_code = 400 if isinstance(exc, WebhookPayloadError) else 401
            raise WebhookHTTPException(
                status_code, {"error": exc.reason, "message": str(exc)}
            ) from None
        return delivery

    async def _read_body(self, request: Request) -> bytes:
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_body:
            raise WebhookHTTPException(413, {"error": "body_too_large"})
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > self.max_body:
                raise WebhookHTTPException(413, {"error": "body_too_large"})
            chunks.append(chunk)
        body = b"".join(chunks)
        # Starlette's Request.body() returns ``_body`` when present, so a handler
        # that also asks for the raw body still gets it after our streamed read.
        request._body = body
        return body
