"""SSO login, sessions over HTTP and the service's own accounts.

The tests of this module share one emulator (and one manual clock); each uses
its own user names.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from gcbridge.clock import ManualClock
from gcbridge.emulator.testing import EXAMPLE_SITE, OTHER_SITE
from tests.emulator.core_support import Emu, bearer, make_sso_data

USER_KEYS = {"id", "external_id", "guest", "name", "username", "email", "avatar"}


def _error(resp: httpx.Response, status: int, reason: str) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    body: dict[str, Any] = resp.json()
    assert body["gcCode"] == status and body["error"] == reason
    return body


def _sso(client: httpx.Client, data: str, key: str = EXAMPLE_SITE.sso_public_key) -> httpx.Response:
    return client.post("/api/pub/sso/login", json={"api_public_key": key, "ssoData": data})


def _data(
    clock: ManualClock,
    sso_id: str,
    username: str,
    secret: str = EXAMPLE_SITE.sso_secret,
    **extra: Any,
) -> str:
    user = {"id": sso_id, "username": username, "email": f"{username}@example.com", **extra}
    return make_sso_data(secret, user, int(clock.now()))


@pytest.fixture
def ada(uniq: Callable[[str], str]) -> tuple[str, str]:
    """A fresh (SSO id, username) pair."""
    name = uniq("ada")
    return f"id-{name}", name


# --- SSO login ---------------------------------------------------------------------------


def test_sso_login_creates_the_user_and_a_session(
    emu: Emu, clock: ManualClock, ada: tuple[str, str]
) -> None:
    resp = _sso(emu.http, _data(clock, *ada, picture="https://cdn.example/ada.png", language="fr"))
    assert resp.status_code == 200
    assert resp.headers["cache-control"] == "no-store"
    body = resp.json()
    assert set(body) == {"token", "user"}
    user = body["user"]
    assert set(user) == USER_KEYS
    assert user["external_id"] == ada[0] and user["guest"] is False
    assert user["name"] == user["username"] == ada[1]
    assert user["email"] == f"{ada[1]}@example.com"
    assert user["avatar"] == "https://cdn.example/ada.png"
    me = emu.http.get("/api/pub/me", headers=bearer(body["token"]))
    assert me.status_code == 200 and me.json() == {"user": user}
    with emu.db.read() as conn:
        row = conn.execute(
            "SELECT site, language FROM users WHERE id = ?", (user["id"],)
        ).fetchone()
    assert tuple(row) == ("demo", "fr")


def test_sso_user_without_picture_gets_a_generated_avatar(
    emu: Emu, clock: ManualClock, ada: tuple[str, str]
) -> None:
    user = _sso(emu.http, _data(clock, *ada)).json()["user"]
    assert user["avatar"] == f"{emu.url}/api/pub/avatars/{user['id']}.svg"
    svg = emu.http.get(user["avatar"])
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert ">A</text>" in svg.text


def test_second_sso_login_updates_the_same_user(
    emu: Emu, clock: ManualClock, ada: tuple[str, str]
) -> None:
    first = _sso(emu.http, _data(clock, *ada)).json()["user"]
    clock.advance(60)
    renamed = ada[1] + "_l"
    second = _sso(emu.http, _data(clock, ada[0], renamed)).json()["user"]
    assert second["id"] == first["id"]
    assert (second["username"], second["name"], second["email"]) == (
        renamed,
        renamed,
        f"{renamed}@example.com",
    )
    with emu.db.read() as conn:
        count = conn.execute(
            "SELECT COUNT(*) FROM users WHERE external_id = ?", (ada[0],)
        ).fetchone()[0]
    assert count == 1


def test_expired_sso_data_is_a_401(emu: Emu, clock: ManualClock, ada: tuple[str, str]) -> None:
    data = _data(clock, *ada)
    clock.advance(300 + 30 + 1)
    _error(_sso(emu.http, data), 401, "sso_expired")


def test_sso_data_at_max_age_is_still_accepted(
    emu: Emu, clock: ManualClock, ada: tuple[str, str]
) -> None:
    data = _data(clock, *ada)
    clock.advance(300)
    assert _sso(emu.http, data).status_code == 200


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.replace(d.split(" ")[1], "0" * 40),  # signature replaced
        lambda d: "e30=" + d[d.index(" ") :],  # message swapped for {}
        lambda d: d.split(" ")[0],  # truncated
        lambda d: "",
        lambda d: "not ssoData at all",
    ],
    ids=["signature", "message", "truncated", "empty", "garbage"],
)
def test_tampered_sso_data_is_a_401(
    emu: Emu, clock: ManualClock, ada: tuple[str, str], mutate: Callable[[str], str]
) -> None:
    _error(_sso(emu.http, mutate(_data(clock, *ada))), 401, "sso_invalid")


def test_sso_data_signed_for_another_site_is_refused(
    emu: Emu, clock: ManualClock, ada: tuple[str, str]
) -> None:
    _error(_sso(emu.http, _data(clock, *ada, secret=OTHER_SITE.sso_secret)), 401, "sso_invalid")


def test_unknown_public_key_is_a_403(emu: Emu, clock: ManualClock, ada: tuple[str, str]) -> None:
    _error(_sso(emu.http, _data(clock, *ada), key="pk_nobody"), 403, "unknown_public_key")


def test_missing_body_fields_are_a_400(emu: Emu) -> None:
    _error(
        emu.http.post("/api/pub/sso/login", json={"api_public_key": "pk_demo"}),
        400,
        "invalid_request",
    )


def test_username_held_by_another_user_is_a_409(
    emu: Emu, clock: ManualClock, ada: tuple[str, str]
) -> None:
    assert _sso(emu.http, _data(clock, *ada)).status_code == 200
    shouted = ada[1].upper()
    body = _error(_sso(emu.http, _data(clock, "someone-else", shouted)), 409, "username_conflict")
    assert body["username"] == shouted
    with emu.db.read() as conn:  # nothing written for the refused login
        assert (
            conn.execute("SELECT 1 FROM users WHERE external_id = 'someone-else'").fetchone()
            is None
        )
    assert _sso(emu.http, _data(clock, "someone-else", ada[1] + "2")).status_code == 200


def test_same_username_on_another_site_is_no_conflict(
    emu: Emu, clock: ManualClock, ada: tuple[str, str]
) -> None:
    assert _sso(emu.http, _data(clock, *ada)).status_code == 200
    other = _data(clock, *ada, secret=OTHER_SITE.sso_secret)
    assert _sso(emu.http, other, key=OTHER_SITE.sso_public_key).status_code == 200


def test_sso_data_is_never_echoed_or_logged(
    emu: Emu, clock: ManualClock, ada: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    good = _data(clock, *ada)
    conflicting = _data(clock, "another-" + ada[0], ada[1])
    tampered = good[:-3] + "999"
    texts = [
        _sso(emu.http, good).text,
        _sso(emu.http, conflicting).text,
        _sso(emu.http, tampered).text,
    ]
    clock.advance(1000)
    texts.append(_sso(emu.http, good).text)
    for data in (good, conflicting, tampered):
        for part in data.split(" ")[:2]:
            assert all(part not in t for t in texts)
            assert part not in caplog.text


# --- sessions over HTTP ------------------------------------------------------------------


def test_me_without_or_with_a_bad_token(emu: Emu) -> None:
    _error(emu.http.get("/api/pub/me"), 401, "auth_required")
    _error(emu.http.get("/api/pub/me", headers=bearer("nonsense")), 401, "invalid_session")
    _error(
        emu.http.get("/api/pub/me", headers={"Authorization": "Basic eDp5"}), 401, "auth_required"
    )


def test_session_survives_a_restart_and_expires_with_max_age(
    make_emu: Callable[..., Emu], clock: ManualClock, ada: tuple[str, str]
) -> None:
    first = make_emu(session_max_age=600)
    token = _sso(first.http, _data(clock, *ada)).json()["token"]
    second = make_emu(session_max_age=600)  # same data dir: same session key and database
    assert (
        second.http.get("/api/pub/me", headers=bearer(token)).json()["user"]["username"] == ada[1]
    )
    clock.advance(601)
    _error(second.http.get("/api/pub/me", headers=bearer(token)), 401, "invalid_session")


def test_logout_revokes_the_token(emu: Emu, clock: ManualClock, ada: tuple[str, str]) -> None:
    token = _sso(emu.http, _data(clock, *ada)).json()["token"]
    other = _sso(emu.http, _data(clock, *ada)).json()["token"]
    assert emu.http.post("/api/pub/auth/logout", headers=bearer(token)).status_code == 204
    _error(emu.http.get("/api/pub/me", headers=bearer(token)), 401, "invalid_session")
    assert emu.http.get("/api/pub/me", headers=bearer(other)).status_code == 200
    assert (
        emu.http.post("/api/pub/auth/logout", headers=bearer(token)).status_code == 204
    )  # idempotent
    _error(emu.http.post("/api/pub/auth/logout"), 401, "auth_required")


# --- own accounts ------------------------------------------------------------------------

PASSWORD = "hunter2!!"


def _register(client: httpx.Client, username: str, **kw: str) -> httpx.Response:
    body = {
        "website_id": "demo",
        "username": username,
        "email": f"{username}@example.com",
        "password": PASSWORD,
    }
    return client.post("/api/pub/auth/register", json={**body, **kw})


def _login(client: httpx.Client, username: str, password: str = PASSWORD) -> httpx.Response:
    return client.post(
        "/api/pub/auth/login",
        json={"website_id": "demo", "username": username, "password": password},
    )


def test_register_signs_in_and_login_works(emu: Emu, uniq: Callable[[str], str]) -> None:
    name = uniq("grace")
    resp = _register(emu.http, name)
    assert resp.status_code == 201
    user = resp.json()["user"]
    assert set(user) == USER_KEYS and user["external_id"] is None and user["username"] == name
    assert emu.http.get("/api/pub/me", headers=bearer(resp.json()["token"])).json()["user"] == user
    login = _login(emu.http, name)
    assert login.status_code == 200 and login.json()["user"] == user
    with emu.db.read() as conn:
        stored = conn.execute(
            "SELECT password_hash FROM users WHERE id = ?", (user["id"],)
        ).fetchone()[0]
    assert PASSWORD not in stored and stored.startswith("scrypt$")


def test_bad_credentials(
    emu: Emu, clock: ManualClock, uniq: Callable[[str], str], ada: tuple[str, str]
) -> None:
    name = uniq("grace")
    _register(emu.http, name)
    _sso(emu.http, _data(clock, *ada))
    _error(_login(emu.http, name, "wrong-password"), 401, "bad_credentials")
    _error(_login(emu.http, uniq("nobody")), 401, "bad_credentials")
    _error(_login(emu.http, ada[1]), 401, "bad_credentials")  # an SSO user has no password


def test_username_taken_ignores_case_and_includes_sso_users(
    emu: Emu, clock: ManualClock, uniq: Callable[[str], str], ada: tuple[str, str]
) -> None:
    name = uniq("grace")
    assert _register(emu.http, name).status_code == 201
    _error(_register(emu.http, name.upper()), 409, "username_taken")
    _sso(emu.http, _data(clock, *ada))
    _error(_register(emu.http, ada[1]), 409, "username_taken")
    assert _register(emu.http, name, website_id="other").status_code == 201  # per site


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("username", "a"),
        ("username", "has space"),
        ("username", "-dash"),
        ("email", "no-at"),
        ("password", "short"),
    ],
)
def test_register_validates_its_input(emu: Emu, field: str, value: str) -> None:
    kw = {"username": "valid_name", field: value}
    body = _error(_register(emu.http, **kw), 400, "invalid_parameter")
    assert body["message"].startswith(f"{field}:")


def test_register_on_an_unknown_site_is_a_404(emu: Emu) -> None:
    _error(_register(emu.http, "someone", website_id="nope"), 404, "unknown_site")
