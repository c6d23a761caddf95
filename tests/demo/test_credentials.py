"""The demo's backend does not hand out ssoData to anyone local.

Before the fix the app tokens were fixed (``app-token-alice``) and ``/app/login`` gave
any local caller a token for any demo user: with either, ``GET /sso-data`` answered
signed ssoData.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from gcbridge.demo.backend import (
    LOGIN_KEY_HEADER,
    DemoCredentials,
    ReceiverState,
    create_app,
)
from gcbridge.demo.timeline import Timeline
from gcbridge.serving import BackgroundServer

SECRET = "demo-credentials-sso-secret-0123"


@contextmanager
def _client(credentials: DemoCredentials) -> Iterator[httpx.Client]:
    app = create_app(SECRET, Timeline(), ReceiverState(), credentials)
    with BackgroundServer(lambda port: app) as server, httpx.Client(base_url=server.url) as http:
        yield http


def test_each_run_has_its_own_tokens_and_login_key() -> None:
    one, two = DemoCredentials.new(), DemoCredentials.new()
    assert [u.username for u in one.users] == ["alice", "bob"]
    tokens = {u.token for u in one.users} | {u.token for u in two.users}
    assert len(tokens) == 4 and all(len(t) >= 32 for t in tokens)
    assert one.login_key != two.login_key
    assert one.login_key not in repr(one) and one.users[0].token not in repr(one)


@pytest.mark.parametrize("token", ["app-token-alice", "app-token-bob"])
def test_the_old_fixed_tokens_get_no_sso_data(token: str) -> None:
    with _client(DemoCredentials.new()) as http:
        answer = http.get("/sso-data", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 401


@pytest.mark.parametrize("headers", [{}, {LOGIN_KEY_HEADER: "guess"}, {LOGIN_KEY_HEADER: ""}])
def test_app_login_without_the_runs_key_is_refused(headers: dict[str, str]) -> None:
    with _client(DemoCredentials.new()) as http:
        answer = http.post("/app/login", json={"username": "alice"}, headers=headers)
    assert answer.status_code == 401 and "token" not in answer.text


def test_the_demo_app_signs_in_with_the_runs_key_and_gets_sso_data() -> None:
    run = DemoCredentials.new()
    with _client(run) as http:
        answer = http.post(
            "/app/login", json={"username": "alice"}, headers={LOGIN_KEY_HEADER: run.login_key}
        )
        assert answer.status_code == 200
        token = answer.json()["token"]
        assert token == run.users[0].token
        sso = http.get("/sso-data", headers={"Authorization": f"Bearer {token}"})
    assert sso.status_code == 200 and sso.json()["ssoData"].count(" ") == 2


def test_the_harness_sample_users_have_no_fixed_token() -> None:
    from gcbridge_harness.world.backend import DEMO_USERS

    assert all(u.token not in ("app-token-alice", "app-token-bob") for u in DEMO_USERS)
    assert all(len(u.token) >= 32 for u in DEMO_USERS)
