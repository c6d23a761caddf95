"""WebhookReceiver's answers around a shared log: in flight 503, duplicate 200, outage 503."""

import threading

import httpx
import pytest
from fastapi import Depends, FastAPI, HTTPException

from gcbridge.clock import ManualClock
from gcbridge.serving import BackgroundServer
from gcbridge.webhooks import DeliveryLog, WebhookEvent
from gcbridge.webhooks.receiver import WebhookReceiver
from tests.webhooks.support import NOW, SECRET, TS, delivery_headers, event_body


class Gate:
    """Holds the handler of the first request until the test opens it (or fails it)."""

    def __init__(self):
        self.entered = threading.Event()
        self.open = threading.Event()
        self.fail = False
        self.handled = []


def serve(log, gate, *, scope="function"):
    clock = ManualClock(start=NOW)
    receiver = WebhookReceiver(SECRET, delivery_log=log, clock=clock)
    app = FastAPI(exception_handlers=receiver.exception_handlers)

    @app.post("/hook")
    def hook(event: WebhookEvent = Depends(receiver, scope=scope)):
        gate.entered.set()
        assert gate.open.wait(30)
        if gate.fail:
            gate.fail = False
            raise HTTPException(500, "handler failed")
        gate.handled.append(event)
        return {"ok": True}

    return BackgroundServer(lambda port: app)


@pytest.fixture
def two_instances(shared_log_url):
    """Two receivers (each its own log connection) on one shared log, and their gate."""
    gate = Gate()
    logs = [DeliveryLog.from_url(shared_log_url) for _ in range(2)]
    with (
        serve(logs[0], gate) as a,
        serve(logs[1], gate) as b,
        httpx.Client(base_url=a.url) as ca,
        httpx.Client(base_url=b.url) as cb,
    ):
        yield ca, cb, gate, logs[0]
    for log in logs:
        log.close()


def attempt(client, n, **kw):
    body = event_body()
    return client.post("/hook", content=body, headers=delivery_headers(body, ts=TS + n, **kw))


def test_a_copy_in_flight_elsewhere_is_503_and_the_retry_after_a_failure_is_handled(two_instances):
    a, b, gate, log = two_instances
    first = {}
    worker = threading.Thread(target=lambda: first.update(r=attempt(a, 0)))
    worker.start()
    assert gate.entered.wait(30)
    copy = attempt(b, 1, retry=1)
    assert copy.status_code == 503
    assert copy.json() == {"error": "delivery_in_flight", "delivery_id": "d-1"}
    assert int(copy.headers["Retry-After"]) >= 1
    gate.fail = True
    gate.open.set()
    worker.join()
    assert first["r"].status_code == 500  # the handler raised: the claim is released
    retry = attempt(b, 2, retry=2)
    assert retry.status_code == 200 and retry.json() == {"ok": True}
    again = attempt(a, 3, retry=3)
    assert again.status_code == 200 and again.json() == {"duplicate": True, "delivery_id": "d-1"}
    assert len(gate.handled) == 1 and log.state("d-1") == "processed"


def test_default_scope_completes_just_after_the_answer(tmp_path):
    gate = Gate()
    gate.open.set()
    log = DeliveryLog(tmp_path / "d.db")
    with serve(log, gate, scope=None) as server, httpx.Client(base_url=server.url) as client:
        assert attempt(client, 0).json() == {"ok": True}
        answers = [attempt(client, n, retry=n).status_code for n in range(1, 200)]
    # Right after the answer a copy may still be in flight (503); then it is a duplicate.
    assert set(answers) <= {200, 503} and answers[-1] == 200
    assert len(gate.handled) == 1 and log.state("d-1") == "processed"


def test_backend_outage_is_503_and_nothing_is_handled(monkeypatch, tmp_path):
    from gcbridge.webhooks.errors import DeliveryLogUnavailable

    gate = Gate()
    gate.open.set()
    log = DeliveryLog(tmp_path / "d.db")

    def down(*args, **kw):
        raise DeliveryLogUnavailable("down", reason="delivery_log_unavailable")

    monkeypatch.setattr(log, "acquire", down)  # the receiver claims through acquire
    with serve(log, gate) as server, httpx.Client(base_url=server.url) as client:
        response = attempt(client, 0)
    assert response.status_code == 503
    assert response.json()["error"] == "delivery_log_unavailable"
    assert int(response.headers["Retry-After"]) > 0
    assert gate.handled == []
