"""An HTTP client of a running emulator's webhook routes (``webhooks trigger|calls|replay``).

Only the emulator's public routes are used (contract.md): ``GET /api/dashboard/site``
(the site of the account token), ``POST /api/pub/auth/register`` (a throw-away test
user), the comment and moderation routes (which fire the events), ``GET
/webhook/website/{id}/calls`` and ``POST /webhook/call/{id}/replay``. The SDKs do
not depend on this module; it needs httpx (the ``emulator`` extra).

Errors are :class:`RemoteError` with a reason: ``unreachable`` (exit 2 in the
CLI), ``bad_token``, ``wrong_site``, ``api_error``, ``timeout``.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from gcbridge.errors import GcBridgeError
from gcbridge.webhooks.signature import EVENT_TYPES

__all__ = ["RemoteError", "EmulatorClient", "Fired", "settled", "call_comment_id"]

THREAD_UID = "gcbridge-webhooks-trigger"
"""The thread every triggered comment is posted on."""


class RemoteError(GcBridgeError):
    """The emulator could not be reached or refused a request; ``reason`` says which."""

    reason = "api_error"


@dataclass(frozen=True)
class Fired:
    """What ``trigger`` did: the event type and the comment it acted on."""

    event_type: str
    comment_id: str


def call_comment_id(call: dict[str, Any]) -> str | None:
    """The ``data.comment.id`` inside a call's body, if it is readable."""
    try:
        body = json.loads(call.get("body") or "null")
        value = body["data"]["comment"]["id"]
    except (ValueError, TypeError, KeyError):
        return None
    return value if isinstance(value, str) else None


def settled(call: dict[str, Any]) -> bool:
    """Whether a call has an outcome to show: final, or at least one finished attempt."""
    if call.get("status") in ("succeeded", "failed"):
        return True
    return any(not a.get("in_flight", True) for a in call.get("attempts") or [])


class EmulatorClient:
    """The webhook routes of one site of a running emulator, with its account token."""

    def __init__(
        self,
        base_url: str,
        website_id: str,
        account_token: str,
        *,
        transport: httpx.BaseTransport | None = None,
        timeout: float = 10.0,
    ) -> None:
        self.website_id = website_id
        self._token = account_token
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"), transport=transport, timeout=timeout
        )

    def __repr__(self) -> str:
        return f"EmulatorClient({str(self._http.base_url)!r}, {self.website_id!r}, token='***')"

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def __enter__(self) -> EmulatorClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _request(self, method: str, path: str, *, auth: str | None = None, **kw: Any) -> Any:
        # auth: None -> the account token; "" -> none (registering the test user).
        token = self._token if auth is None else auth
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        try:
            response = self._http.request(method, path, headers=headers, **kw)
        except httpx.HTTPError as exc:
            raise RemoteError(
                f"cannot reach the emulator at {self._http.base_url} ({type(exc).__name__})",
                reason="unreachable",
            ) from None
        try:
            data = response.json()
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise RemoteError(
                f"{method} {path}: HTTP {response.status_code}, not a JSON object "
                "(is this URL a gcbridge emulator?)",
                reason="api_error",
            )
        code = data.get("gcCode")
        if response.status_code >= 400 or (isinstance(code, int) and code >= 400):
            reason = (
                "bad_token" if code == 410 or data.get("error") in _TOKEN_ERRORS else "api_error"
            )
            message = str(data.get("message") or data.get("error") or "refused")[:300]
            raise RemoteError(f"{method} {path}: {message}", reason=reason)
        return data

    def site(self) -> dict[str, Any]:
        """The site of the account token; ``wrong_site`` if it is not ``website_id``."""
        site: dict[str, Any] = self._request("GET", "/api/dashboard/site")
        if site.get("website_id") != self.website_id:
            raise RemoteError(
                f"the account token belongs to website {site.get('website_id')!r}, "
                f"not {self.website_id!r}",
                reason="wrong_site",
            )
        return site

    def calls(
        self,
        *,
        status: str | None = None,
        event_type: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """One page of the journal, newest first, and the cursor of the next page."""
        params = {"limit": str(limit)}
        if status:
            params["status"] = status
        if event_type:
            params["event_type"] = event_type
        if cursor:
            params["cursor"] = cursor
        data = self._request("GET", f"/webhook/website/{self.website_id}/calls", params=params)
        return list(data.get("calls") or []), data.get("next_cursor")

    def replay(self, call_id: str) -> dict[str, Any]:
        """Replay a failed call; the fresh call (new delivery id, retry count 0)."""
        data = self._request("POST", f"/webhook/call/{call_id}/replay")
        call: dict[str, Any] = data["call"]
        return call

    def fire(self, event_type: str) -> Fired:
        """Make the emulator fire ``event_type`` through its own routes, as a test user."""
        if event_type not in EVENT_TYPES:
            raise RemoteError(
                f"unknown event {event_type!r}; one of {', '.join(EVENT_TYPES)}",
                reason="unknown_event_type",
            )
        shortname = str(self.site()["shortname"])
        session = self._test_user(shortname)
        comment = self._request(
            "POST",
            "/api/pub/comments",
            auth=session,
            json={
                "website_id": shortname,
                "uid": THREAD_UID,
                "url": "https://example.com/gcbridge-webhooks-trigger",
                "page_title": "gcbridge webhooks trigger",
                "content": f"Test comment for {event_type} (gcbridge webhooks trigger)",
            },
        )
        comment_id = str(comment["id"])
        if event_type == "comment.updated":
            self._request(
                "PATCH",
                f"/api/pub/comments/{comment_id}",
                auth=session,
                json={"content": "Edited by gcbridge webhooks trigger"},
            )
        elif event_type == "comment.deleted":
            self._request("DELETE", f"/api/pub/comments/{comment_id}", auth=session)
        elif event_type == "comment.approved":
            self._request("POST", f"/api/moderation/comments/{comment_id}/approve")
        return Fired(event_type, comment_id)

    def _test_user(self, shortname: str) -> str:
        suffix = secrets.token_hex(4)
        answer = self._request(
            "POST",
            "/api/pub/auth/register",
            auth="",
            json={
                "website_id": shortname,
                "username": f"gc-trigger-{suffix}",
                "email": f"gc-trigger-{suffix}@example.com",
                "password": secrets.token_urlsafe(16),
            },
        )
        return str(answer["token"])

    def wait_for_call(
        self,
        fired: Fired,
        *,
        call_id: str | None = None,
        timeout: float = 30.0,
        interval: float = 0.2,
        sleep: Callable[[float], None] = time.sleep,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> dict[str, Any]:
        """The call of ``fired`` (or ``call_id``) once it has an outcome; ``timeout`` otherwise."""
        deadline = monotonic() + timeout
        while True:
            page, _ = self.calls(event_type=fired.event_type, limit=50)
            mine = [
                c
                for c in page
                if (c.get("id") == call_id if call_id else call_comment_id(c) == fired.comment_id)
            ]
            if mine and settled(mine[0]):
                return mine[0]
            if monotonic() >= deadline:
                what = "no call was recorded (is a webhook set up for these events?)"
                if mine:
                    what = f"call {mine[0].get('id')} has no finished attempt yet"
                raise RemoteError(
                    f"waited {timeout:g}s for {fired.event_type}: {what}", reason="timeout"
                )
            sleep(interval)

    def follow(
        self,
        *,
        status: str | None = None,
        event_type: str | None = None,
        interval: float = 1.0,
        polls: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> Iterator[dict[str, Any]]:
        """Each call once when first seen and again whenever it gains an attempt or a status."""
        seen: dict[str, tuple[str, int]] = {}
        done = 0
        while polls is None or done < polls:
            page, _ = self.calls(status=status, event_type=event_type, limit=100)
            for call in reversed(page):  # oldest first on screen
                key = (str(call.get("status")), len(call.get("attempts") or []))
                if seen.get(str(call.get("id"))) != key:
                    seen[str(call.get("id"))] = key
                    yield call
            done += 1
            if polls is None or done < polls:
                sleep(interval)


_TOKEN_ERRORS = frozenset({"invalid_account_token", "auth_required"})
