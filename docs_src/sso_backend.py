"""Serving ssoData from your backend (README): GET /sso-data behind your own sign-in."""

import os
from typing import Annotated

from fastapi import FastAPI, Header, HTTPException

from gcbridge.sso import SsoIssuer, SsoUser
from gcbridge.sso.fastapi import sso_router

SESSIONS = {"session-of-ada": SsoUser(id="42", username="ada", email="ada@example.com")}


def current_user(authorization: Annotated[str, Header()] = "") -> SsoUser:
    """Your app's own authentication: here, a bearer session token."""
    user = SESSIONS.get(authorization.removeprefix("Bearer "))
    if user is None:
        raise HTTPException(401, "sign in to the app first")
    return user


app = FastAPI()
app.include_router(sso_router(SsoIssuer(os.environ["GC_SSO_SECRET"]), current_user))
