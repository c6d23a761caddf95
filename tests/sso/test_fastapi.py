"""sso_router: fresh ssoData per request, no-store, behind the app's own dependency."""

import contextlib

import httpx
import pytest
from fastapi import FastAPI, Header, HTTPException

from gcbridge.clock import ManualClock
from gcbridge.serving import BackgroundServer
from gcbridge.sso import SsoIssuer, SsoUser, SsoVerifier
from gcbridge.sso.fastapi import sso_router

SECRET = "sso-secret"


@contextlib.contextmanager
def serve(current_user, **kw):
    clock = ManualClock(start=1_700_000_000)
    app = FastAPI()
    app.include_router(
        sso_router(SsoIssuer(SECRET, clock=clock, allow_weak_secret=True), current_user, **kw)
    )
    with BackgroundServer(lambda port: app) as server, httpx.Client(base_url=server.url) as http:
        yield http, clock


def by_token(authorization: str = Header("")):
    if authorization != "Bearer ok":
        raise HTTPException(401, "sign in first")
    return {"id": 7, "username": "ada", "email": "ada@example.com"}


def test_signed_in_user_gets_fresh_verifiable_sso_data_never_cached():
    with serve(by_token) as (http, clock):
        first = http.get("/sso-data", headers={"Authorization": "Bearer ok"})
        clock.advance(5)
        second = http.get("/sso-data", headers={"Authorization": "Bearer ok"})
    assert first.status_code == 200
    assert first.headers["cache-control"] == "no-store"
    assert first.headers["pragma"] == "no-cache"
    assert list(first.json()) == ["ssoData"]
    assert first.json()["ssoData"] != second.json()["ssoData"]  # minted per request
    user = SsoVerifier(SECRET).verify(second.json()["ssoData"], now=1_700_000_005)
    assert user == SsoUser(id="7", username="ada", email="ada@example.com")


def test_app_dependency_refusal_is_401():
    with serve(by_token) as (http, _):
        response = http.get("/sso-data")
    assert response.status_code == 401
    assert "ssoData" not in response.text


def test_dependency_returning_none_is_401():
    with serve(lambda: None) as (http, _):
        assert http.get("/sso-data").status_code == 401


def test_custom_path_and_sso_user_instance():
    user = SsoUser(id="1", username="bob", email="bob@example.com", language="en")
    with serve(lambda: user, path="/api/me/sso") as (http, _):
        assert http.get("/sso-data").status_code == 404
        token = http.get("/api/me/sso").json()["ssoData"]
    assert SsoVerifier(SECRET).verify(token, now=1_700_000_000) == user


def test_unusable_user_record_is_a_500_without_echo():
    with serve(lambda: {"id": "1", "username": "x", "email": "secret-address"}) as (http, _):
        response = http.get("/sso-data")
    assert response.status_code == 500
    assert "secret-address" not in response.text
    assert response.headers["cache-control"] == "no-store"


@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_only_get(method):
    with serve(by_token) as (http, _):
        assert getattr(http, method)("/sso-data").status_code == 405
