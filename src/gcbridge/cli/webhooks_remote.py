"""An HTTP client of a running emulator's webhook routes (``webhooks trigger|calls|replay``).

Only the emulator's public routes are used; it needs httpx (the ``emulator`` extra). The
client does not trust its server: every request has a total deadline (``timeout``, however
slowly the answer trickles in), an answer larger than :data:`MAX_ANSWER_BYTES` is refused
unread, and an answer of the wrong shape is a ``bad_answer``, never a traceback.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from gcbridge.cli.bounded_http import HttpProblem, bounded_request
from gcbridge.errors import GcBridgeError
from gcbridge.webhooks.catalog import EVENT_TYPES, kind

__all__ = [
    "RemoteError",
    "EmulatorClient",
    "Fired",
    "settled",
    "call_comment_id",
    "MAX_ANSWER_BYTES",
    "MIN_PREFIX",
]

MAX_ANSWER_BYTES = 16 * 1024 * 1024
"""The largest answer read from the emulator (a page of 200 calls with bodies fits)."""

MIN_PREFIX = 4
"""The shortest call id prefix accepted (``0d1e`` for ``0d1e…`` as the table shows it)."""

_FULL_ID = 24  # the emulator's ids: 24 lowercase hex characters

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
        website_id: str | None,
        account_token: str,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = 10.0,
    ) -> None:
        self.website_id = website_id
        self._token = account_token
        self._base = base_url.rstrip("/")
        self._transport = transport
        self._timeout = timeout

    def __repr__(self) -> str:
        return f"EmulatorClient({self._base!r}, {self.website_id!r}, token='***')"

    def close(self) -> None:
        """Nothing to release: each request opens and closes its own connection."""

    def __enter__(self) -> EmulatorClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _request(self, method: str, path: str, *, auth: str | None = None, **kw: Any) -> Any:
        # auth: None -> the account token; "" -> none (registering the test user).
        token = self._token if auth is None else auth
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        try:
            response = bounded_request(
                method,
                self._base + path,
                headers=headers,
                deadline=self._timeout,
                max_bytes=MAX_ANSWER_BYTES,
                transport=self._transport,
                **kw,
            )
        except HttpProblem as exc:
            if exc.reason == "unreachable":
                message = f"cannot reach the emulator at {self._base} ({exc})"
            else:
                message = f"{method} {path}: {exc}"
            raise RemoteError(message, reason=exc.reason) from None
        data = response.json_object()
        if data is None:
            raise RemoteError(
                f"{method} {path}: HTTP {response.status}, not a JSON object "
                "(is this URL a gcbridge emulator?)",
                reason="api_error",
            )
        code = data.get("gcCode")
        if response.status >= 400 or (isinstance(code, int) and code >= 400):
            error = data.get("error")
            reason = "bad_token" if code == 410 or error in _TOKEN_ERRORS else "api_error"
            if error == "call_not_found":
                reason = "call_not_found"
            message = str(data.get("message") or error or "refused")[:300]
            raise RemoteError(f"{method} {path}: {message}", reason=reason)
        return data

    def site(self) -> dict[str, Any]:
        """The site of the account token; ``wrong_site`` if it is not ``website_id``.

        A client made without ``website_id`` takes the token's site: an account token
        belongs to exactly one site, so there is nothing to choose.
        """
        path = "/api/dashboard/site"
        site: dict[str, Any] = self._request("GET", path)
        if self.website_id is None:
            found = site.get("website_id")
            if not isinstance(found, str) or not found:
                raise _bad_answer("GET", path, 'no "website_id" in the answer')
            self.website_id = found
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
        wanted = {"limit": str(limit), "status": status, "event_type": event_type, "cursor": cursor}
        params = {name: value for name, value in wanted.items() if value}
        path = f"/webhook/website/{self._website_id()}/calls"
        data = self._request("GET", path, params=params)
        page, cursor = data.get("calls"), data.get("next_cursor")
        if not isinstance(page, list) or not all(_is_call(c) for c in page):
            raise _bad_answer("GET", path, '"calls" is not a list of calls')
        if cursor is not None and not isinstance(cursor, str):
            raise _bad_answer("GET", path, '"next_cursor" is not a string')
        return page, cursor

    def _website_id(self) -> str:
        """``website_id``, or the account token's site when none was given."""
        if self.website_id is None:
            self.site()
        assert self.website_id is not None
        return self.website_id

    def find_call(self, id_or_prefix: str, *, max_pages: int = 50) -> dict[str, Any]:
        """The call whose id is ``id_or_prefix``, or the one call whose id starts with it.

        A trailing ``…`` (as tables show shortened ids) is ignored.
        """
        wanted = id_or_prefix.strip().rstrip("…").rstrip(".").lower()
        if len(wanted) < MIN_PREFIX:
            raise RemoteError(
                f"call id {id_or_prefix[:40]!r}: give at least {MIN_PREFIX} characters",
                reason="usage",
            )
        found: list[dict[str, Any]] = []
        cursor = None
        for _ in range(max_pages):
            page, cursor = self.calls(limit=200, cursor=cursor)
            for call in page:
                if call["id"] == wanted:
                    return call
                if str(call["id"]).startswith(wanted):
                    found.append(call)
            if cursor is None:
                break
        if not found:
            raise RemoteError(
                f"no call {id_or_prefix[:40]!r} for website {self.website_id}",
                reason="call_not_found",
            )
        if len(found) > 1:
            names = ", ".join(str(c["id"]) for c in found[:5])
            raise RemoteError(
                f"call id prefix {wanted!r} matches {len(found)} calls ({names}"
                f"{', ...' if len(found) > 5 else ''}); give more characters",
                reason="ambiguous_id",
            )
        return found[0]

    def resolve_call_id(self, id_or_prefix: str) -> str:
        """A full call id: ``id_or_prefix`` itself if it is one, else the call it prefixes."""
        text = id_or_prefix.strip()
        if len(text) == _FULL_ID and all(c in "0123456789abcdef" for c in text):
            return text
        return str(self.find_call(text)["id"])

    def replay(self, call_id: str) -> tuple[dict[str, Any], bool]:
        """Replay a failed call: the replay call and whether it is fresh (idempotent route).

        ``call_id`` may be a unique prefix. A call already replayed answers its
        replay (``fresh`` False): the emulator makes one delivery per replay.
        """
        full = self.resolve_call_id(call_id)
        path = f"/webhook/call/{full}/replay"
        data = self._request("POST", path)
        call = data.get("call")
        if not _is_call(call):
            raise _bad_answer("POST", path, 'no "call" object in the answer')
        return call, data.get("fresh") is not False

    def fire(self, event_type: str) -> Fired:
        """Make the emulator fire ``event_type`` through its own routes, as a test user."""
        if event_type not in EVENT_TYPES:
            raise RemoteError(
                f"unknown event {event_type!r}; one of {', '.join(EVENT_TYPES)}",
                reason="unknown_event_type",
            )
        shortname = self.site().get("shortname")
        if not isinstance(shortname, str):
            raise _bad_answer("GET", "/api/dashboard/site", 'no "shortname" in the answer')
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
        if not isinstance(comment.get("id"), str):
            raise _bad_answer("POST", "/api/pub/comments", 'no comment "id" in the answer')
        comment_id = str(comment["id"])
        trigger = kind(event_type).trigger  # "post": the comment just posted fired it
        if trigger == "edit":
            self._request(
                "PATCH",
                f"/api/pub/comments/{comment_id}",
                auth=session,
                json={"content": "Edited by gcbridge webhooks trigger"},
            )
        elif trigger == "delete":
            self._request("DELETE", f"/api/pub/comments/{comment_id}", auth=session)
        elif trigger == "approve":
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
        if not isinstance(answer.get("token"), str):
            raise _bad_answer("POST", "/api/pub/auth/register", 'no "token" in the answer')
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
        limit: int = 50,
        interval: float = 1.0,
        polls: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> Iterator[dict[str, Any]]:
        """Each call once when first seen and again whenever it gains an attempt or a status.

        Each poll reads the newest ``limit`` calls: the first shows at most that
        many, and a burst of more than ``limit`` between two polls shows the newest.
        """
        seen: dict[str, tuple[str, int]] = {}
        done = 0
        while polls is None or done < polls:
            page, _ = self.calls(status=status, event_type=event_type, limit=limit)
            for call in reversed(page):  # oldest first on screen
                key = (str(call.get("status")), len(call.get("attempts") or []))
                if seen.get(str(call.get("id"))) != key:
                    seen[str(call.get("id"))] = key
                    yield call
            done += 1
            if polls is None or done < polls:
                sleep(interval)


_TOKEN_ERRORS = frozenset({"invalid_account_token", "auth_required"})


def _is_call(value: Any) -> bool:
    """A call as the CLI needs it: an object with a string id and a list of attempts."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("id"), str)
        and isinstance(value.get("attempts", []), list)
        and all(isinstance(a, dict) for a in value.get("attempts", []))
    )


def _bad_answer(method: str, path: str, what: str) -> RemoteError:
    return RemoteError(
        f"{method} {path}: {what} (is this URL a gcbridge emulator of this version?)",
        reason="bad_answer",
    )
