"""Health without authentication and without secrets; every other control route behind the token."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import astuple

import pytest

from gcbridge import __version__
from tests.emulator.control.support import Client

CONTROL_ROUTES = [
    ("GET", "/_emulator/clock"),
    ("POST", "/_emulator/clock"),
    ("POST", "/_emulator/reset"),
    ("GET", "/_emulator/snapshots"),
    ("PUT", "/_emulator/snapshots/x"),
    ("POST", "/_emulator/snapshots/x/restore"),
]


def test_health_answers_without_a_token_and_carries_no_secret(client: Client) -> None:
    r = client.http.get("/_emulator/health")
    assert r.status_code == 200
    body = r.json()
    assert body["status"] == "ok" and body["version"] == __version__
    assert body["clock"]["mode"] == "manual" and isinstance(body["clock"]["now"], int)
    assert body["dispatcher"] == {"pending": 0, "next_due_at": None}
    for secret in (client.emu.admin_token, *astuple(client.site)[2:]):
        if len(secret) > 6:
            assert secret not in r.text


@pytest.mark.parametrize("method,path", CONTROL_ROUTES)
@pytest.mark.parametrize("auth", [None, "Bearer wrong-token", "Basic abc", "Bearer", "acct-token"])
def test_control_routes_need_the_admin_token(
    client: Client, method: str, path: str, auth: str | None
) -> None:
    headers = {} if auth is None else {"Authorization": auth}
    r = client.http.request(method, path, headers=headers, json={"action": "freeze"})
    assert r.status_code == 401
    assert r.json()["gcCode"] == 401 and r.json()["error"] == "admin_token_required"
    assert client.health()["clock"]["mode"] == "manual"


def test_the_account_token_is_not_an_admin_token(client: Client) -> None:
    r = client.http.post("/_emulator/reset", headers=client.account)
    assert r.json()["error"] == "admin_token_required"


def test_a_generated_token_is_private_and_kept_across_restarts(
    make_client: Callable[..., Client],
) -> None:
    first = make_client()
    path = first.emu.settings.data_dir / "admin-token"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert path.read_text().strip() == first.emu.admin_token
    assert len(first.emu.admin_token) >= 32
    second = make_client()  # same data dir
    assert second.emu.admin_token == first.emu.admin_token


def test_a_given_token_is_used_and_nothing_is_written(
    make_client: Callable[..., Client],
) -> None:
    client = make_client(admin_token="a-token-from-the-environment")
    assert client.emu.admin_token == "a-token-from-the-environment"
    assert not (client.emu.settings.data_dir / "admin-token").exists()
    assert client.control("GET", "/clock")["mode"] == "manual"
