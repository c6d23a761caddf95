"""Helpers of the delivery log outage tests: dedicated servers to hang, receivers to drive.

The servers here are the tests' own (module scope), not the session's: a test
stops them with SIGSTOP (:func:`delivery_servers.hung`), and a failure midway
must not leave the shared servers stopped for other tests.
"""

import contextlib
import threading

import httpx
import pytest
from fastapi import Depends, FastAPI

from gcbridge.clock import ManualClock
from gcbridge.serving import BackgroundServer
from gcbridge.webhooks import DeliveryLog, WebhookEvent
from gcbridge.webhooks.listen import create_app
from gcbridge.webhooks.receiver import WebhookReceiver
from tests.webhooks.delivery_servers import ServerUnavailable, postgres_server, redis_server, reset
from tests.webhooks.support import NOW, SECRET, TS, delivery_headers, event_body

FACTORIES = {"postgres": postgres_server, "redis": redis_server}


@contextlib.contextmanager
def own_server(kind):
    """A throwaway server of ``kind`` for one module; a skip if its binary is missing."""
    try:
        with FACTORIES[kind]() as url:
            yield url
    except ServerUnavailable as exc:
        pytest.skip(str(exc))


def fresh(url):
    reset(url)
    return url


class Handled:
    """What the app under test did: events handled (or lines printed), and a hook per handling."""

    def __init__(self):
        self.events = []
        self.lines = []
        self.on_handle = None
        self.lock = threading.Lock()

    def handle(self, what):
        with self.lock:
            self.events.append(what)
        if self.on_handle is not None:
            hook, self.on_handle = self.on_handle, None
            hook()

    def verified(self):
        return [line for line in self.lines if line.startswith("VERIFIED")]


def receiver_app(log, handled):
    """The README's receiver: ``Depends(receiver, scope="function")``, one handler."""
    receiver = WebhookReceiver(SECRET, delivery_log=log, clock=ManualClock(start=NOW))
    app = FastAPI(exception_handlers=receiver.exception_handlers)

    @app.post("/hook")
    def hook(event: WebhookEvent = Depends(receiver, scope="function")):
        handled.handle(event)
        return {"ok": True}

    return app


def listen_app(log, handled):
    """``gcbridge webhooks listen``'s app: printing VERIFIED is its handling."""

    def out(line):
        handled.lines.append(line)
        if line.startswith("VERIFIED"):
            handled.handle(line)

    return create_app(SECRET, out=out, delivery_log=log, clock=ManualClock(start=NOW))


APPS = {"receiver": receiver_app, "listen": listen_app}


@contextlib.contextmanager
def serving(app_kind, url, **log_options):
    """(client, handled, log): the app of ``app_kind`` on a log at ``url``, served on loopback."""
    log = DeliveryLog.from_url(url, **log_options)
    handled = Handled()
    app = APPS[app_kind](log, handled)
    try:
        with (
            BackgroundServer(lambda port: app) as server,
            httpx.Client(base_url=server.url, timeout=60) as client,
        ):
            yield client, handled, log
    finally:
        log.close()


def post(client, n, *, delivery_id="d-1", retry=0):
    """Attempt ``n`` of the service: a fresh signature (timestamp TS + n)."""
    body = event_body()
    headers = delivery_headers(body, ts=TS + n, delivery_id=delivery_id, retry=retry)
    return client.post("/hook", content=body, headers=headers)


def until_answered(client, first_n, *, delivery_id="d-1", attempts=400):
    """The service retrying one delivery until it is answered 200; every answer in order."""
    answers = []
    for n in range(first_n, first_n + attempts):
        response = post(client, n, delivery_id=delivery_id, retry=n - first_n + 1)
        answers.append(response)
        if response.status_code == 200:
            return answers
        assert response.status_code == 503, response.text
        assert response.json()["error"] == "delivery_log_unavailable"
        assert int(response.headers["Retry-After"]) > 0
        threading.Event().wait(0.05)  # the breaker lets one probe through per interval
    raise AssertionError("the delivery was never answered 200 after the outage")
