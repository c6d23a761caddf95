"""Request body caps per route group (:data:`BODY_LIMITS`), enforced before a route reads anything.

A ``Content-Length`` over the cap is a 413 at once; a chunked body is buffered only up to
the cap. So no caller makes the emulator hold more than the cap before authentication or
validation runs. The caps are listed in docs/explanation/security.md, "The emulator".
Errors: 413 ``body_too_large``, 400 ``invalid_request`` (a ``Content-Length`` not a number).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["BODY_LIMITS", "DEFAULT_BODY_LIMIT", "BodyLimit", "limit_for", "replay_receive"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

BODY_LIMITS: tuple[tuple[str, int], ...] = (
    ("/api/pub/auth/", 16 * 1024),
    ("/api/pub/sso/", 32 * 1024),
    ("/api/pub/comments", 128 * 1024),
    ("/webhook/", 256 * 1024),
)
DEFAULT_BODY_LIMIT = 64 * 1024


def limit_for(path: str) -> int:
    """The body cap of the route group of ``path``, in bytes."""
    for prefix, limit in BODY_LIMITS:
        if path.startswith(prefix):
            return limit
    return DEFAULT_BODY_LIMIT


async def _answer(send: Send, status: int, reason: str, message: str) -> None:
    body = json.dumps({"gcCode": status, "error": reason, "message": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """``app = BodyLimit(app)``: refuse bodies over the cap of their route group with 413."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cap = limit_for(str(scope.get("path", "")))
        too_large = f"request body larger than {cap} bytes for this route"
        length: str | None = None
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                length = value.decode("latin-1")
        if length is not None:
            text = length.strip()
            if not (text.isascii() and text.isdigit()) or len(text) > 19:
                await _answer(send, 400, "invalid_request", "Content-Length: not a number")
                return
            if int(text) > cap:
                await _answer(send, 413, "body_too_large", too_large)
                return
        # Read the body (at most cap bytes), then hand it to the app as one message.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, replay_receive([], message, receive), send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > cap:
                await _answer(send, 413, "body_too_large", too_large)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        await self.app(scope, replay_receive(chunks, None, receive), send)


def replay_receive(chunks: list[bytes], pending: Message | None, receive: Receive) -> Receive:
    """A ``receive`` that yields the buffered body once, then defers to the server."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            if pending is not None:
                return pending
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        return await receive()

    return replay
