"""Fixtures of the dashboard tests: a real emulator, a loopback receiver, a signed-in page.

The receiver is a tiny ASGI app on loopback whose answer the test flips
(``receiver.answer(400, "nope")``) to make deliveries fail or succeed; it keeps
every request it got. The emulator runs with retry schedule (0, 1, 2) so that
nothing waits for minutes, and the tests use logical 4xx answers (failed at
once, no retry) so that no test waits for a retry either.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from gcbridge.emulator.testing import RunningEmulator, running_emulator
from gcbridge.serving import BackgroundServer


@dataclass
class Receiver:
    """A webhook receiver whose answer the test controls."""

    status: int = 200
    body: bytes = b'{"ok": true}'
    requests: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""
    answered: int = 0  # requests whose answer was sent (with the status set at the time)

    def answer(self, status: int, body: str | bytes = b"") -> None:
        self.status = status
        self.body = body.encode() if isinstance(body, str) else body

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        chunks = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        self.requests.append({"path": scope["path"], "headers": headers, "body": b"".join(chunks)})
        await send(
            {
                "type": "http.response.start",
                "status": self.status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8")],
            }
        )
        await send({"type": "http.response.body", "body": self.body})
        self.answered += 1

    def wait_answered(self, count: int, timeout: float = 15.0) -> None:
        """Wait until ``count`` requests were answered (the test may then change the answer)."""
        deadline = time.monotonic() + timeout
        while self.answered < count:
            assert time.monotonic() < deadline, f"{self.answered} of {count} requests answered"
            time.sleep(0.02)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    rec = Receiver()
    with BackgroundServer(lambda port: rec) as server:
        rec.url = server.url + "/hooks/comments"
        yield rec


@pytest.fixture
def emu(tmp_path: Path) -> Iterator[RunningEmulator]:
    with running_emulator(tmp_path / "data", retry_schedule=(0, 1, 2)) as running:
        yield running


@pytest.fixture
def webhook(emu: RunningEmulator, receiver: Receiver) -> dict[str, Any]:
    """The demo site's webhook, pointed at the receiver, all four events."""
    answer = httpx.post(
        f"{emu.url}/webhook/website/{emu.site.website_id}/setup",
        headers={"Authorization": f"Bearer {emu.site.account_token}"},
        json={
            "url": receiver.url,
            "events": ["comment.created", "comment.updated", "comment.approved", "comment.deleted"],
        },
        timeout=10,
    )
    config: dict[str, Any] = answer.json()
    assert "gcCode" not in config, config
    return config


@pytest.fixture
def dashboard(page: Any, emu: RunningEmulator) -> Any:
    """A page signed in to the dashboard with the demo site's account token."""
    page.set_default_timeout(10_000)
    page.goto(emu.url + "/dashboard/")
    page.fill("#token-input", emu.site.account_token)
    page.click("#login-submit")
    page.wait_for_selector("#app:not([hidden])")
    return page
