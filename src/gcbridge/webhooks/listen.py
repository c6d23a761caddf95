"""``gcbridge webhooks listen``: a local receiver that verifies and pretty-prints deliveries.

Like the CLIs of the big webhook providers: point the emulator's webhook at
``http://127.0.0.1:PORT/`` (with ``--allow-private-receivers``), post a comment,
and watch each delivery arrive as VERIFIED or REJECTED with its reason. Every
path accepts POST, so any webhook URL on this host:port works. Answers: 200 on
success, 401 ``{"error": reason}`` per spec 5.3, 400 for an authentic non-event.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TextIO

from gcbridge.clock import SYSTEM_CLOCK, Clock
from gcbridge.webhooks.construct import construct_delivery
from gcbridge.webhooks.errors import WebhookError, WebhookPayloadError
from gcbridge.webhooks.signature import DEFAULT_TOLERANCE, DELIVERY_ID_HEADER, RETRY_COUNT_HEADER

__all__ = ["create_listen_app", "format_verified", "format_rejected", "excerpt"]

_EXCERPT = 60


def excerpt(text: str, limit: int = _EXCERPT) -> str:
    """One line of at most ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def format_verified(delivery: Any) -> str:
    """The line printed for a verified delivery."""
    event = delivery.event
    comment = event.data.comment
    retry = "?" if delivery.retry_count is None else delivery.retry_count
    return (
        f"VERIFIED  {event.event_type:<16} delivery={delivery.delivery_id or '-'} retry={retry} "
        f"comment={comment.id} by {comment.author.name!r} status={comment.status}: "
        f"{excerpt(comment.content)!r}"
    )


def format_rejected(reason: str, delivery_id: str | None, retry: str | None) -> str:
    """The line printed for a refused request."""
    return f"REJECTED  {reason:<20} delivery={delivery_id or '-'} retry={retry or '-'}"


def create_listen_app(
    secrets: str | bytes | Sequence[str | bytes],
    *,
    out: TextIO | Callable[[str], None] | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    clock: Clock = SYSTEM_CLOCK,
) -> Any:
    """A Starlette app that verifies every POST and reports each one to ``out``."""
    import sys

    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    if out is None:
        out = sys.stdout
    stream = out

    def emit(line: str) -> None:
        if callable(stream):
            stream(line)
        else:
            print(line, file=stream, flush=True)

    async def receive(request: Request) -> JSONResponse:
        body = await request.body()
        try:
            delivery = construct_delivery(
                secrets, body, request.headers, tolerance=tolerance, now=clock.now()
            )
        except WebhookError as exc:
            emit(
                format_rejected(
                    exc.reason,
                    request.headers.get(DELIVERY_ID_HEADER),
                    request.headers.get(RETRY_COUNT_HEADER),
                )
            )
            status = 400 if isinstance(exc, WebhookPayloadError) else 401
            return JSONResponse({"error": exc.reason, "message": str(exc)}, status_code=status)
        emit(format_verified(delivery))
        return JSONResponse({"ok": True})

    return Starlette(
        routes=[Route("/{path:path}", receive, methods=["POST"])],
    )
