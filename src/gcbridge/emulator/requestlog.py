"""The emulator's own request log and test hooks (``Settings.request_log``; off by default).

For browser engines that cannot intercept requests (WebKitGTK), the server records every
request it serves (method, URL, the headers a leak would travel in, the body, the answer's
status and ``error`` code) and obeys the hooks of :class:`RequestLog`. It holds bearer
tokens and ssoData in memory: for tests on loopback only.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any

from gcbridge.emulator.bodylimit import replay_receive

__all__ = ["LoggedRequest", "RequestLog", "RecordRequests", "Hold"]

_HEADERS = ("referer", "cookie", "origin", "user-agent", "authorization")
_BODY_LIMIT = 256 * 1024
_HOLD_LIMIT = 30.0
_DOWN_PAGE = b"<!doctype html><title>503 Service Unavailable</title><h1>Service Unavailable</h1>"


@dataclass
class LoggedRequest:
    """One request the emulator served (``done`` once its answer was sent)."""

    method: str
    url: str
    path: str
    headers: dict[str, str]
    body: str = ""
    status: int | None = None
    error: str | None = None
    done: bool = False
    at: float = field(default_factory=time.monotonic)


@dataclass
class Hold:
    """Answers held until :meth:`release` (or 30 s, so that a test cannot hang the server)."""

    matches: Callable[[LoggedRequest], bool]
    _released: threading.Event = field(default_factory=threading.Event)

    def release(self) -> None:
        """Let the held requests (and later ones) through."""
        self._released.set()

    @property
    def released(self) -> bool:
        """Whether :meth:`release` was called."""
        return self._released.is_set()


class RequestLog:
    """What :class:`RecordRequests` saw, and the hooks it obeys; see the module docstring."""

    def __init__(self) -> None:
        self.entries: list[LoggedRequest] = []
        self.holds: list[Hold] = []
        self.frame_origins: list[str] = []
        self.no_content_paths: list[str] = []
        self.unavailable_prefixes: list[str] = []
        self._lock = threading.Lock()

    # ---- reading -------------------------------------------------------------------

    def matching(self, predicate: Callable[[LoggedRequest], bool]) -> list[LoggedRequest]:
        """The entries for which ``predicate`` holds, oldest first."""
        with self._lock:
            return [entry for entry in self.entries if predicate(entry)]

    # ---- hooks ---------------------------------------------------------------------

    def hold(self, matches: Callable[[LoggedRequest], bool]) -> Hold:
        """Hold matching requests until the returned :class:`Hold` is released."""
        gate = Hold(matches)
        with self._lock:
            self.holds.append(gate)
        return gate

    @contextmanager
    def _while(self, hooks: list[str], value: str) -> Iterator[None]:
        with self._lock:
            hooks.append(value)
        try:
            yield
        finally:
            with self._lock:
                hooks.remove(value)

    def allow_frames(self, origin: str) -> AbstractContextManager[None]:
        """While inside, the widget page may frame ``origin`` (its CSP gets a ``frame-src``)."""
        return self._while(self.frame_origins, origin)

    def no_content(self, path: str) -> AbstractContextManager[None]:
        """While inside, requests for ``path`` are answered ``204 No Content`` (the app unasked)."""
        return self._while(self.no_content_paths, path)

    def unavailable(self, prefix: str) -> AbstractContextManager[None]:
        """While inside, paths starting with ``prefix`` are answered ``503`` (a server down)."""
        return self._while(self.unavailable_prefixes, prefix)

    def _down(self, path: str) -> bool:
        with self._lock:
            return any(path.startswith(prefix) for prefix in self.unavailable_prefixes)

    def _holds_for(self, entry: LoggedRequest) -> list[Hold]:
        with self._lock:
            self.entries.append(entry)
            return [gate for gate in self.holds if not gate.released and gate.matches(entry)]


class RecordRequests:
    """ASGI middleware: every HTTP request into ``log`` (a :class:`RequestLog`)."""

    def __init__(self, app: Any, log: RequestLog) -> None:
        self.app = app
        self.log = log

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = bool(message.get("more_body"))
        body = b"".join(chunks)
        entry = _entry(scope, body)
        for gate in self.log._holds_for(entry):
            deadline = time.monotonic() + _HOLD_LIMIT
            while not gate.released and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
        if entry.path in self.log.no_content_paths:
            entry.status, entry.done = 204, True
            await send({"type": "http.response.start", "status": 204, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        if self.log._down(entry.path):
            entry.status, entry.done = 503, True
            headers = [(b"content-type", b"text/html; charset=utf-8"), (b"retry-after", b"5")]
            await send({"type": "http.response.start", "status": 503, "headers": headers})
            await send({"type": "http.response.body", "body": _DOWN_PAGE})
            return

        answer: list[bytes] = []

        async def watch(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                entry.status = int(message["status"])
                message = self._with_frames(entry, message)
            elif message["type"] == "http.response.body":
                if sum(map(len, answer)) < _BODY_LIMIT:
                    answer.append(message.get("body", b""))
                if not message.get("more_body"):
                    # Done before the client has the last byte: whoever saw the answer sees it here.
                    entry.error = _error_code(b"".join(answer))
                    entry.done = True
            await send(message)

        try:
            await self.app(scope, replay_receive([body], None, receive), watch)
        finally:
            if not entry.done:
                entry.error = _error_code(b"".join(answer))
                entry.status = entry.status or 500
                entry.done = True

    def _with_frames(self, entry: LoggedRequest, message: dict[str, Any]) -> dict[str, Any]:
        origins = list(self.log.frame_origins)
        if not origins or not entry.path.startswith("/widget/"):
            return message
        sources = " ".join(origins)
        headers = []
        for name, value in message.get("headers", []):
            if name.lower() == b"content-security-policy":
                value = value + f"; frame-src {sources}".encode()
            headers.append((name, value))
        return {**message, "headers": headers}


def _entry(scope: dict[str, Any], body: bytes) -> LoggedRequest:
    headers: dict[str, str] = {}
    host = "{}:{}".format(*(scope.get("server") or ("", "")))
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").lower()
        if name in _HEADERS:
            headers[name] = raw_value.decode("latin-1")
        elif name == "host":
            host = raw_value.decode("latin-1")
    query = scope.get("query_string", b"").decode("latin-1")
    path = scope.get("path", "")
    url = f"{scope.get('scheme', 'http')}://{host}{path}" + (f"?{query}" if query else "")
    return LoggedRequest(
        method=scope.get("method", "GET"),
        url=url,
        path=path,
        headers=headers,
        body=body[:_BODY_LIMIT].decode("utf-8", "replace"),
    )


def _error_code(body: bytes) -> str | None:
    try:
        data = json.loads(body)
    except ValueError:
        return None
    error = data.get("error") if isinstance(data, dict) else None
    return error if isinstance(error, str) else None
