"""The emulator's HTTP API as a customer's code drives it, for the emulator test folders.

The emulator-control tests (``tests.emulator.control.support.Client``) and the emulator's
webhook tests (``tests.emulator.webhooks.support.Api``) build on it.
"""

from __future__ import annotations

from typing import Any

import httpx

from gcbridge.emulator.testing import RunningEmulator


def bearer(token: str) -> dict[str, str]:
    """An ``Authorization: Bearer`` header."""
    return {"Authorization": f"Bearer {token}"}


class EmulatorApi:
    """The service's own routes on a running emulator: its first site, one signed-in user."""

    def __init__(self, emu: RunningEmulator, *, timeout: float = 10.0) -> None:
        self.emu = emu
        self.site = emu.site
        self.http = httpx.Client(base_url=emu.url, timeout=timeout)
        self.account = bearer(self.site.account_token)
        self._session: str | None = None
        self._n = 0

    @property
    def wid(self) -> str:
        return self.site.website_id

    def close(self) -> None:
        self.http.close()

    def setup_webhook(self, url: str, events: list[str] | None = None) -> dict[str, Any]:
        """Point the site's webhook at ``url``; the answer (its ``secret`` among it)."""
        body: dict[str, Any] = {"url": url}
        if events is not None:
            body["events"] = events
        r = self.http.post(f"/webhook/website/{self.wid}/setup", json=body, headers=self.account)
        assert r.status_code == 200 and "gcCode" not in r.json(), r.text
        answer: dict[str, Any] = r.json()
        return answer

    def list_calls(self, **params: Any) -> dict[str, Any]:
        """``GET .../calls`` with ``params``: the page, newest first."""
        r = self.http.get(f"/webhook/website/{self.wid}/calls", params=params, headers=self.account)
        assert r.status_code == 200, r.text
        page: dict[str, Any] = r.json()
        return page

    def session(self) -> str:
        """The token of alice, an own account of the site (registered once)."""
        if self._session is None:
            r = self.http.post(
                "/api/pub/auth/register",
                json={
                    "website_id": self.site.shortname,
                    "username": "alice",
                    "email": "alice@example.com",
                    "password": "correct horse battery staple",
                },
            )
            assert r.status_code in (200, 201), r.text
            self._session = str(r.json()["token"])
        return self._session

    def post_comment(self, content: str | None = None) -> httpx.Response:
        """Alice comments on article-1 (``comment number N`` unless ``content``): the answer."""
        self._n += 1
        return self.http.post(
            "/api/pub/comments",
            json={
                "website_id": self.site.shortname,
                "uid": "article-1",
                "url": "https://news.example/article-1",
                "page_title": "Article 1",
                "content": content or f"comment number {self._n}",
            },
            headers=bearer(self.session()),
        )

    def comment(self, content: str | None = None) -> dict[str, Any]:
        """:meth:`post_comment`, which must succeed: the comment created."""
        r = self.post_comment(content)
        assert r.status_code == 201, r.text
        created: dict[str, Any] = r.json()
        return created
