"""One HTTP request with a total deadline and a size cap: the CLI does not trust its server.

httpx's timeouts bound each network operation, so a server that trickles one byte
every few seconds never trips them; :func:`bounded_request` bounds the whole
exchange with one deadline, and refuses an answer larger than ``max_bytes`` without
reading the rest. Redirects are never followed here: callers decide.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import httpx

from gcbridge.aio import run_sync
from gcbridge.errors import GcBridgeError

__all__ = ["Answer", "HttpProblem", "bounded_request", "MAX_ANSWER_BYTES"]

MAX_ANSWER_BYTES = 8 * 1024 * 1024
"""The largest answer a CLI client reads (8 MiB: a page of 200 calls is far below)."""


class HttpProblem(GcBridgeError):
    """The request did not complete: ``unreachable``, ``timeout`` or ``too_large``."""

    reason = "unreachable"


@dataclass(frozen=True)
class Answer:
    """What came back: status, headers (last value of each name), body and final URL."""

    status: int
    headers: dict[str, str]
    body: bytes
    url: str

    @property
    def is_redirect(self) -> bool:
        """A 3xx with a ``Location``."""
        return 300 <= self.status < 400 and "location" in self.headers

    def json_object(self) -> dict[str, Any] | None:
        """The body as a JSON object, or ``None`` if it is not one."""
        try:
            data = json.loads(self.body)
        except ValueError:
            return None
        return data if isinstance(data, dict) else None


async def _exchange(
    method: str,
    url: str,
    *,
    deadline: float,
    max_bytes: int,
    transport: Any,
    headers: list[tuple[str, str]] | dict[str, str] | None,
    **kw: Any,
) -> Answer:
    # One deadline for it all (``TimeoutError``): ``asyncio.timeout``, not ``wait_for``,
    # which on Python 3.11 loses a cancellation that lands as the answer completes.
    async with (
        asyncio.timeout(deadline),
        httpx.AsyncClient(transport=transport, timeout=deadline, follow_redirects=False) as client,
        client.stream(method, url, headers=headers, **kw) as response,
    ):
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            raise HttpProblem(
                f"{method} {url}: the answer is {int(declared)} bytes, over the cap of {max_bytes}",
                reason="too_large",
            )
        body = bytearray()
        # aiter_bytes counts decoded bytes: a small gzip bomb is cut off as early.
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > max_bytes:
                raise HttpProblem(
                    f"{method} {url}: the answer is over the cap of {max_bytes} bytes",
                    reason="too_large",
                )
        return Answer(
            status=response.status_code,
            headers={k.lower(): v for k, v in response.headers.items()},
            body=bytes(body),
            url=str(response.url),
        )


def bounded_request(
    method: str,
    url: str,
    *,
    deadline: float,
    max_bytes: int = MAX_ANSWER_BYTES,
    transport: Any = None,
    headers: list[tuple[str, str]] | dict[str, str] | None = None,
    **kw: Any,
) -> Answer:
    """``method url`` finished within ``deadline`` seconds in total, at most ``max_bytes``.

    ``kw`` goes to httpx (``params``, ``json``). Raises :class:`HttpProblem`.
    """
    try:
        return run_sync(
            _exchange,
            method,
            url,
            deadline=deadline,
            max_bytes=max_bytes,
            transport=transport,
            headers=headers,
            **kw,
        )
    except TimeoutError:
        raise HttpProblem(
            f"{method} {url}: no complete answer within {deadline:g}s", reason="timeout"
        ) from None
    except httpx.InvalidURL as exc:
        raise HttpProblem(
            f"{method} {url}: not a valid URL ({exc})", reason="unreachable"
        ) from None
    except httpx.HTTPError as exc:
        raise HttpProblem(
            f"cannot reach {url} ({type(exc).__name__})", reason="unreachable"
        ) from None
