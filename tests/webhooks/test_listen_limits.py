"""``webhooks listen`` caps bodies like WebhookReceiver (413 before reading), and delivery ids
over 200 characters are refused alike by the receiver, ``listen`` and every log backend."""

import socket

import httpx
import pytest
from fastapi import Depends, FastAPI

from gcbridge.clock import ManualClock
from gcbridge.serving import BackgroundServer
from gcbridge.webhooks import DeliveryLog, WebhookEvent
from gcbridge.webhooks.listen import create_app
from gcbridge.webhooks.receiver import WebhookReceiver
from tests.webhooks.support import NOW, SECRET, TS, delivery_headers, event_body

MIB = 1024 * 1024
LONG_ID = "d" * 201


def listen_server(lines, log=None):
    app = create_app(SECRET, out=lines.append, clock=ManualClock(start=NOW), delivery_log=log)
    return BackgroundServer(lambda port: app)


def receiver_server(handled, log=None):
    receiver = WebhookReceiver(SECRET, delivery_log=log, clock=ManualClock(start=NOW))
    app = FastAPI(exception_handlers=receiver.exception_handlers)

    @app.post("/")
    def hook(event: WebhookEvent = Depends(receiver)):
        handled.append(event)
        return {"ok": True}

    return BackgroundServer(lambda port: app)


def test_listen_answers_413_on_the_declared_length_before_reading_the_body():
    lines = []
    with (
        listen_server(lines) as server,
        socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock,
    ):
        sock.sendall(
            b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 629145600\r\n\r\n{"  # 600 MB announced, one byte sent
        )
        answer = b""
        while not answer.endswith(b"}"):  # answered without the other 600 MB
            chunk = sock.recv(4096)
            assert chunk, answer
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 413")
    assert b'"body_too_large"' in answer
    assert lines and lines[0].startswith("REJECTED") and "body_too_large" in lines[0]


def test_listen_answers_413_to_a_streamed_body_over_one_mib():
    lines = []

    def chunks():
        for _ in range(3):
            yield b"x" * (MIB // 2)

    with listen_server(lines) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        small = client.post("/", content=b"x" * 1000)  # under the cap: read, then verified
        big = client.post("/", content=chunks())  # chunked: no Content-Length
    assert small.status_code == 401
    assert big.status_code == 413 and big.json()["error"] == "body_too_large"


@pytest.mark.parametrize("with_log", [False, True])
def test_a_delivery_id_over_200_characters_is_refused_by_receiver_and_listen(tmp_path, with_log):
    body = event_body()
    headers = delivery_headers(body, ts=TS, delivery_id=LONG_ID)
    handled, lines = [], []
    log = DeliveryLog(tmp_path / "d.db") if with_log else None
    with (
        receiver_server(handled, log) as receiver,
        listen_server(lines, log) as listen,
        httpx.Client(timeout=30) as client,
    ):
        answers = [
            client.post(url, content=body, headers=headers) for url in (receiver.url, listen.url)
        ]
    for answer in answers:
        assert answer.status_code == 400
        assert answer.json()["error"] == "delivery_id_too_long"
    assert handled == []
    assert len(lines) == 1 and lines[0].startswith("REJECTED")
    assert "delivery_id_too_long" in lines[0]


def test_every_backend_refuses_a_long_id_and_keeps_a_200_character_one(shared_log_url):
    from gcbridge.webhooks.errors import WebhookDeliveryIdError

    log = DeliveryLog.from_url(shared_log_url, clock=ManualClock(start=NOW))
    try:
        for call in (
            lambda: log.acquire(LONG_ID, "aa" * 32, TS),
            lambda: log.state(LONG_ID),
        ):
            with pytest.raises(WebhookDeliveryIdError) as info:
                call()
            assert info.value.reason == "delivery_id_too_long"
        longest = "e" * 200
        claim = log.acquire(longest, "bb" * 32, TS)
        assert claim.status == "new"
        log.complete(claim)
        assert log.acquire(longest, "cc" * 32, TS + 1).status == "duplicate"
        # not cut to a shared prefix
        assert log.acquire("e" * 199, "dd" * 32, TS + 2).status == "new"
    finally:
        log.close()
