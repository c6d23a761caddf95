"""Helpers of the emulator's webhook tests.

``Receiver`` is a real HTTP server on loopback that records every delivery and
answers from a script; signatures are checked here with hashlib/hmac, not with
gcbridge's own ``sign``.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gcbridge.emulator.testing import EXAMPLE_SITE
from gcbridge.serving import BackgroundServer
from tests.emulator import http_api as emulator_http
from tests.emulator.http_api import EmulatorApi

# The ManualClock start of the webhook tests (a fixed instant in 2027).
START = 1_800_000_000.0


def hmac_hex(secret: str, timestamp: str, body: bytes) -> str:
    """The delivery signature, computed independently of the implementation."""
    return hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


def wait_until(predicate: Callable[[], Any], timeout: float = 15.0) -> Any:
    """Poll ``predicate`` until it returns something truthy (short real sleeps)."""
    deadline = time.monotonic() + timeout
    while not (result := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.01)
    return result


def bearer(token: str = EXAMPLE_SITE.account_token) -> dict[str, str]:
    """``Authorization: Bearer``, the example site's account token unless ``token``."""
    return emulator_http.bearer(token)


@dataclass
class Reply:
    """One scripted answer of the receiver."""

    status: int = 204
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    delay: float = 0.0
    before: Callable[[], Any] | None = None  # run (in a thread) before answering


@dataclass
class Delivery:
    """One request the receiver got."""

    headers: dict[str, str]
    body: bytes
    path: str


class Receiver:
    """A webhook receiver on loopback: ``url``, ``deliveries``, ``script``."""

    def __init__(self) -> None:
        self.deliveries: list[Delivery] = []
        self.script: list[Reply] = []

        async def hook(request: Request) -> Response:
            body = await request.body()
            self.deliveries.append(Delivery(dict(request.headers), body, request.url.path))
            reply = self.script.pop(0) if self.script else Reply()
            if reply.before is not None:
                await run_in_threadpool(reply.before)
            if reply.delay:
                await asyncio.sleep(reply.delay)
            return Response(reply.body, status_code=reply.status, headers=reply.headers)

        app = Starlette(routes=[Route("/hook", hook, methods=["POST"])])
        self.server = BackgroundServer(lambda port: app)

    @property
    def url(self) -> str:
        return self.server.url + "/hook"


class Api(EmulatorApi):
    """The emulator's HTTP API as the customer sees it."""

    def setup(self, url: str, events: list[str] | None = None) -> dict[str, Any]:
        return self.setup_webhook(url, events)

    def calls(self, **params: Any) -> dict[str, Any]:
        return self.list_calls(**params)

    def edit(self, comment_id: str, content: str) -> None:
        r = self.http.patch(
            f"/api/pub/comments/{comment_id}",
            json={"content": content},
            headers=bearer(self.session()),
        )
        assert r.status_code == 200, r.text

    def wait_settled(self, count: int = 1, timeout: float = 15.0) -> list[dict[str, Any]]:
        """Poll until ``count`` calls exist and none is pending; newest first."""
        deadline = time.monotonic() + timeout
        while True:
            calls = self.calls(limit=200)["calls"]
            if len(calls) >= count and all(c["status"] != "pending" for c in calls):
                return calls
            if time.monotonic() > deadline:
                raise AssertionError(f"calls did not settle: {calls}")
            time.sleep(0.01)
