"""Helpers of the hardening battery: a live emulator, sign-in, ssoData by hand."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from gcbridge.clock import ManualClock
from gcbridge.emulator.testing import EXAMPLE_SITE, RunningEmulator, running_emulator

__all__ = ["NOW", "ACCOUNT", "WEBSITE_ID", "live", "register", "sso_data", "gc_error"]

NOW = 1_750_000_000.0
WEBSITE_ID = EXAMPLE_SITE.website_id
ACCOUNT = {"Authorization": f"Bearer {EXAMPLE_SITE.account_token}"}


def live(tmp_path: Path, **kw: Any) -> Iterator[tuple[RunningEmulator, httpx.Client]]:
    """A running emulator on a ManualClock, and a client on its base URL."""
    kw.setdefault("clock", ManualClock(NOW))
    with (
        running_emulator(tmp_path / "data", **kw) as emu,
        httpx.Client(base_url=emu.url, timeout=30) as http,
    ):
        yield emu, http


def register(http: httpx.Client, username: str, email: str = "u@example.com") -> httpx.Response:
    """``POST /api/pub/auth/register`` on the example site."""
    return http.post(
        "/api/pub/auth/register",
        json={
            "website_id": "demo",
            "username": username,
            "email": email,
            "password": "long-enough",
        },
    )


def sso_data(user: dict[str, Any], ts: float = NOW, secret: str = EXAMPLE_SITE.sso_secret) -> str:
    """ssoData in the "gc" format, built by hand (no SDK-side checks on the user)."""
    message = base64.b64encode(json.dumps(user).encode("utf-8")).decode("ascii")
    signature = hmac.new(secret.encode(), f"{message} {int(ts)}".encode(), hashlib.sha1).hexdigest()
    return f"{message} {signature} {int(ts)}"


def gc_error(resp: httpx.Response, status: int, reason: str | None = None) -> dict[str, Any]:
    """Assert an error answer in the gcCode shape (never FastAPI's ``{"detail": ...}``)."""
    assert resp.status_code == status, resp.text[:500]
    body: dict[str, Any] = resp.json()
    assert "detail" not in body, body
    assert body["gcCode"] == status and isinstance(body["message"], str), body
    if reason is not None:
        assert body["error"] == reason, body
    return body
