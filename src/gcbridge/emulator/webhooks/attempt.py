"""One HTTP attempt of a webhook delivery: the signed request, the send, the answer read."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from gcbridge.clock import utc_iso
from gcbridge.emulator.webhooks.schedule import parse_retry_after
from gcbridge.emulator.webhooks.ssrf import Target, pin_request
from gcbridge.webhooks.signature import delivery_headers

__all__ = ["AttemptResult", "build_request", "send_attempt", "keep_location"]

_LOCATION = "gcbridge.location"  # where keep_location puts a 30x's Location aside


@dataclass(frozen=True)
class AttemptResult:
    """What one attempt got: a status or an error, and what the journal keeps of the answer."""

    status: int | None
    error: str | None
    location: str | None = None  # the Location of a 30x (not followed)
    body: str | None = None  # the answer's first bytes, decoded leniently
    retry_after: float | None = None  # seconds, from a Retry-After header
    duration_ms: float = 0.0


def build_request(
    client: httpx.AsyncClient,
    target: Target,
    *,
    secret: str,
    body: bytes,
    delivery_id: str,
    number: int,
    first_sent_at: float,
    now: float,
) -> tuple[httpx.Request, dict[str, str]]:
    """The signed, pinned POST of attempt ``number``, and its headers exactly as sent."""
    timestamp_ms = int(now * 1000)
    url, pin_headers, extensions = pin_request(target)
    headers = delivery_headers(
        secret,
        body,
        timestamp_ms=timestamp_ms,
        delivery_id=delivery_id,
        retry_count=number,
        first_sent_at=utc_iso(first_sent_at),
    )
    headers.update(pin_headers)
    request = client.build_request(
        "POST", url, content=body, headers=headers, extensions=extensions
    )
    sent = {k.decode("latin-1"): v.decode("latin-1") for k, v in request.headers.raw}
    return request, sent


def _is_redirect(status: int) -> bool:
    return 300 <= status <= 399


async def keep_location(response: httpx.Response) -> None:
    """A response hook of the dispatcher's clients: a 30x's ``Location`` is set aside, unparsed.

    A redirect is never followed (docs/explanation/service.md#webhooks: a 30x fails the
    call as ``redirect``), but httpx parses the ``Location`` of every 30x to prepare the
    next request, and one it cannot parse (``javascript:``, ``mailto:``, ``http://[::1``)
    raises a transport error: the 30x would be journaled as a network error and retried.
    Taken off the headers here, the text is journaled as it came.
    """
    if _is_redirect(response.status_code) and "location" in response.headers:
        response.extensions[_LOCATION] = response.headers["location"]
        del response.headers["location"]


async def send_attempt(
    client: httpx.AsyncClient,
    request: httpx.Request,
    *,
    timeout: float,
    body_limit: int,
    now: Callable[[], float],
) -> AttemptResult:
    """Send ``request``; ``timeout`` bounds the whole attempt, answer included."""
    t0 = time.perf_counter()
    try:
        async with asyncio.timeout(timeout):
            response = await client.send(request, stream=True)
            try:
                chunks = bytearray()
                async for chunk in response.aiter_bytes():
                    chunks += chunk
                    if len(chunks) >= body_limit:
                        break  # the rest is never read: a huge answer costs nothing
            finally:
                await response.aclose()
    except (TimeoutError, httpx.TimeoutException):
        return AttemptResult(None, "timeout", duration_ms=_ms(t0))
    except httpx.ConnectError:
        return AttemptResult(None, "connect_error", duration_ms=_ms(t0))
    except (httpx.TransportError, httpx.InvalidURL, ValueError) as exc:
        # ValueError: e.g. the IDNA codec on a host name; a network error, retried.
        return AttemptResult(None, f"network_error:{type(exc).__name__}", duration_ms=_ms(t0))
    status = response.status_code
    redirect = _is_redirect(status)
    raw_retry = response.headers.get("retry-after")
    location = response.extensions.get(_LOCATION, response.headers.get("location"))
    return AttemptResult(
        status=status,
        error="redirect" if redirect else None,
        location=location if redirect else None,
        body=bytes(chunks[:body_limit]).decode("utf-8", "replace"),
        retry_after=parse_retry_after(raw_retry, now()) if raw_retry else None,
        duration_ms=_ms(t0),
    )


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)
