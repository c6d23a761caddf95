"""The FastAPI dependency over real HTTP on loopback: the documented answers,
duplicates, replays."""

import contextlib
import json

import httpx
from fastapi import Depends, FastAPI, HTTPException

from gcbridge.clock import ManualClock
from gcbridge.serving import BackgroundServer
from gcbridge.webhooks import Delivery, WebhookEvent, sign
from gcbridge.webhooks.delivery_log import DeliveryLog
from gcbridge.webhooks.receiver import WebhookReceiver
from tests.webhooks.support import NOW, SECRET, TS, delivery_headers, event_body

_STACK = contextlib.ExitStack()


def TestClient(app):
    """An httpx client on ``app`` served by uvicorn on loopback (closed at module teardown)."""
    server = _STACK.enter_context(BackgroundServer(lambda port: app))
    return _STACK.enter_context(httpx.Client(base_url=server.url))


def teardown_module():
    _STACK.close()


def make_app(receiver, *, handlers=True, fail_first=False):
    app = FastAPI(exception_handlers=receiver.exception_handlers if handlers else None)
    handled = []

    @app.post("/hook")
    def hook(event: WebhookEvent = Depends(receiver, scope="function")):
        if fail_first and not handled:
            handled.append(None)
            raise HTTPException(503, "try again")
        handled.append(event)
        return {"ok": True, "content": event.data.comment.content}

    @app.post("/hook/full")
    def full(delivery: Delivery = Depends(receiver.delivery, scope="function")):
        handled.append(delivery)
        return {"id": delivery.delivery_id, "retry": delivery.retry_count}

    return app, handled


def client_for(**kw):
    clock = ManualClock(start=NOW)
    log = DeliveryLog(clock=clock)
    receiver = WebhookReceiver(SECRET, delivery_log=log, clock=clock)
    app, handled = make_app(receiver, **kw)
    return TestClient(app), handled, clock, log


def post(client, body, headers, path="/hook"):
    return client.post(path, content=body, headers=headers)


def test_verified_delivery_reaches_the_handler_typed():
    client, handled, _, log = client_for()
    body = event_body()
    response = post(client, body, delivery_headers(body))
    assert response.status_code == 200
    assert response.json() == {"ok": True, "content": "Hello ✓"}
    assert isinstance(handled[0], WebhookEvent)
    assert log.state("d-1") == "processed"


def test_delivery_dependency_gives_the_bookkeeping_headers():
    client, handled, _, _ = client_for()
    body = event_body()
    response = post(client, body, delivery_headers(body, delivery_id="abc", retry=3), "/hook/full")
    assert response.json() == {"id": "abc", "retry": 3}


def test_refusals_are_401_with_the_reason_and_skip_the_handler():
    client, handled, clock, _ = client_for()
    body = event_body()
    good = delivery_headers(body)
    cases = {
        "missing_header": {k: v for k, v in good.items() if k != "X-Webhook-Signature"},
        "malformed_timestamp": {**good, "X-Webhook-Timestamp": "soon"},
        "malformed_signature": {**good, "X-Webhook-Signature": "abc"},
        "signature_mismatch": {**good, "X-Webhook-Signature": sign("other", TS, body)},
    }
    for reason, headers in cases.items():
        response = post(client, body, headers)
        assert response.status_code == 401, reason
        assert response.json()["error"] == reason
    clock.advance(301)
    assert post(client, body, good).json()["error"] == "timestamp_too_old"
    clock.set(NOW - 301)
    assert post(client, body, good).json()["error"] == "timestamp_too_new"
    assert handled == []


def test_reserialized_body_is_refused():
    client, _, _, _ = client_for()
    body = event_body()  # compact; json.dumps re-serializes with spaces
    response = client.post(
        "/hook", content=json.dumps(json.loads(body)), headers=delivery_headers(body)
    )
    assert response.status_code == 401
    assert response.json()["error"] == "signature_mismatch"


def test_authentic_non_event_is_400_malformed_payload():
    client, handled, _, _ = client_for()
    body = b'{"hello": "world"}'
    response = post(client, body, delivery_headers(body))
    assert response.status_code == 400
    assert response.json()["error"] == "malformed_payload"
    assert handled == []


def test_duplicate_delivery_id_is_acknowledged_and_skipped():
    client, handled, clock, _ = client_for()
    body = event_body()
    assert post(client, body, delivery_headers(body)).status_code == 200
    clock.advance(60)  # the service's retry: same id, fresh timestamp and signature
    retry = delivery_headers(body, ts=TS + 60_000, retry=1)
    response = post(client, body, retry)
    assert response.status_code == 200
    assert response.json() == {"duplicate": True, "delivery_id": "d-1"}
    assert len(handled) == 1


def test_captured_request_replayed_with_a_new_delivery_id_is_caught():
    client, handled, _, _ = client_for()
    body = event_body()
    captured = delivery_headers(body)
    assert post(client, body, captured).status_code == 200
    response = post(client, body, {**captured, "X-Webhook-Delivery-Id": "forged-2"})
    assert response.status_code == 401
    assert response.json()["error"] == "replayed_signature"
    assert len(handled) == 1


def test_failed_handler_leaves_the_delivery_unprocessed_for_the_retry():
    client, handled, clock, log = client_for(fail_first=True)
    body = event_body()
    assert post(client, body, delivery_headers(body)).status_code == 503
    assert log.state("d-1") != "processed"
    clock.advance(60)
    response = post(client, body, delivery_headers(body, ts=TS + 60_000, retry=1))
    assert response.status_code == 200 and response.json()["ok"] is True
    assert log.state("d-1") == "processed"


def test_without_installed_handlers_status_codes_still_hold():
    clock = ManualClock(start=NOW)
    receiver = WebhookReceiver(SECRET, clock=clock)
    app, _ = make_app(receiver, handlers=False)
    client = TestClient(app)
    body = event_body()
    response = post(client, body, {"X-Webhook-Timestamp": str(TS)})
    assert response.status_code == 401
    assert response.json()["detail"]["error"] == "missing_header"
    assert post(client, body, delivery_headers(body)).status_code == 200


def test_install_on_an_existing_app_and_rotation():
    clock = ManualClock(start=NOW)
    receiver = WebhookReceiver("old", clock=clock)
    app, _ = make_app(receiver, handlers=False)
    receiver.install(app)
    client = TestClient(app)
    body = event_body()
    assert post(client, body, delivery_headers(body, secret="new")).json() == {
        "error": "signature_mismatch",
        "message": post(client, body, delivery_headers(body, secret="new")).json()["message"],
    }
    receiver.rotate(["new", "old"])
    assert post(client, body, delivery_headers(body, secret="new")).status_code == 200
    assert (
        post(client, body, delivery_headers(body, secret="old", delivery_id="d-2")).status_code
        == 200
    )


def test_oversized_bodies_are_refused_before_verification():
    receiver = WebhookReceiver(SECRET, clock=ManualClock(start=NOW), max_body=100)
    app, _ = make_app(receiver)
    client = TestClient(app)
    body = event_body()
    response = post(client, body, delivery_headers(body))
    assert response.status_code == 413
    assert response.json() == {"error": "body_too_large"}

    def chunks():
        yield body[:50]
        yield body[50:]

    response = client.post("/hook", content=chunks(), headers=delivery_headers(body))
    assert response.status_code == 413


def test_handler_can_still_read_the_raw_body():
    from fastapi import Request

    receiver = WebhookReceiver(SECRET, clock=ManualClock(start=NOW))
    app = FastAPI(exception_handlers=receiver.exception_handlers)

    @app.post("/raw")
    async def raw(request: Request, event: WebhookEvent = Depends(receiver)):
        return {"size": len(await request.body())}

    body = event_body()
    assert TestClient(app).post("/raw", content=body, headers=delivery_headers(body)).json() == {
        "size": len(body)
    }


def test_secrets_are_not_in_repr():
    assert SECRET not in repr(WebhookReceiver(SECRET))
