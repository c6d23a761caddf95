"""The demo's webhook receiver uses the delivery log as the SDK does: acquire, process, complete.

A copy of a processed delivery is acknowledged and not processed again; a copy that
arrives while another handler still holds the delivery is answered 503 with
``Retry-After`` (the service retries it), not processed as new.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from gcbridge.demo.backend import ReceiverState, create_app
from gcbridge.demo.timeline import Timeline
from gcbridge.serving import BackgroundServer
from gcbridge.webhooks.testing import encode_event, sample_event, signed_headers

SSO_SECRET = "demo-receiver-sso-secret-0123456"
WEBHOOK_SECRET = "whsec_demo_receiver"
BODY = encode_event(sample_event(content="Hello from the demo's receiver test"))


def _post(client: httpx.Client, delivery_id: str, attempt: int) -> httpx.Response:
    # Every attempt is signed afresh: a copy has the same id and a new signature.
    signed_at = int(time.time() * 1000) + attempt
    headers = signed_headers(WEBHOOK_SECRET, BODY, timestamp_ms=signed_at, delivery_id=delivery_id)
    return client.post("/webhooks/gc", content=BODY, headers=headers)


@contextmanager
def _receiver(timeline: Timeline, receiver: ReceiverState) -> Iterator[httpx.Client]:
    app = create_app(SSO_SECRET, timeline, receiver)
    with BackgroundServer(lambda port: app) as server, httpx.Client(base_url=server.url) as http:
        yield http


def _verified(timeline: Timeline) -> int:
    return sum(1 for event in timeline.events() if event.kind == "webhook.verified")


def test_a_delivery_is_completed_once_processed_and_its_copy_is_acknowledged() -> None:
    timeline, receiver = Timeline(), ReceiverState(secrets=[WEBHOOK_SECRET])
    with _receiver(timeline, receiver) as client:
        assert _post(client, "dlv-1", 0).status_code == 204
        assert receiver.log.state("dlv-1") == "processed"
        assert _post(client, "dlv-1", 1).status_code == 204  # the duplicate: acknowledged
    assert _verified(timeline) == 1


def test_a_copy_in_flight_is_asked_to_come_back_not_processed_as_new() -> None:
    timeline, receiver = Timeline(), ReceiverState(secrets=[WEBHOOK_SECRET])
    held = receiver.log.acquire("dlv-2", "ab" * 32, int(time.time() * 1000))
    with _receiver(timeline, receiver) as client:
        copy = _post(client, "dlv-2", 0)
        assert copy.status_code == 503
        assert copy.headers["Retry-After"] == str(int(receiver.log.lease))
        assert _verified(timeline) == 0
        receiver.log.complete(held)  # the other handler finished
        assert _post(client, "dlv-2", 1).status_code == 204
    assert _verified(timeline) == 0
