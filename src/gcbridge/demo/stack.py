"""The demo's servers on loopback: the emulator and the sample customer backend.

:class:`DemoStack` starts both, points the site's webhook at the backend's receiver
through the real setup route (``Authorization: Bearer <account token>``),
and asks thread-load for the widget URL, to which it appends
``&api_public_key`` (docs/explanation/service.md#loading-the-widget). Both modes of the demo
run on one stack.
"""

from __future__ import annotations

import errno
import socket
from dataclasses import KW_ONLY, dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from gcbridge.demo import backend
from gcbridge.demo.backend import DemoCredentials, ReceiverState
from gcbridge.demo.errors import DemoError
from gcbridge.demo.paths import DEFAULT_PORT
from gcbridge.demo.timeline import Timeline
from gcbridge.webhooks.catalog import EVENT_TYPES

__all__ = ["DemoStack", "Article", "ARTICLE", "DEFAULT_PORT"]


@dataclass(frozen=True)
class Article:
    """The app's content the comment thread belongs to (thread-load parameters)."""

    uid: str
    url: str
    page_title: str


ARTICLE = Article(
    uid="article-42",
    url="https://news.example.com/articles/42",
    page_title="Native apps, hosted comments",
)


def _check_port_free(host: str, port: int) -> None:
    # uvicorn would fail in its thread with a bare OSError; say it in one line instead
    if port == 0:
        return
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # as the server will: TIME_WAIT leftovers of a previous run do not count as "in use"
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                raise DemoError(
                    f"port {port} on {host} is in use; pick another with --port",
                    reason="port_in_use",
                ) from None
            raise


@dataclass(eq=False, repr=False)
class DemoStack:
    """Emulator + customer backend, configured for the demo; a context manager."""

    data_dir: Path
    timeline: Timeline
    _: KW_ONLY
    port: int = DEFAULT_PORT
    host: str = "127.0.0.1"
    article: Article = ARTICLE
    receiver: ReceiverState = field(init=False, default_factory=ReceiverState)
    # generated per run, never stored: see docs/explanation/demo.md
    credentials: DemoCredentials = field(init=False, default_factory=DemoCredentials.new)
    _servers: list[Any] = field(init=False, default_factory=list)
    emulator_url: str = field(init=False, default="")
    backend_url: str = field(init=False, default="")
    widget_url: str = field(init=False, default="")
    site: Any = field(init=False, default=None)

    def start(self) -> DemoStack:
        """Start both servers, configure the webhook, resolve the widget URL."""
        import httpx

        from gcbridge.emulator.service import create_app
        from gcbridge.emulator.settings import Settings
        from gcbridge.serving import BackgroundServer

        _check_port_free(self.host, self.port)
        # the emulator's site (with its generated credentials) lives in the data dir,
        # so that a relaunch serves the same site and the widget session stays valid
        settings = Settings.from_options(
            host=self.host,
            port=self.port or 1,
            data_dir=self.data_dir / "emulator",
            allow_private_receivers=True,  # the receiver is on loopback, over http
        )
        emulator = BackgroundServer(
            lambda bound: create_app(replace(settings, port=bound)), host=self.host, port=self.port
        )
        self._servers.append(emulator.start())
        self.emulator_url = emulator.url
        self.site = next(iter(settings.sites))
        self.timeline.record("emulator.ready", f"emulator ready on {self.emulator_url}")

        sample = BackgroundServer(
            lambda _port: backend.create_app(
                self.site.sso_secret, self.timeline, self.receiver, self.credentials
            ),
            host=self.host,
        )
        self._servers.append(sample.start())
        self.backend_url = sample.url
        self.timeline.record("backend.ready", f"customer backend ready on {self.backend_url}")

        with httpx.Client(base_url=self.emulator_url, timeout=10) as client:
            receiver_url = f"{self.backend_url}/webhooks/gc"
            answer = client.post(
                f"/webhook/website/{self.site.website_id}/setup",
                json={"url": receiver_url, "events": list(EVENT_TYPES)},
                headers={"Authorization": f"Bearer {self.site.account_token}"},
            )
            config = _json_or_fail(answer, "webhook setup")
            with self.receiver.lock:
                self.receiver.secrets[:] = [config["secret"]]
            self.timeline.record(
                "webhook.configured",
                f"webhook -> {receiver_url} for {', '.join(config.get('events', EVENT_TYPES))}",
            )
            loaded = _json_or_fail(
                client.get(
                    "/api/pub/thread-load/",
                    params={
                        "service_id": self.site.shortname,
                        "url": self.article.url,
                        "uid": self.article.uid,
                        "page_title": self.article.page_title,
                        "inapp": "true",
                        "redirect": "true",
                    },
                ),
                "thread-load",
            )
        self.widget_url = (
            f"{loaded['gc_url']}&{urlencode({'api_public_key': self.site.sso_public_key})}"
        )
        self.timeline.record(
            "thread.loaded", f"thread-load -> gc_url (+ api_public_key) {self.widget_url}"
        )
        return self

    def stop(self) -> None:
        """Stop both servers (backend first, so no delivery is left half-answered)."""
        while self._servers:
            self._servers.pop().stop()

    def __enter__(self) -> DemoStack:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _json_or_fail(response: Any, what: str) -> dict[str, Any]:
    # the service may answer 200 with a gcCode in the body: check the body too
    try:
        body = response.json()
    except ValueError:
        body = None
    if response.status_code >= 400 or not isinstance(body, dict) or "gcCode" in body:
        raise DemoError(f"{what} failed: HTTP {response.status_code} {response.text[:200]}")
    return body
