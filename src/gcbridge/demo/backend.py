"""The sample customer backend of the demo: app sign-in, ssoData, webhook receiver.

It is the harness's sample backend (:mod:`gcbridge_harness.backend`: the app's users
behind ``Authorization: Bearer <app token>``, and ``GET /sso-data`` from
:func:`gcbridge.sso.fastapi.sso_router`), reused as is, plus two routes the demo needs:

- ``POST /app/login {"username"}`` -> ``{"token", "user"}``: the app's own sign-in.
  The demo picks a user instead of checking a password.
- ``POST /webhooks/gc``: the webhook receiver, verified with
  :func:`gcbridge.webhooks.construct_event` over the raw body; every verified delivery
  (and every refused one) goes on the :class:`~gcbridge.demo.timeline.Timeline`.
"""

# No ``from __future__ import annotations``: FastAPI resolves route annotations at runtime.

import threading
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, HTTPException, Request, Response
from pydantic import BaseModel

from gcbridge.demo.timeline import Timeline

__all__ = ["ReceiverState", "create_backend_app", "demo_usernames"]


def demo_usernames() -> list[str]:
    """The users the app offers to sign in (the harness's ``DEMO_USERS``)."""
    from gcbridge_harness.backend import DEMO_USERS

    return [user.username for user in DEMO_USERS]


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
    from gcbridge_harness.backend import DEMO_USERS
    from gcbridge_harness.backend import create_backend_app as create_sample_backend

    from gcbridge.webhooks import WebhookError, construct_event

    app: FastAPI = create_sample_backend(sso_secret)
    by_name = {user.username: user for user in DEMO_USERS}

    @app.post("/app/login")
    def login(body: _Login) -> dict[str, Any]:
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
        try:
            event = construct_event(accepted, body, request.headers)
        except WebhookError as exc:
            timeline.record("webhook.refused", f"delivery refused: {exc.reason}", reason=exc.reason)
            return Response(status_code=401)
        delivery_id = request.headers.get("x-webhook-delivery-id", "")
        with receiver.lock:
            duplicate = delivery_id in receiver.seen
            receiver.seen.add(delivery_id)
        if duplicate:  # the idempotency key (spec 6.1): acknowledge, do not process twice
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
        )
        return Response(status_code=204)

    return app
