"""The sample customer backend of the demo: app sign-in, ssoData, webhook receiver.

What a customer runs beside the app (spec 5.1 step 3, part 6.1):

- ``POST /app/login {"username"}`` -> ``{"token", "user"}``: the app's *own* sign-in
  (the demo skips passwords: pick a demo user); ``POST /app/logout``.
- ``GET /sso-data`` -> ``{"ssoData"}``: :func:`gcbridge.sso.fastapi.sso_router` behind
  that sign-in, so ssoData is minted fresh per request and never put in a URL.
- ``POST /webhooks/gc``: the webhook receiver, verified with
  :func:`gcbridge.webhooks.construct_event` over the raw body; every verified delivery
  (and every refused one) is recorded on the :class:`~gcbridge.demo.timeline.Timeline`.

It is a separate module from the harness's backend because it records the demo's
timeline and owns a receiver; both use the same gcbridge.sso router.
"""

# No ``from __future__ import annotations``: FastAPI resolves dependency annotations
# of the closures below at runtime.

import secrets
import threading
from dataclasses import dataclass, field
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Request, Response
from pydantic import BaseModel

from gcbridge.demo.timeline import Timeline

__all__ = ["DEMO_USERS", "ReceiverState", "create_backend_app"]

DEMO_USERS: dict[str, dict[str, str]] = {
    "alice": {"id": "app-user-1", "username": "alice", "email": "alice@example.com"},
    "bob": {"id": "app-user-2", "username": "bob", "email": "bob@example.com"},
}


@dataclass
class ReceiverState:
    """The webhook secret(s) the receiver accepts and the delivery ids already seen."""

    secrets: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Login(BaseModel):
    username: str


def create_backend_app(sso_secret: str, timeline: Timeline, receiver: ReceiverState) -> FastAPI:
    """Build the backend; ``sso_secret`` is the site's SSO secret (it signs ssoData)."""
    from gcbridge.sso import SsoIssuer
    from gcbridge.sso.fastapi import sso_router
    from gcbridge.webhooks import WebhookError, construct_event

    sessions: dict[str, str] = {}  # app session token -> username

    def current_user(request: Request) -> dict[str, str]:
        header = request.headers.get("authorization", "")
        token = header[7:] if header.lower().startswith("bearer ") else ""
        username = sessions.get(token) if token else None
        if username is None:
            raise HTTPException(401, "sign in to the app first")
        return DEMO_USERS[username]

    app = FastAPI(title="gc-bridge demo customer backend")

    @app.post("/app/login")
    def login(body: _Login) -> dict[str, Any]:
        if body.username not in DEMO_USERS:
            raise HTTPException(404, f"no demo user {body.username!r}")
        token = secrets.token_urlsafe(24)
        sessions[token] = body.username
        return {"token": token, "user": DEMO_USERS[body.username]}

    @app.post("/app/logout", status_code=204)
    def logout(request: Request, _: dict[str, str] = Depends(current_user)) -> Response:
        sessions.pop(request.headers["authorization"][7:], None)
        return Response(status_code=204)

    app.include_router(sso_router(SsoIssuer(sso_secret), current_user))

    @app.post("/webhooks/gc")
    async def webhook(request: Request) -> Response:
        body = await request.body()  # the raw bytes: the signature covers them, not a re-serialization
        with receiver.lock:
            accepted = list(receiver.secrets)
        try:
            event = construct_event(accepted, body, request.headers)
        except WebhookError as exc:
            timeline.record("webhook.refused", f"delivery refused: {exc.reason}", reason=exc.reason)
            return Response(status_code=401)
        delivery_id = request.headers.get("x-webhook-delivery-id", "")
        with receiver.lock:
            duplicate = delivery_id in receiver.seen
            receiver.seen.add(delivery_id)
        if duplicate:  # idempotency key (spec 6.1): acknowledge, do not process twice
            return Response(status_code=204)
        comment = event.data.comment
        timeline.record(
            "webhook.verified",
            f"webhook {event.event_type} delivered, signature VERIFIED "
            f"(comment {comment.id} by {comment.author.name}: {comment.content!r})",
            event_type=event.event_type,
            delivery_id=delivery_id,
            comment_id=comment.id,
            content=comment.content,
            retry_count=request.headers.get("x-webhook-retry-count"),
        )
        return Response(status_code=204)

    return app
