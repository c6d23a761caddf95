"""The sample customer backend of the demo: app sign-in, ssoData, webhook receiver.

It is :mod:`gcbridge.sample_backend` as is, plus two routes the demo needs:

- ``POST /app/login {"username"}`` -> ``{"token", "user"}``: the app's own sign-in.
  The demo picks a user instead of checking a password, so the route asks for the
  run's login key (``X-Demo-Login-Key``) instead: only the demo's own app holds it.
- ``POST /webhooks/gc``: the webhook receiver, verified and de-duplicated with the SDK
  (:class:`~gcbridge.webhooks.DeliveryLog`) as the SDK's own receiver does; every delivery,
  verified or refused, goes on the :class:`~gcbridge.demo.timeline.Timeline`.
"""

# No ``from __future__ import annotations``: FastAPI resolves route annotations at runtime.

import math
import secrets
import threading
from dataclasses import dataclass, field, replace
from typing import Any

from fastapi import FastAPI, HTTPException, Request, Response
from pydantic import BaseModel

from gcbridge.demo.timeline import Timeline
from gcbridge.sample_backend import DEMO_USERS, AppUser, UserDirectory
from gcbridge.sample_backend import create_app as create_sample_backend
from gcbridge.webhooks import DeliveryLog, WebhookError, construct_delivery

__all__ = [
    "ReceiverState",
    "DemoCredentials",
    "create_app",
    "demo_usernames",
    "LOGIN_KEY_HEADER",
]

LOGIN_KEY_HEADER = "X-Demo-Login-Key"
"""The header carrying the run's login key on ``POST /app/login``."""


def demo_usernames() -> list[str]:
    """The users the app offers to sign in (the sample backend's ``DEMO_USERS``)."""
    return [user.username for user in DEMO_USERS]


@dataclass
class ReceiverState:
    """The webhook secret(s) the receiver accepts and the SDK's log of processed deliveries."""

    secrets: list[str] = field(default_factory=list)
    log: DeliveryLog = field(default_factory=DeliveryLog)  # in memory: the demo's lifetime
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass(frozen=True)
class DemoCredentials:
    """What one run of the demo generates: its app users' tokens and its login key.

    Nothing is fixed or stored: another local user or a web page cannot guess a
    token (``/sso-data`` hands out ssoData to its holder), and a token of one run
    is worthless in the next. The login key stands in for the password the demo
    does not ask for; it stays in the demo's process.
    """

    users: tuple[AppUser, ...]
    login_key: str = field(repr=False)

    def __repr__(self) -> str:  # never a token in a log line
        return f"DemoCredentials(users={[u.username for u in self.users]}, login_key='***')"

    @classmethod
    def new(cls) -> "DemoCredentials":
        """Fresh random tokens for the demo's users, and a fresh login key."""
        users = tuple(replace(user, token=secrets.token_urlsafe(32)) for user in DEMO_USERS)
        return cls(users=users, login_key=secrets.token_urlsafe(32))


class _Login(BaseModel):
    username: str


def create_app(
    sso_secret: str,
    timeline: Timeline,
    receiver: ReceiverState,
    credentials: DemoCredentials | None = None,
) -> FastAPI:
    """Build the backend; ``sso_secret`` is the site's SSO secret (it signs ssoData).

    ``credentials`` are the run's users and login key (fresh ones when omitted).
    """
    run = credentials or DemoCredentials.new()
    app: FastAPI = create_sample_backend(sso_secret, UserDirectory(run.users))
    by_name = {user.username: user for user in run.users}
    expected_key = run.login_key.encode()

    @app.post("/app/login")
    def login(body: _Login, request: Request) -> dict[str, Any]:
        given = request.headers.get(LOGIN_KEY_HEADER, "").encode()
        if not secrets.compare_digest(given, expected_key):
            raise HTTPException(401, "the demo's app signs in with the run's login key")
        user = by_name.get(body.username)
        if user is None:
            raise HTTPException(404, f"no demo user {body.username!r}")
        claims = user.sso_claims()
        return {"token": user.token, "user": claims}

    @app.post("/webhooks/gc")
    async def webhook(request: Request) -> Response:
        body = await request.body()  # raw bytes: the signature covers them, not a re-serialization
        with receiver.lock:
            accepted = list(receiver.secrets)
        log = receiver.log
        try:
            delivery = construct_delivery(accepted, body, request.headers)
            # the idempotency key, and a captured request under a new id
            claim = log.acquire(delivery.delivery_id, delivery.signature, delivery.timestamp_ms)
        except WebhookError as exc:
            timeline.record("webhook.refused", f"delivery refused: {exc.reason}", reason=exc.reason)
            return Response(status_code=401)
        if claim.status == "duplicate":  # processed already: acknowledge, do not process twice
            return Response(status_code=204)
        if claim.status == "in_flight":  # being processed: the service retries it later
            return Response(status_code=503, headers={"Retry-After": str(math.ceil(log.lease))})
        try:
            event = delivery.event
            comment = event.data.comment
            timeline.record(
                "webhook.verified",
                f"webhook {event.event_type} delivered, signature VERIFIED "
                f"(comment {comment.id} by {comment.author.name}: {comment.content!r})",
                event_type=event.event_type,
                delivery_id=delivery.delivery_id or "",
                comment_id=comment.id,
                content=comment.content,
            )
        except BaseException:
            log.release(claim)  # the service's retry is processed, not skipped
            raise
        log.complete(claim)
        return Response(status_code=204)

    return app
