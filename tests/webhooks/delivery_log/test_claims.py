"""Claims settled by their own token: a handler that outlived its lease never releases or
completes the claim of the retry that took the id over (every backend, and the receiver)."""

import threading

import httpx
from fastapi import Depends, FastAPI, HTTPException

from gcbridge.clock import ManualClock
from gcbridge.serving import BackgroundServer
from gcbridge.webhooks import Delivery, DeliveryLog
from gcbridge.webhooks.receiver import WebhookReceiver
from tests.webhooks.support import NOW, SECRET, TS, delivery_headers, event_body

T = 1_700_000_000.0


def test_a_stale_release_or_completion_touches_nothing(shared_log_url):
    clock = ManualClock(start=T)
    log = DeliveryLog.from_url(shared_log_url, clock=clock, lease=30)
    try:
        slow = log.acquire("d1", "aa" * 32, int(T * 1000))
        assert slow.status == "new" and slow.held
        clock.advance(31)  # the slow handler outlived its lease: the retry claims the id
        retry = log.acquire("d1", "bb" * 32, int(T * 1000) + 31_000)
        assert retry.status == "new" and retry.token != slow.token
        assert log.release(slow) is False  # the slow handler raised: stale, nothing dropped
        assert log.state("d1") == "in_flight"
        assert log.complete(slow) is False  # ... or finished: stale, nothing written
        assert log.state("d1") == "in_flight"
        assert log.complete(retry) is True
        assert log.acquire("d1", "cc" * 32, int(T * 1000) + 32_000).status == "duplicate"
    finally:
        log.close()


def test_a_completion_after_the_lease_still_counts_when_nobody_took_over(shared_log_url):
    clock = ManualClock(start=T)
    log = DeliveryLog.from_url(shared_log_url, clock=clock, lease=30)
    try:
        claim = log.acquire("d1", "aa" * 32, int(T * 1000))
        clock.advance(31)
        assert log.complete(claim) is True
        assert log.state("d1") == "processed"
    finally:
        log.close()


def test_the_receiver_keeps_the_retrys_claim_when_the_slow_handler_raises(tmp_path):
    clock = ManualClock(start=T)
    log = DeliveryLog(tmp_path / "d.db", clock=clock, lease=30)
    receiver = WebhookReceiver(SECRET, delivery_log=log, clock=ManualClock(start=NOW))
    app = FastAPI(exception_handlers=receiver.exception_handlers)
    entered = {0: threading.Event(), 1: threading.Event()}
    release = {0: threading.Event(), 1: threading.Event()}
    runs = []

    @app.post("/hook")
    def hook(delivery: Delivery = Depends(receiver.delivery, scope="function")):
        attempt = delivery.retry_count
        runs.append(attempt)
        entered[attempt].set()
        assert release[attempt].wait(30)
        if attempt == 0:
            raise HTTPException(500, "the slow handler failed")
        return {"ok": True}

    def send(retry, answers):
        body = event_body()
        headers = delivery_headers(body, ts=TS + retry, retry=retry)
        answers[retry] = client.post("/hook", content=body, headers=headers)

    answers = {}
    with (
        BackgroundServer(lambda port: app) as server,
        httpx.Client(base_url=server.url, timeout=60) as client,
    ):
        slow = threading.Thread(target=send, args=(0, answers))
        slow.start()
        assert entered[0].wait(30)
        clock.advance(31)  # its lease ran out: the service's retry is handled
        retry = threading.Thread(target=send, args=(1, answers))
        retry.start()
        assert entered[1].wait(30)
        release[0].set()  # the slow handler raises while the retry's runs
        slow.join(30)
        release[1].set()
        retry.join(30)
        assert answers[0].status_code == 500
        assert answers[1].status_code == 200 and answers[1].json() == {"ok": True}
        assert log.state("d-1") == "processed"
        send(2, answers)  # one more copy: a duplicate, not a third run
        assert answers[2].json() == {"duplicate": True, "delivery_id": "d-1"}
    assert runs == [0, 1]
    log.close()
