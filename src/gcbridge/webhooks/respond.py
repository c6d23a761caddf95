"""Scripted answers for ``gcbridge webhooks listen --respond STEPS``.

The steps (``500,429:retry-after=120,timeout,reset,200``, the last repeating):
docs/reference/emulator-control.md, "`gcbridge webhooks listen` options". Parsing is pure
(:func:`parse_steps`); :class:`Responder` hands out the steps in order, thread-safely.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import threading
from dataclasses import dataclass
from typing import Any, Literal

from gcbridge.webhooks.errors import RespondStepsError

__all__ = [
    "Step",
    "Responder",
    "RespondStepsError",
    "parse_steps",
    "perform",
    "sendable_status",
    "TIMEOUT_LIMIT",
]

StepKind = Literal["status", "timeout", "reset"]


@dataclass(frozen=True)
class Step:
    """One scripted answer."""

    kind: StepKind
    status: int | None = None
    retry_after: int | None = None

    @property
    def passes(self) -> bool:
        """Whether the listener answers as usual (a 2xx step without headers)."""
        return (
            self.kind == "status"
            and self.status is not None
            and 200 <= self.status <= 299
            and self.retry_after is None
        )

    def __str__(self) -> str:
        if self.kind != "status":
            return self.kind
        extra = f":retry-after={self.retry_after}" if self.retry_after is not None else ""
        return f"{self.status}{extra}"


def _digits(text: str, what: str, step: str) -> int:
    if not (text.isascii() and text.isdigit() and len(text) <= 10):
        raise RespondStepsError(f"--respond step {step!r}: {what} must be a whole number")
    return int(text)


def sendable_status(status: int) -> bool:
    """Whether ``status`` can be the final answer to a delivery (a POST).

    1xx are interim answers (the server still owes a final one) and 304 answers a
    conditional GET only: neither can end a request, so they are no step.
    """
    return 200 <= status <= 599 and status != 304


_BODYLESS = frozenset({204, 205, 304})
"""Statuses sent without a body (HTTP forbids or voids one)."""


def _step(text: str) -> Step:
    word = text.strip().lower()
    if word in ("timeout", "reset"):
        return Step(word)  # type: ignore[arg-type]
    code, sep, option = word.partition(":")
    status = _digits(code, "the status", text)
    if not sendable_status(status):
        raise RespondStepsError(
            f"--respond step {text!r}: a status is 200-599, but 304 (1xx and 304 cannot"
            " end a request)"
        )
    if not sep:
        return Step("status", status)
    name, eq, value = option.partition("=")
    if name.strip() != "retry-after" or not eq:
        raise RespondStepsError(f"--respond step {text!r}: the only option is retry-after=SECONDS")
    return Step("status", status, _digits(value.strip(), "retry-after", text))


def parse_steps(text: str) -> tuple[Step, ...]:
    """The steps of ``--respond``; raises :class:`RespondStepsError` with what is wrong."""
    parts = text.split(",")
    if not text.strip() or any(not p.strip() for p in parts):
        raise RespondStepsError(
            f"--respond {text[:60]!r}: comma-separated steps such as 500,429:retry-after=120,200"
        )
    return tuple(_step(p) for p in parts)


class Responder:
    """Hands out the steps in order, one per request; the last one repeats."""

    def __init__(self, steps: tuple[Step, ...]) -> None:
        if not steps:
            raise RespondStepsError("--respond: at least one step")
        self.steps = steps
        self._lock = threading.Lock()
        self._count = 0

    @classmethod
    def parse(cls, text: str) -> Responder:
        """A responder for ``--respond TEXT``."""
        return cls(parse_steps(text))

    def next(self) -> Step:
        """The step for the next request received."""
        with self._lock:
            index = min(self._count, len(self.steps) - 1)
            self._count += 1
            return self.steps[index]


TIMEOUT_LIMIT = 3600.0
"""The longest a ``timeout`` step holds a request open (the sender gives up long before)."""


async def perform(step: Step, request: Any) -> Any:
    """Answer ``request`` (a Starlette request, its body read or not) as ``step`` says.

    Returns the Starlette response to send; for ``timeout`` and ``reset`` the
    connection is already gone and the response is never sent.
    """
    from starlette.responses import JSONResponse, Response

    if step.kind == "timeout":
        await _wait_for_disconnect(request)
    elif step.kind == "reset":
        await _reset(request)
    headers = {} if step.retry_after is None else {"Retry-After": str(step.retry_after)}
    status = step.status or 599
    if status in _BODYLESS:
        return Response(status_code=status, headers=headers)
    return JSONResponse({"scripted": str(step)}, status_code=status, headers=headers)


async def _wait_for_disconnect(request: Any) -> None:
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(TIMEOUT_LIMIT):
            while (await request.receive())["type"] != "http.disconnect":
                pass


async def _reset(request: Any) -> None:
    # ASGI has no "close without an answer": reach the server's transport (uvicorn
    # keeps it on the request cycle that owns ``receive``), drop the connection with
    # SO_LINGER 0 (a TCP reset), and let the server notice before returning.
    transport = getattr(getattr(request.receive, "__self__", None), "transport", None)
    if transport is None:
        raise RuntimeError("reset: the server's connection cannot be reached (uvicorn only)")
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()
    for _ in range(3):
        await asyncio.sleep(0)
