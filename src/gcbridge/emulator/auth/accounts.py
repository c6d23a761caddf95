"""Sign-in of the widget: SSO login and the service's own accounts (``/api/pub/...``).

ssoData is a credential: it arrives only in a request body, is verified with the site's
SSO secret and is never logged, stored or echoed, not even in error messages (those carry
the verifier's reason code only).
"""

from __future__ import annotations

import hashlib
import html
import sqlite3
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from pydantic import ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from gcbridge.emulator.auth import users
from gcbridge.emulator.auth.passwords import check_password, dummy_hash, hash_password
from gcbridge.emulator.auth.sessions import SessionError, session_store
from gcbridge.emulator.db import new_id
from gcbridge.emulator.errors import ApiError, invalid
from gcbridge.emulator.inputs import EMAIL, USERNAME, StrictBody, unsafe_text
from gcbridge.emulator.openapi import error_responses
from gcbridge.emulator.state import state_of
from gcbridge.emulator.usernames import username_problem

__all__ = ["router", "bearer_token", "require_user", "default_avatar"]

router = APIRouter(tags=["accounts"])

_NO_STORE = {"Cache-Control": "no-store"}


class SsoLoginBody(StrictBody):
    """Body of ``POST /api/pub/sso/login``."""

    model_config = ConfigDict(extra="ignore")
    api_public_key: str = Field(max_length=256)
    ssoData: str = Field(max_length=16_384)  # noqa: N815 (the wire name)


class LoginBody(StrictBody):
    """Body of ``POST /api/pub/auth/login``."""

    model_config = ConfigDict(extra="ignore")
    website_id: str = Field(
        max_length=64,
        description="the site's shortname or its 24-hex website_id (webhook routes: 24-hex)",
    )
    username: str = Field(max_length=64)
    password: str = Field(max_length=1024)


class RegisterBody(LoginBody):
    """Body of ``POST /api/pub/auth/register``: the login's fields and an e-mail address."""

    email: str = Field(max_length=254)


def bearer_token(request: Request) -> str | None:
    """The token of ``Authorization: Bearer <token>``, or ``None``."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def require_user(
    request: Request,
    *,
    invalid_reason: str = "invalid_session",
    conn: sqlite3.Connection | None = None,
) -> sqlite3.Row:
    """The signed-in user of ``request``; 401 ``auth_required`` or ``invalid_reason`` otherwise.

    A route that writes checks again with ``conn``, its open transaction, so that a
    reset or a restore between the check and the write is a 401, never a write for
    a user who is gone (:meth:`SessionStore.resolve`).
    """
    token = bearer_token(request)
    if token is None:
        raise ApiError(401, "auth_required", "sign in first: Authorization: Bearer <session token>")
    state = state_of(request)
    try:
        return session_store(request.app.state, state).resolve(token, conn)
    except SessionError as exc:
        raise ApiError(
            401, invalid_reason, f"session not valid ({exc.reason}); sign in again"
        ) from None


def default_avatar(request: Request, user_id: str) -> str:
    """The generated avatar URL of a user without a picture.

    Built from the configured address (``Settings.public_url``), never from the
    request's ``Host`` header: the URL is stored and shown to every reader.
    """
    return f"{state_of(request).settings.public_url}/api/pub/avatars/{user_id}.svg"


def _signed_in(request: Request, conn: sqlite3.Connection, user_id: str) -> dict[str, Any]:
    token = session_store(request.app.state, state_of(request)).issue(conn, user_id)
    user = users.get_user(conn, user_id)
    assert user is not None  # just written in this transaction
    return {"token": token, "user": users.user_json(user)}


@router.post(
    "/api/pub/sso/login",
    summary="Sign in with ssoData (body only, never a URL)",
    responses=error_responses(400, 401, 403, 409),
)
async def sso_login(body: SsoLoginBody, request: Request) -> Response:
    """Verify ssoData with the site's SSO secret; create or update the SSO user; open a session."""
    from gcbridge.sso import SsoError, SsoExpired, SsoVerifier

    state = state_of(request)
    site = state.settings.sites.by_public_key(body.api_public_key)
    if site is None:
        raise ApiError(403, "unknown_public_key", "api_public_key is not the key of any site")
    verifier = SsoVerifier(
        site.sso_secret,
        max_age=state.settings.sso_max_age,
        leeway=state.settings.sso_leeway,
        clock=state.clock,
    )
    try:
        sso = verifier.verify(body.ssoData)
    except SsoExpired as exc:
        raise ApiError(
            401, "sso_expired", f"ssoData expired ({exc.reason}); fetch a fresh one"
        ) from None
    except SsoError as exc:
        # A refused user says which field and the field meant (never the token).
        detail = f": {exc}" if exc.reason == "bad_user" else ""
        raise ApiError(401, "sso_invalid", f"ssoData rejected ({exc.reason}){detail}") from None
    why = username_problem(sso.username)
    if why is not None:
        # Control, bidi-override, default-ignorable and blank characters, and a mixture of
        # scripts, let one name pose as another; the message names the character's code
        # point or the scripts, never the token.
        raise ApiError(401, "sso_invalid", f"ssoData rejected (bad_username): the username {why}")
    if unsafe_text(sso.email):
        raise ApiError(401, "sso_invalid", "ssoData rejected (bad_email)")

    def write() -> dict[str, Any] | None:
        now = state.clock.now()
        with state.db.transaction() as conn:
            existing = users.find_user_by_external_id(conn, site.shortname, str(sso.id))
            holder = users.find_username_holder(
                conn,
                site.shortname,
                sso.username,
                other_than=None if existing is None else existing["id"],
            )
            if holder is not None:
                return None
            user_id = new_id() if existing is None else existing["id"]
            avatar = sso.picture or default_avatar(request, user_id)
            if existing is None:
                users.insert_user(
                    conn,
                    user_id=user_id,
                    site=site.shortname,
                    external_id=str(sso.id),
                    username=sso.username,
                    email=sso.email,
                    avatar=avatar,
                    language=sso.language,
                    bio=sso.bio,
                    now=now,
                )
            else:
                users.set_username(conn, user_id, sso.username)
                conn.execute(
                    """UPDATE users SET email = ?, avatar = ?, language = ?, bio = ?,
                       updated_at = ? WHERE id = ?""",
                    (sso.email, avatar, sso.language, sso.bio, now, user_id),
                )
            return _signed_in(request, conn, user_id)

    result = await run_in_threadpool(write)
    if result is None:
        return JSONResponse(
            {
                "gcCode": 409,
                "error": "username_conflict",
                "message": f"username {sso.username!r} is held by another user of this site",
                "username": sso.username,
            },
            status_code=409,
        )
    return JSONResponse(result, headers=_NO_STORE)


@router.get(
    "/api/pub/me",
    summary="The signed-in user (restores a stored session)",
    responses=error_responses(401),
)
async def me(request: Request) -> Response:
    """``{"user": ...}`` for a live session token."""
    user = await run_in_threadpool(require_user, request)
    return JSONResponse({"user": users.user_json(user)}, headers=_NO_STORE)


@router.post(
    "/api/pub/auth/register",
    status_code=201,
    summary="Create an account of the service",
    responses=error_responses(400, 404, 409),
)
async def register(body: RegisterBody, request: Request) -> Response:
    """Register a user of the service's own accounts and sign them in."""
    state = state_of(request)
    site = state.site(body.website_id)
    if not USERNAME.fullmatch(body.username):
        raise invalid(
            "username",
            "2-32 characters of letters, digits, '_', '.', '-', starting with a letter or digit",
        )
    if not EMAIL.fullmatch(body.email) or unsafe_text(body.email):
        raise invalid("email", "not an e-mail address")
    if len(body.password) < 8:
        raise invalid("password", "at least 8 characters")

    def write() -> dict[str, Any]:
        password_hash = hash_password(body.password)
        with state.db.transaction() as conn:
            if users.find_username_holder(conn, site.shortname, body.username) is not None:
                raise ApiError(
                    409, "username_taken", f"username {body.username!r} is already taken"
                )
            user_id = new_id()
            users.insert_user(
                conn,
                user_id=user_id,
                site=site.shortname,
                username=body.username,
                email=body.email,
                avatar=default_avatar(request, user_id),
                password_hash=password_hash,
                now=state.clock.now(),
            )
            return _signed_in(request, conn, user_id)

    return JSONResponse(await run_in_threadpool(write), status_code=201, headers=_NO_STORE)


@router.post(
    "/api/pub/auth/login",
    summary="Sign in with an account of the service",
    responses=error_responses(400, 401, 404),
)
async def login(body: LoginBody, request: Request) -> Response:
    """Check username and password; open a session."""
    state = state_of(request)
    site = state.site(body.website_id)

    def check() -> dict[str, Any]:
        with state.db.read() as conn:
            user = users.find_user_by_username(conn, site.shortname, body.username)
        stored = user["password_hash"] if user is not None else None
        # SSO users have no password: they sign in through their app only.
        ok = check_password(body.password, stored or dummy_hash()) and stored is not None
        if not ok or user is None:
            raise ApiError(401, "bad_credentials", "wrong username or password")
        with state.db.transaction() as conn:
            # The password was checked outside the transaction (it is slow): a reset or
            # a restore since then may have removed the user or changed the password.
            current = users.get_user(conn, user["id"])
            if current is None or current["password_hash"] != stored:
                raise ApiError(401, "bad_credentials", "wrong username or password")
            return _signed_in(request, conn, user["id"])

    return JSONResponse(await run_in_threadpool(check), headers=_NO_STORE)


@router.post(
    "/api/pub/auth/logout",
    status_code=204,
    summary="Sign out (revokes the session token)",
    responses=error_responses(401),
)
async def logout(request: Request) -> Response:
    """Revoke the Bearer token; signing out twice is not an error."""
    token = bearer_token(request)
    if token is None:
        raise ApiError(401, "auth_required", "Authorization: Bearer <session token> required")
    store = session_store(request.app.state, state_of(request))
    await run_in_threadpool(store.revoke, token)
    return Response(status_code=204)


_COLOURS = ("#1abc9c", "#2e86de", "#8e44ad", "#e67e22", "#c0392b", "#16a085", "#2c3e50", "#d35400")


@router.get("/api/pub/avatars/{name}", include_in_schema=False)
async def avatar(name: str, request: Request) -> Response:
    """An SVG disc with the user's initial: the default avatar."""
    user_id = name.removesuffix(".svg")
    state = state_of(request)
    with state.db.read() as conn:
        user = users.get_user(conn, user_id)
    letter = html.escape(user["username"][:1].upper()) if user is not None else "?"
    colour = _COLOURS[
        hashlib.sha256(user_id.encode("utf-8", "replace")).digest()[0] % len(_COLOURS)
    ]
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">'
        f'<circle cx="32" cy="32" r="32" fill="{colour}"/>'
        '<text x="32" y="42" font-family="sans-serif" font-size="30" fill="#fff" '
        'text-anchor="middle">'
        f"{letter}</text></svg>"
    )
    return Response(
        svg, media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=3600"}
    )
