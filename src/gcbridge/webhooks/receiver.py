"""FastAPI integration: a dependency that hands your handler a verified, typed event.

::

    log = DeliveryLog.from_url("postgresql://...")  # or "deliveries.db", "redis://..."
    receiver = WebhookReceiver(secret, delivery_log=log)
    app = FastAPI(exception_handlers=receiver.exception_handlers)

    @app.post("/webhooks/gc")
    def handle(event: WebhookEvent = Depends(receiver)) -> dict[str, bool]:
        ...                      # runs only for authentic, fresh, first-time deliveries
        return {"ok": True}

A refusal never reaches the handler (401 ``{"error": reason}``, 400 for an authentic body that
is not an event, with ``exception_handlers`` installed). Duplicates, claims and outages:
docs/how-to/share-delivery-log.md, "Leases: what each instance does while a handler runs".

Use either ``Depends(receiver)`` (the event) or ``Depends(receiver.delivery)`` (event plus
delivery id, retry count, first-sent date) on a route, not both. Other frameworks (and
``gcbridge webhooks listen``) use the same two steps: :meth:`WebhookReceiver.admit` and
:meth:`WebhookReceiver.settled`.
"""

# No ``from __future__ import annotations``: FastAPI evaluates dependency
# annotations at runtime, in this module's namespace.

import logging
import math
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from gcbridge.clock import SYSTEM_CLOCK, Clock
from gcbridge.webhooks.construct import Delivery, construct_delivery
from gcbridge.webhooks.delivery_log import Claim, DeliveryLog
from gcbridge.webhooks.errors import (
    DeliveryLogUnavailable,
    EmulatorClockError,
    WebhookError,
    WebhookPayloadError,
)
from gcbridge.webhooks.events import WebhookEvent
from gcbridge.webhooks.signature import DEFAULT_MAX_BODY, DEFAULT_TOLERANCE, normalize_secrets

__all__ = [
    "WebhookReceiver",
    "WebhookHTTPException",
    "webhook_exception_handler",
    "UNAVAILABLE_RETRY_AFTER",
]

logger = logging.getLogger("gcbridge.webhooks")


class WebhookHTTPException(HTTPException):
    """Ends a webhook request before the handler: ``body`` is the JSON answer."""

    def __init__(
        self, status_code: int, body: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(status_code, detail=body, headers=headers)
        self.body = body


async def webhook_exception_handler(request: Request, exc: Exception) -> Response:
    """Render :class:`WebhookHTTPException` as its bare JSON ``body``."""
    assert isinstance(exc, WebhookHTTPException)
    return JSONResponse(exc.body, status_code=exc.status_code, headers=exc.headers)


UNAVAILABLE_RETRY_AFTER = 30
"""``Retry-After`` (seconds) answered while the delivery log (or the clock) is unavailable."""


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
        delivery, claim = await self.admit(request)
        async with self.settled(claim):
            yield delivery.event

    async def delivery(self, request: Request) -> AsyncIterator[Delivery]:
        """Dependency: the verified event with its delivery headers."""
        delivery, claim = await self.admit(request)
        async with self.settled(claim):
            yield delivery

    @asynccontextmanager
    async def settled(self, claim: Claim | None) -> AsyncIterator[None]:
        """Run the handling inside: the claim is completed if it returns, released if it raises."""
        log = self.delivery_log
        if log is None or claim is None:
            yield
            return
        try:
            yield
        except BaseException:
            # The handler failed: un-claim the id so the service's retry (same id,
            # fresh signature) is processed rather than skipped as a duplicate.
            await self._settle(log.release, claim)
            raise
        await self._settle(log.complete, claim)

    @staticmethod
    async def _settle(step: Callable[[Claim], bool], claim: Claim) -> None:
        try:
            done = await run_in_threadpool(step, claim)
        except DeliveryLogUnavailable:
            # The handler's outcome stands; the log writes the settlement before its
            # next call (or the lease runs out if this process stops first).
            logger.error("could not settle the claim of webhook delivery %s yet", claim.delivery_id)
            return
        if not done:
            logger.warning(
                "the claim of webhook delivery %s had run out and was taken over: "
                "left to the handler that holds it now",
                claim.delivery_id,
            )

    async def admit(self, request: Request) -> tuple[Delivery, Claim | None]:
        """Read, verify and claim a delivery: the delivery and the claim its handling holds.

        Raises :class:`WebhookHTTPException` (the answer) when the handler must
        not run; otherwise run it inside :meth:`settled` with the claim.
        """
        body = await self._read_body(request)
        claim: Claim | None = None
        try:
            delivery = construct_delivery(
                self._secrets,
                body,
                request.headers,
                tolerance=self.tolerance,
                now=await self._now(),
            )
            if self.delivery_log is not None:
                claim = await self._claim(self.delivery_log, delivery)
        except (DeliveryLogUnavailable, EmulatorClockError) as exc:
            logger.error("webhook delivery not processed: %s", exc)
            raise WebhookHTTPException(
                503,
                {"error": exc.reason, "message": "retry later"},
                {"Retry-After": str(UNAVAILABLE_RETRY_AFTER)},
            ) from None
        except WebhookError as exc:
            logger.warning("webhook delivery refused: %s", exc.reason)
            status_code = 400 if isinstance(exc, WebhookPayloadError) else 401
            raise WebhookHTTPException(
                status_code, {"error": exc.reason, "message": str(exc)}
            ) from None
        return delivery, claim

    async def _now(self) -> float:
        if self.clock is SYSTEM_CLOCK:
            return self.clock.now()
        return await run_in_threadpool(self.clock.now)

    @staticmethod
    async def _claim(log: DeliveryLog, delivery: Delivery) -> Claim | None:
        # Without a delivery id there is nothing to deduplicate on, but replays are
        # still refused (the log remembers the signature; nothing to settle).
        delivery_id = delivery.delivery_id
        claim = await run_in_threadpool(
            log.acquire, delivery_id, delivery.signature, delivery.timestamp_ms
        )
        claimed = claim.status
        if claimed == "duplicate":
            logger.info("webhook delivery %s already processed", delivery_id)
            raise WebhookHTTPException(200, {"duplicate": True, "delivery_id": delivery_id})
        if claimed == "in_flight":
            logger.info("webhook delivery %s is being handled elsewhere", delivery_id)
            raise WebhookHTTPException(
                503,
                {"error": "delivery_in_flight", "delivery_id": delivery_id},
                {"Retry-After": str(max(1, math.ceil(log.lease)))},
            )
        return claim if claim.held else None

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
