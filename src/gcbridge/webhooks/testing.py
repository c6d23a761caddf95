"""Test helpers for receivers: sample events, signed headers, a poster (fixture `gc_webhook`).

Use: docs/guides/webhooks.md "Testing your receiver" and docs/quickstart/backend.md "Retries".
httpx is imported when a poster first sends (the ``emulator`` extra); without it a send
raises :class:`PosterNeedsHttpx` (reason ``missing_extra``).
"""

from __future__ import annotations

import json
import time
import uuid
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from gcbridge.aio import run_sync
from gcbridge.clock import SYSTEM_CLOCK, Clock, utc_iso
from gcbridge.errors import GcBridgeError
from gcbridge.webhooks.catalog import CREATED, DELETED
from gcbridge.webhooks.events import WebhookEvent
from gcbridge.webhooks.signature import (
    DEFAULT_TOLERANCE,
    DELIVERY_ID_HEADER,
    RETRY_COUNT_HEADER,
    delivery_headers,
    sign,
)

__all__ = [
    "SAMPLE_WEBSITE_ID",
    "sample_event",
    "encode_event",
    "signed_headers",
    "WebhookPoster",
    "PosterNeedsHttpx",
]

SAMPLE_WEBSITE_ID = "5f1c0ffee0ddba11c0ffee00"
"""The website id of sample events (the documented example site)."""

_SETTINGS = ("secret", "path", "tolerance", "clock", "as_service")


class PosterNeedsHttpx(GcBridgeError, ImportError):
    """A poster sends with httpx, which is not installed (``pip install 'gc-bridge[emulator]'``)."""

    reason = "missing_extra"


def _httpx() -> Any:
    try:
        import httpx
    except ImportError:
        raise PosterNeedsHttpx(
            "WebhookPoster (the gc_webhook fixture) sends with httpx, which is not installed: "
            "pip install 'gc-bridge[emulator]' (or pip install httpx)"
        ) from None
    return httpx


def sample_event(
    event_type: str = CREATED.name,
    *,
    timestamp_ms: int | None = None,
    website_id: str = SAMPLE_WEBSITE_ID,
    comment_id: str = "c1",
    content: str = "Hello from gcbridge.webhooks.testing",
    status: str | None = None,
    parent_id: str | None = None,
    thread_id: str = "t1",
    external_thread_id: str | None = "article-1",
    page_title: str = "A sample article",
    author_id: str = "u1",
    author_name: str = "ada",
    author_email: str | None = "ada@example.com",
    author_external_id: str | None = "42",
    guest: bool = False,
    avatar: str | None = "https://example.com/ada.png",
    **extra: Any,
) -> dict[str, Any]:
    """A complete delivery body; keyword arguments set its fields (checked).

    ``status`` defaults to ``deleted`` for the deleted event, else ``approved``.
    ``extra`` adds root fields (a service may add fields; receivers keep them).
    The result is validated with :class:`~gcbridge.webhooks.WebhookEvent`, so a
    bad override raises ``WebhookPayloadError`` here, not in the test.
    """
    sent = time.time() * 1000 if timestamp_ms is None else timestamp_ms
    created = utc_iso(int(sent) / 1000)
    body = {
        "event_type": event_type,
        "timestamp": int(sent),
        "website_id": website_id,
        "data": {
            "comment": {
                "id": comment_id,
                "external_id": None,
                "content": content,
                "created_at": created,
                "updated_at": created,
                "thread_id": thread_id,
                "external_thread_id": external_thread_id,
                "parent_id": parent_id,
                "external_parent_id": None,
                "status": status or ("deleted" if event_type == DELETED.name else "approved"),
                "author": {
                    "id": author_id,
                    "external_id": author_external_id,
                    "guest": guest,
                    "name": author_name,
                    "email": author_email,
                    "avatar": avatar,
                },
            },
            "thread": {
                "id": thread_id,
                "page_title": page_title,
                "created_at": created,
                "updated_at": created,
                "external_id": external_thread_id,
            },
        },
        **extra,
    }
    from gcbridge.webhooks.events import parse_event

    parse_event(encode_event(body))  # the same checks a receiver makes
    return body


def encode_event(event: Mapping[str, Any] | WebhookEvent) -> bytes:
    """The compact UTF-8 JSON bytes the service sends for ``event``."""
    if isinstance(event, WebhookEvent):
        return event.model_dump_json(by_alias=True).encode("utf-8")
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def signed_headers(
    secret: str | bytes,
    body: bytes,
    *,
    timestamp_ms: int | None = None,
    delivery_id: str | None = None,
    retry_count: int = 0,
) -> dict[str, str]:
    """Every header of a delivery, signed now unless ``timestamp_ms`` is given."""
    ts = int(time.time() * 1000) if timestamp_ms is None else timestamp_ms
    return delivery_headers(
        secret,
        body,
        timestamp_ms=ts,
        delivery_id=delivery_id or f"dlv_{uuid.uuid4().hex}",
        retry_count=retry_count,
        first_sent_at=utc_iso(ts / 1000),
    )


@dataclass(eq=False, repr=False)  # its own __repr__ masks the secret
class WebhookPoster:
    """Posts signed deliveries to an ASGI app or a base URL; returns the ``httpx.Response``."""

    target: Any = None
    """An ASGI app, or a base URL such as ``"http://127.0.0.1:8000"``."""
    _: KW_ONLY
    secret: str | bytes | None = None
    """The webhook secret the receiver expects."""
    path: str = "/"
    """The receiver's path on ``target``."""
    tolerance: float = DEFAULT_TOLERANCE
    """The receiver's window: ``stale=True`` signs just outside it."""
    clock: Clock = SYSTEM_CLOCK
    """The clock the timestamps come from (give the receiver's own)."""
    as_service: bool = False
    """Answer as the service sees it: a handler's exception is a 500, not raised."""
    last: tuple[bytes, dict[str, str]] | None = field(init=False, default=None)
    """The body and headers of the last delivery sent."""

    def __repr__(self) -> str:
        return f"WebhookPoster(target={self.target!r}, path={self.path!r}, secret='***')"

    def configure(self, target: Any = None, **settings: Any) -> WebhookPoster:
        """Set the target and any of ``secret``, ``path``, ``tolerance``, ``clock``,
        ``as_service``."""
        if target is not None:
            self.target = target
        for name, value in settings.items():
            if name not in _SETTINGS:
                raise TypeError(f"unknown setting {name!r}")
            setattr(self, name, value)
        return self

    def post(self, event: str | Mapping[str, Any] | bytes = CREATED.name, **options: Any) -> Any:
        """Sign and send one delivery; the response. The arguments are :meth:`apost`'s."""
        return run_sync(self.apost, event, **options)

    def post_each(
        self, bodies: Sequence[Mapping[str, Any]], *, order: Iterable[int] | None = None
    ) -> list[Any]:
        """Send each of ``bodies`` as its own delivery, in ``order`` (indices; default as
        given); the responses in sending order. Build the bodies with
        :func:`gcbridge.webhooks.ordering.comment_history`."""
        indices = list(range(len(bodies))) if order is None else list(order)
        if sorted(indices) != list(range(len(bodies))):
            raise ValueError(f"order must name each of the {len(bodies)} bodies once")
        return [self.post(bodies[index]) for index in indices]

    __call__ = post

    async def apost(
        self,
        event: str | Mapping[str, Any] | bytes = CREATED.name,
        *,
        duplicate: bool = False,
        stale: bool = False,
        wrong_secret: bool = False,
        delivery_id: str | None = None,
        retry_count: int = 0,
        signed_at_ms: int | None = None,
        event_timestamp_ms: int | None = None,
        as_service: bool | None = None,
        headers: Mapping[str, str] | None = None,
        target: Any = None,
        path: str | None = None,
        **overrides: Any,
    ) -> Any:
        """Sign and send one delivery (see the class docstring); the response.

        ``event``: an event type (a :func:`sample_event` with ``overrides``), a body
        dict, or raw bytes. ``duplicate``: send the last delivery again, same id and
        body, freshly signed, as the service's retry does. ``stale``: a signature
        timestamp just outside the tolerance. ``wrong_secret``: signed with another
        secret. ``signed_at_ms``: the signature's time (default now);
        ``event_timestamp_ms``: the sample body's ``timestamp``. ``as_service``: a
        handler's exception comes back as the service's 500 (default: the poster's).
        :meth:`post` (and calling the poster) is the same for sync tests.
        """
        httpx = _httpx()
        if "timestamp_ms" in overrides:
            warnings.warn(
                "timestamp_ms= sets the signature's time (X-Webhook-Timestamp); say "
                "signed_at_ms= for that, or event_timestamp_ms= for the body's timestamp",
                DeprecationWarning,
                stacklevel=3,
            )
            signed_at_ms = overrides.pop("timestamp_ms")
        if event_timestamp_ms is not None and not isinstance(event, str):
            raise ValueError(
                "event_timestamp_ms= sets a sample event's timestamp; set "
                "'timestamp' in the body you pass"
            )
        secret = self.secret
        if secret is None:
            raise ValueError("give the poster the receiver's secret (secret=...)")
        if duplicate:
            if self.last is None:
                raise ValueError("duplicate=True needs an earlier delivery to repeat")
            body, previous = self.last
            delivery_id = delivery_id or previous[DELIVERY_ID_HEADER]
            retry_count = retry_count or int(previous[RETRY_COUNT_HEADER]) + 1
        elif isinstance(event, bytes):
            body = event
        elif isinstance(event, str):
            body = encode_event(sample_event(event, timestamp_ms=event_timestamp_ms, **overrides))
        else:
            body = encode_event(event)
        now_ms = int(self.clock.now() * 1000)
        if stale:
            signed_at_ms = now_ms - int((self.tolerance + 60) * 1000)
        sent = signed_headers(
            secret,
            body,
            timestamp_ms=now_ms if signed_at_ms is None else signed_at_ms,
            delivery_id=delivery_id,
            retry_count=retry_count,
        )
        if wrong_secret:
            wrong = b"not-" + (secret.encode() if isinstance(secret, str) else secret)
            sent["X-Webhook-Signature"] = sign(wrong, int(sent["X-Webhook-Timestamp"]), body)
        sent.update(headers or {})
        self.last = (body, sent)
        where = self.target if target is None else target
        url_path = self.path if path is None else path
        if where is None:
            raise ValueError("give the poster a target: an ASGI app or a base URL")
        if isinstance(where, str):
            client = httpx.AsyncClient(base_url=where, timeout=30)
        else:
            service = self.as_service if as_service is None else as_service
            # the service sees a handler's exception as the 500 it retries
            transport = httpx.ASGITransport(app=where, raise_app_exceptions=not service)
            client = httpx.AsyncClient(transport=transport, base_url="http://receiver.test")
        async with client:
            return await client.post(url_path, content=body, headers=sent)
