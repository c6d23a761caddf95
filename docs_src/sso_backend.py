"""Serving ssoData from your backend (guide "Issue ssoData"): GET /sso-data behind your own
sign-in. Run it with ``uvicorn docs_src.sso_backend:app --port 8001``."""

import os
from typing import Annotated

from fastapi import FastAPI, Header, HTTPException

from gcbridge.sso import SsoIssuer, SsoUser
from gcbridge.sso.fastapi import sso_router

SESSIONS = {"session-of-ada": SsoUser(id="42", username="ada", email="ada@example.com")}


def setting(name: str, what: str) -> str:
    """An environment variable this example needs: one clear line when it is unset."""
    value = os.environ.get(name, "")
    if not value:
        raise SystemExit(f"sso_backend: set {name} to {what}")
    return value


def current_user(authorization: Annotated[str, Header()] = "") -> SsoUser:
    """Your app's own authentication: here, a bearer session token."""
    user = SESSIONS.get(authorization.removeprefix("Bearer "))
    if user is None:
        raise HTTPException(401, "sign in to the app first")
    return user


app = FastAPI()
secret = setting("GC_SSO_SECRET", "the site's SSO secret (16 bytes or more)")
app.include_router(sso_router(SsoIssuer(secret), current_user))
