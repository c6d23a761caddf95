"""A small HTTP client of the service (or the emulator), as the app and the scenarios use it.

``thread_load`` is what the app calls before loading the WebView
(docs/explanation/service.md#loading-the-widget);
the other calls let scenarios set up a thread (seed comments, a user holding a
username) without going through a browser.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx

__all__ = ["ServiceClient"]


@dataclass
class ServiceClient:
    """Calls of the service's public API on ``base_url`` for the site ``shortname``."""

    base_url: str
    shortname: str
    api_public_key: str
    timeout: float = 10.0
    _client: httpx.Client | None = field(default=None, repr=False)

    def _call(
        self, method: str, path: str, *, token: str | None = None, **kwargs: Any
    ) -> httpx.Response:
        if self._client is None:
            self._client = httpx.Client(base_url=self.base_url, timeout=self.timeout)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return self._client.request(method, path, headers=headers, **kwargs)

    def close(self) -> None:
        """Close the HTTP client."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def thread_load(self, *, uid: str, url: str, page_title: str) -> str:
        """``GET /api/pub/thread-load/``: the gc_url of the thread."""
        response = self._call(
            "GET",
            "/api/pub/thread-load/",
            params={
                "service_id": self.shortname,
                "url": url,
                "uid": uid,
                "page_title": page_title,
                "inapp": "true",
                "redirect": "true",
            },
        )
        response.raise_for_status()
        gc_url: str = response.json()["gc_url"]
        return gc_url

    def sso_login(self, sso_data: str) -> httpx.Response:
        """``POST /api/pub/sso/login`` as the widget does it (ssoData in the body)."""
        return self._call(
            "POST",
            "/api/pub/sso/login",
            json={"api_public_key": self.api_public_key, "ssoData": sso_data},
        )

    def session_token(self, sso_data: str) -> str:
        """A widget session token for the ssoData's user (created if new)."""
        response = self.sso_login(sso_data)
        response.raise_for_status()
        token: str = response.json()["token"]
        return token

    def me(self, token: str) -> httpx.Response:
        """``GET /api/pub/me``: 200 while the session lives, 401 once revoked."""
        return self._call("GET", "/api/pub/me", token=token)

    def post_comment(
        self,
        token: str,
        *,
        uid: str,
        content: str,
        url: str = "https://example.com/",
        page_title: str = "Harness",
        parent_id: str | None = None,
    ) -> dict[str, Any]:
        """``POST /api/pub/comments``; returns the comment JSON."""
        body: dict[str, Any] = {
            "website_id": self.shortname,
            "uid": uid,
            "url": url,
            "page_title": page_title,
            "content": content,
        }
        if parent_id is not None:
            body["parent_id"] = parent_id
        response = self._call("POST", "/api/pub/comments", token=token, json=body)
        response.raise_for_status()
        comment: dict[str, Any] = response.json()
        return comment

    def comments(self, uid: str) -> list[dict[str, Any]]:
        """The visible comments of a thread, oldest first."""
        response = self._call(
            "GET", "/api/pub/comments", params={"website_id": self.shortname, "uid": uid}
        )
        response.raise_for_status()
        comments: list[dict[str, Any]] = response.json()["comments"]
        return comments
