"""A sample customer backend: the app's own users, and ``GET /sso-data`` for the signed-in one.

The server side an app team writes (docs/explanation/service.md): the app signs its user in
with its own authentication (here ``Authorization: Bearer <app token>``) and fetches fresh
ssoData from ``GET /sso-data`` (:func:`gcbridge.sso.fastapi.sso_router`) right before each
injection. The harness and the demo both run it (:func:`running_backend`,
:func:`create_app`); it belongs to neither. ``DEMO_USERS`` are the fixed users of the demo.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Request
from pydantic import BaseModel

__all__ = [
    "AppUser",
    "UserDirectory",
    "DEMO_USERS",
    "create_app",
    "running_backend",
    "CustomerBackend",
]

_USERNAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{1,31}$")


@dataclass(frozen=True)
class AppUser:
    """A user of the customer's app; ``token`` is the app's own credential for them."""

    id: str
    username: str
    email: str
    token: str

    def sso_claims(self) -> dict[str, str]:
        """The user object put into ssoData (id, username, email)."""
        return {"id": self.id, "username": self.username, "email": self.email}


DEMO_USERS: tuple[AppUser, ...] = (
    # The app's tokens are random per process: a fixed one would let anyone local fetch
    # ssoData from a running sample backend (the demo generates its own per run too).
    AppUser("app-user-1", "alice", "alice@example.com", secrets.token_urlsafe(32)),
    AppUser("app-user-2", "bob", "bob@example.com", secrets.token_urlsafe(32)),
)


class UserDirectory:
    """The app's users by token; thread-safe (the server runs in another thread)."""

    def __init__(self, users: tuple[AppUser, ...] | list[AppUser] = ()) -> None:
        self._lock = threading.Lock()
        self._by_token: dict[str, AppUser] = {user.token: user for user in users}

    def add(self, *, id: str, username: str, email: str, token: str | None = None) -> AppUser:  # noqa: A002
        """Register an app user and return it (a random token unless one is given)."""
        user = AppUser(
            id=id, username=username, email=email, token=token or secrets.token_urlsafe(24)
        )
        with self._lock:
            self._by_token[user.token] = user
        return user

    def by_token(self, token: str) -> AppUser | None:
        """The user holding ``token``, compared in constant time."""
        with self._lock:
            users = list(self._by_token.values())
        found = None
        for user in users:  # no early exit: the time taken does not depend on which token matched
            if secrets.compare_digest(user.token.encode(), token.encode()):
                found = user
        return found

    def rename(self, token: str, username: str) -> AppUser:
        """Change a user's username (after a conflict); returns the updated user."""
        with self._lock:
            user = replace(self._by_token[token], username=username)
            self._by_token[token] = user
        return user


class Rename(BaseModel):
    """Body of ``PUT /me/username``."""

    username: str


def create_app(
    sso_secret: str | list[str], users: UserDirectory | None = None, *, clock: Any = None
) -> FastAPI:
    """The FastAPI app of the sample backend; ``sso_secret`` is the site's SSO secret."""
    from gcbridge.sso import SsoIssuer
    from gcbridge.sso.fastapi import sso_router

    directory = users if users is not None else UserDirectory(DEMO_USERS)
    # Rotation lists sign with the first secret.
    # allow_weak_secret: the emulator's example credentials ("sso-secret") are short;
    # this sample backend only ever signs for an emulator site.
    issuer = SsoIssuer(
        sso_secret[0] if isinstance(sso_secret, list) else sso_secret,
        allow_weak_secret=True,
        **({"clock": clock} if clock is not None else {}),
    )

    def current_app_user(request: Request) -> AppUser:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        user = (
            directory.by_token(token.strip())
            if scheme.lower() == "bearer" and token.strip()
            else None
        )
        if user is None:
            raise HTTPException(
                401, "sign in to the app first", headers={"WWW-Authenticate": "Bearer"}
            )
        return user

    def current_user_claims(user: AppUser = Depends(current_app_user)) -> Mapping[str, str]:  # noqa: B008
        return user.sso_claims()

    app = FastAPI(title="gc-bridge sample customer backend")
    app.state.users = directory
    app.include_router(sso_router(issuer, current_user_claims, path="/sso-data"))

    @app.get("/me")
    def me(user: AppUser = Depends(current_app_user)) -> dict[str, str]:  # noqa: B008
        return {"id": user.id, "username": user.username, "email": user.email}

    @app.put("/me/username")
    def rename(body: Rename, user: AppUser = Depends(current_app_user)) -> dict[str, str]:  # noqa: B008
        if not _USERNAME.match(body.username):
            raise HTTPException(400, "username: 2-32 letters, digits, '.', '_' or '-'")
        updated = directory.rename(user.token, body.username)
        return {"id": updated.id, "username": updated.username, "email": updated.email}

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app


@dataclass
class CustomerBackend:
    """A running sample backend: its ``url`` and its user directory."""

    url: str
    users: UserDirectory
    _client: Any = field(default=None, repr=False)

    def new_user(self, prefix: str = "user") -> AppUser:
        """A fresh app user with unique id and username (tests share one emulator)."""
        suffix = secrets.token_hex(4)
        return self.users.add(
            id=f"{prefix}-{suffix}",
            username=f"{prefix}-{suffix}",
            email=f"{prefix}-{suffix}@example.com",
        )

    def _http(self) -> Any:
        # One client for the whole run: a new one per call costs an SSL context each time.
        if self._client is None:
            import httpx

            self._client = httpx.Client(base_url=self.url, timeout=10.0)
        return self._client

    def fetch_sso_data(self, user: AppUser) -> str:
        """What the app does before each injection: ``GET /sso-data`` with its own credential."""
        response = self._http().get("/sso-data", headers={"Authorization": f"Bearer {user.token}"})
        response.raise_for_status()
        sso_data: str = response.json()["ssoData"]
        return sso_data

    def rename(self, user: AppUser, username: str) -> AppUser:
        """The app's conflict resolution: ``PUT /me/username``; returns the updated user."""
        response = self._http().put(
            "/me/username",
            json={"username": username},
            headers={"Authorization": f"Bearer {user.token}"},
        )
        response.raise_for_status()
        return replace(user, username=response.json()["username"])

    def close(self) -> None:
        """Close the HTTP client."""
        if self._client is not None:
            self._client.close()
            self._client = None


@contextmanager
def running_backend(
    sso_secret: str | list[str],
    *,
    users: UserDirectory | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    clock: Any = None,
) -> Iterator[CustomerBackend]:
    """Serve the sample backend on loopback for the duration of the ``with`` block."""
    from gcbridge.serving import BackgroundServer

    directory = users if users is not None else UserDirectory(DEMO_USERS)
    with BackgroundServer(
        lambda _port: create_app(sso_secret, directory, clock=clock), host=host, port=port
    ) as server:
        backend = CustomerBackend(url=server.url, users=directory)
        try:
            yield backend
        finally:
            backend.close()
