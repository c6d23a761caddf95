"""ssoData that must not sign anybody in: no key, wrong key, expired, tampered
(docs/reference/wire-formats.md#ssodata)."""

from __future__ import annotations

import base64
import json
import time

import pytest

pytestmark = pytest.mark.browser

LOGIN = "/api/pub/sso/login"


def test_missing_api_public_key_is_silently_ignored(native_app, customer_backend, injection_point):
    user = customer_backend.new_user("nokey")
    app = native_app(injection_point, user=user, api_public_key=None)
    app.widget.expect_loaded()
    app.wait_for(lambda: len(app.injected) >= 1, "the app's injection")
    app.settle()

    assert app.injected, "the app injected ssoData"
    assert all(injection.error is None for injection in app.injected)
    assert app.requests_to(LOGIN) == [], "sso-login without api_public_key made a request"
    assert app.console == [], "sso-login without api_public_key must be silent"
    app.widget.expect_signed_out()
    # Without SSO the widget offers the service's own accounts.
    assert app.widget.accounts_offered()
    app.finish()


def test_wrong_api_public_key(native_app, customer_backend, injection_point):
    user = customer_backend.new_user("wrongkey")
    app = native_app(injection_point, user=user, api_public_key="pk_not_a_site_key")
    app.wait_for(lambda: len(app.login_responses) >= 1, "a login answer")
    app.settle()

    assert {(r.status, r.error) for r in app.login_responses} == {(403, "unknown_public_key")}
    app.widget.expect_signed_out()
    assert any(kind == "warning" for kind, _ in app.console), "a failed login warns on the console"
    assert app.events("gc-sso-conflict") == []
    assert "gc_token" not in app.local_storage()
    app.finish()


def test_expired_sso_data(native_app, customer_backend, emulator, injection_point):
    from gcbridge.sso import SsoIssuer

    issuer = SsoIssuer(emulator.site.sso_secret, allow_weak_secret=True)
    # The browser runs on real time: ssoData issued 400 s ago is past 300 s + 30 s leeway.
    stale = lambda user: issuer.issue(user.sso_claims(), now=time.time() - 400)  # noqa: E731
    app = native_app(injection_point, user=customer_backend.new_user("expired"), sso_provider=stale)
    app.wait_for(lambda: len(app.login_responses) >= 1, "a login answer")
    app.settle()

    assert {(r.status, r.error) for r in app.login_responses} == {(401, "sso_expired")}
    app.widget.expect_signed_out()
    assert any(kind == "warning" for kind, _ in app.console)
    assert "gc_token" not in app.local_storage()
    app.finish()


def _flip_signature(sso_data: str) -> str:
    message, signature, timestamp = sso_data.split(" ")
    flipped = ("0" if signature[0] != "0" else "1") + signature[1:]
    return f"{message} {flipped} {timestamp}"


def _swap_username(sso_data: str) -> str:
    message, signature, timestamp = sso_data.split(" ")
    claims = json.loads(base64.b64decode(message))
    claims["username"] = "someone-else"
    forged = base64.b64encode(json.dumps(claims).encode()).decode()
    return f"{forged} {signature} {timestamp}"


@pytest.mark.parametrize("tamper", [_flip_signature, _swap_username], ids=["signature", "payload"])
def test_tampered_sso_data(native_app, customer_backend, injection_point, tamper):
    def tampered(user):
        return tamper(customer_backend.fetch_sso_data(user))

    app = native_app(
        injection_point, user=customer_backend.new_user("tampered"), sso_provider=tampered
    )
    app.wait_for(lambda: len(app.login_responses) >= 1, "a login answer")
    app.settle()

    assert {(r.status, r.error) for r in app.login_responses} == {(401, "sso_invalid")}
    app.widget.expect_signed_out()
    assert any(kind == "warning" for kind, _ in app.console)
    assert "gc_token" not in app.local_storage()
    app.finish()


def test_conflict_resolved_with_corrected_username(
    native_app, customer_backend, service, injection_point
):
    # Someone else already holds the username the app's user asks for.
    holder = customer_backend.new_user("taken")
    service.session_token(customer_backend.fetch_sso_data(holder))
    wanted = holder.username
    user = customer_backend.users.add(
        id=f"second-{holder.id}", username=wanted, email=f"2-{holder.email}"
    )
    asked: list[str] = []

    def resolve(username: str) -> str:
        asked.append(username)
        return username + "-2"

    app = native_app(injection_point, user=user, on_conflict=resolve)
    app.widget.expect_signed_in(wanted + "-2")
    app.settle()

    assert asked == [wanted]
    assert app.events("gc-sso-conflict")[0] == {"name": "gc-sso-conflict", "username": wanted}
    assert (409, "username_conflict") in {(r.status, r.error) for r in app.login_responses}
    assert app.login_responses[-1].status == 200
    app.widget.expect_signed_in(wanted + "-2")
    app.finish()
