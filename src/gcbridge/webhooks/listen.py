"""``gcbridge webhooks listen``: a local receiver that verifies and pretty-prints deliveries.

Every path accepts POST. Requests go through
:class:`~gcbridge.webhooks.receiver.WebhookReceiver`'s ``admit`` and ``settled`` steps, so
``listen`` answers exactly as a receiver built with the SDK; printing VERIFIED is the handling.

Threat model: anyone who can reach the port sends headers and bodies. Every
value printed from a request (header values, ids, names, content) goes through
:func:`printable`: control characters (ESC sequences that colour or move the
terminal, ``\r`` that rewrites a line into a forged "VERIFIED"), bidi controls
and other invisible characters are shown escaped, and lengths are bounded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from gcbridge.clock import SYSTEM_CLOCK, Clock
from gcbridge.webhooks.signature import (
    DEFAULT_MAX_BODY,
    DEFAULT_TOLERANCE,
    DELIVERY_ID_HEADER,
    RETRY_COUNT_HEADER,
)

if TYPE_CHECKING:
    from gcbridge.webhooks.delivery_log import DeliveryLog
    from gcbridge.webhooks.respond import Responder

__all__ = ["create_app", "format_verified", "format_rejected", "excerpt", "printable"]

_EXCERPT = 60
_FIELD = 80


def printable(text: object, limit: int = _FIELD) -> str:
    """``text`` safe for a terminal line: non-printable characters escaped, at most ``limit``."""
    value = str(text)
    if len(value) > limit:
        value = value[: limit - 1] + "…"
    if value.isprintable():
        return value
    # unicode_escape of the odd character only: ESC -> \x1b, U+202E -> \u202e.
    return "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in value
    )


def excerpt(text: str, limit: int = _EXCERPT) -> str:
    """One line of at most ``limit`` characters (whitespace runs become one space).

    Not escaped: show it with ``repr`` (as :func:`format_verified` does), or
    through :func:`printable`.
    """
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def format_verified(delivery: Any) -> str:
    """The line printed for a verified delivery."""
    event = delivery.event
    comment = event.data.comment
    retry = "?" if delivery.retry_count is None else delivery.retry_count
    name = excerpt(comment.author.name, _FIELD)
    return (
        f"VERIFIED  {event.event_type:<16} delivery={printable(delivery.delivery_id or '-')} "
        f"retry={retry} comment={printable(comment.id)} by {name!r} "
        f"status={printable(comment.status)}: {excerpt(comment.content)!r}"
    )


def format_rejected(
    reason: str, delivery_id: str | None, retry: str | None, *, verdict: str = "REJECTED"
) -> str:
    """The line printed for a request not processed: ``REJECTED``, ``SKIPPED`` (a duplicate, or
    the delivery log down) or ``SCRIPTED`` (``--respond``). The id and retry are the
    sender's, unchecked."""
    return (
        f"{verdict:<8}  {printable(reason):<20} delivery={printable(delivery_id or '-')} "
        f"retry={printable(retry or '-', 12)}"
    )


def create_app(
    secrets: str | bytes | Sequence[str | bytes],
    *,
    out: TextIO | Callable[[str], None] | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    clock: Clock = SYSTEM_CLOCK,
    delivery_log: DeliveryLog | None = None,
    respond: Responder | None = None,
    max_body: int = DEFAULT_MAX_BODY,
) -> Any:
    """A Starlette app that verifies every POST and reports each one to ``out``.

    With ``respond`` (``--respond``), each request takes the next scripted step;
    a step other than a plain 2xx is answered as scripted, before any check.
    """
    import sys

    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from gcbridge.webhooks.receiver import WebhookHTTPException, WebhookReceiver

    stream = sys.stdout if out is None else out

    def emit(line: str) -> None:
        if callable(stream):
            stream(line)
        else:
            print(line, file=stream, flush=True)

    receiver = WebhookReceiver(
        secrets, delivery_log=delivery_log, tolerance=tolerance, clock=clock, max_body=max_body
    )

    def rejected(reason: str, request: Request, verdict: str) -> str:
        sent = request.headers
        delivery_id, retry = sent.get(DELIVERY_ID_HEADER), sent.get(RETRY_COUNT_HEADER)
        return format_rejected(reason, delivery_id, retry, verdict=verdict)

    async def receive(request: Request) -> Any:
        if respond is not None and not (step := respond.next()).passes:
            # scripted: answered before any check, the body left unread (never past the cap)
            from gcbridge.webhooks.respond import perform

            emit(rejected(str(step), request, "SCRIPTED"))
            return await perform(step, request)
        try:
            delivery, claim = await receiver.admit(request)
        except WebhookHTTPException as exc:
            reason = str(
                exc.body.get("error") or ("duplicate" if exc.body.get("duplicate") else "-")
            )
            # answered but not processed: a duplicate (200), the delivery log down (503)
            verdict = "SKIPPED" if exc.status_code in (200, 503) else "REJECTED"
            emit(rejected(reason, request, verdict))
            return JSONResponse(exc.body, status_code=exc.status_code, headers=exc.headers)
        async with receiver.settled(claim):
            emit(format_verified(delivery))
        return JSONResponse({"ok": True})

    return Starlette(
        routes=[Route("/{path:path}", receive, methods=["POST"])],
    )
