"""Helpers of the emulator's tests: an emulator on loopback, sign-in data."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any

import httpx

from gcbridge.emulator.db import Database
from gcbridge.emulator.state import EmulatorState


def make_sso_data(secret: str, user: dict[str, Any], ts: int) -> str:
    """ssoData in the contract's "gc" format, computed here, independently of gcbridge.sso."""
    message = base64.b64encode(json.dumps(user).encode("utf-8")).decode("ascii")
    signature = hmac.new(secret.encode(), f"{message} {ts}".encode(), hashlib.sha1).hexdigest()
    return f"{message} {signature} {ts}"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass
class Emu:
    """One running emulator: an httpx client on its base URL and its state."""

    http: httpx.Client
    state: EmulatorState
    url: str

    @property
    def db(self) -> Database:
        return self.state.db
