"""Helpers of the emulator-control tests.

``Receiver`` is a real HTTP server on loopback that records every delivery and
answers from a script (the last reply repeating); ``Client`` is the emulator's
HTTP API as a test (or a customer's CI) drives it, admin token included (its
service routes are ``emulator_http.EmulatorApi``'s).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gcbridge.emulator.testing import RunningEmulator
from gcbridge.serving import BackgroundServer
from tests.emulator.http_api import EmulatorApi, bearer


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Got:
    headers: dict[str, str]
    body: bytes


class Receiver:
    """A receiver on loopback answering ``replies`` in order, the last one repeating."""

    def __init__(self, *replies: Reply) -> None:
        self.got: list[Got] = []
        self.replies = list(replies) or [Reply()]

        async def hook(request: Request) -> Response:
            self.got.append(Got(dict(request.headers), await request.body()))
            index = min(len(self.got), len(self.replies)) - 1
            reply = self.replies[index]
            return Response(b"{}", status_code=reply.status, headers=reply.headers)

        self.server = BackgroundServer(
            lambda port: Starlette(routes=[Route("/hook", hook, methods=["POST"])])
        )

    @property
    def url(self) -> str:
        return self.server.url + "/hook"

    def timestamps(self) -> list[int]:
        return [int(g.headers["x-webhook-timestamp"]) for g in self.got]

    def retry_counts(self) -> list[int]:
        return [int(g.headers["x-webhook-retry-count"]) for g in self.got]


class Client(EmulatorApi):
    """The emulator's routes: control (admin token) and the service's own."""

    def __init__(self, emu: RunningEmulator) -> None:
        super().__init__(emu, timeout=30)
        self.admin = bearer(emu.admin_token)

    def control(self, method: str, path: str, **kw: Any) -> dict[str, Any]:
        r = self.http.request(method, "/_emulator" + path, headers=self.admin, **kw)
        assert r.status_code == 200, r.text
        result: dict[str, Any] = r.json()
        return result

    def clock(self, **body: Any) -> dict[str, Any]:
        return self.control("POST", "/clock", json=body)

    def health(self) -> dict[str, Any]:
        r = self.http.get("/_emulator/health")
        assert r.status_code == 200, r.text
        result: dict[str, Any] = r.json()
        return result

    def setup(self, url: str) -> str:
        """Point the site's webhook at ``url``; returns the signing secret."""
        return str(self.setup_webhook(url)["secret"])

    def calls(self) -> list[dict[str, Any]]:
        calls: list[dict[str, Any]] = self.list_calls(limit=100)["calls"]
        return calls
