"""Deliveries over real HTTP to a loopback receiver: success, every fault, headers, retries."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from datetime import datetime

import pytest

from gcbridge.clock import ManualClock, utc_iso
from gcbridge.emulator.testing import EXAMPLE_SITE
from tests.emulator.webhooks.support import (
    START,
    Api,
    Receiver,
    Reply,
    bearer,
    hmac_hex,
    wait_until,
)

SCHEDULE_GAPS = [60, 300, 900, 3600, 21600]


def started(call: dict[str, object]) -> list[float]:
    return [
        datetime.fromisoformat(a["started_at"].replace("Z", "+00:00")).timestamp()  # type: ignore[index]
        for a in call["attempts"]  # type: ignore[union-attr]
    ]


def gaps(call: dict[str, object]) -> list[float]:
    times = started(call)
    return [round(b - a, 3) for a, b in zip(times, times[1:])]


def test_success_with_spec_headers_and_body(api: Api, receiver: Receiver) -> None:
    config = api.setup(receiver.url)
    comment = api.comment("Hello webhooks")
    [call] = api.wait_settled(1)
    assert call["status"] == "succeeded" and call["response_code"] == 204
    assert call["retry_count"] == 0 and len(call["attempts"]) == 1
    [delivery] = receiver.deliveries
    h = delivery.headers
    assert h["user-agent"] == "Service-Webhook/1.0"
    assert h["content-type"] == "application/json"
    assert h["x-webhook-delivery-id"] == call["delivery_id"]
    assert h["x-webhook-retry-count"] == "0"
    assert h["x-webhook-timestamp"] == str(int(START * 1000))
    assert h["x-webhook-first-sent-at"] == utc_iso(START)
    assert h["x-webhook-signature"] == hmac_hex(
        config["secret"], h["x-webhook-timestamp"], delivery.body
    )
    body = json.loads(delivery.body)
    assert body["event_type"] == "comment.created"
    assert body["website_id"] == EXAMPLE_SITE.website_id
    assert body["data"]["comment"]["id"] == comment["id"]
    assert body["data"]["comment"]["content"] == "Hello webhooks"
    # The journal keeps the headers exactly as sent.
    sent = {k.lower(): v for k, v in call["attempts"][0]["request_headers"].items()}
    for name in (
        "x-webhook-signature",
        "x-webhook-timestamp",
        "x-webhook-delivery-id",
        "user-agent",
    ):
        assert sent[name] == h[name]


def test_500_is_retried_on_the_schedule_with_same_delivery_id(api: Api, receiver: Receiver) -> None:
    config = api.setup(receiver.url)
    receiver.script = [Reply(500, body=b"boom"), Reply(502), Reply(200, body=b"ok")]
    api.comment()
    [call] = api.wait_settled(1)
    assert call["status"] == "succeeded" and call["response_code"] == 200
    assert call["retry_count"] == 2
    assert [a["response_code"] for a in call["attempts"]] == [500, 502, 200]
    assert call["attempts"][0]["response_body"] == "boom"
    assert gaps(call) == SCHEDULE_GAPS[:2]
    ids = {d.headers["x-webhook-delivery-id"] for d in receiver.deliveries}
    assert ids == {call["delivery_id"]}
    assert [d.headers["x-webhook-retry-count"] for d in receiver.deliveries] == ["0", "1", "2"]
    first = {d.headers["x-webhook-first-sent-at"] for d in receiver.deliveries}
    assert first == {utc_iso(START)}
    stamps = [d.headers["x-webhook-timestamp"] for d in receiver.deliveries]
    assert stamps == [str(int((START + t) * 1000)) for t in (0, 60, 360)]  # fresh each time
    assert len({d.body for d in receiver.deliveries}) == 1  # the same bytes every time
    for d in receiver.deliveries:
        assert d.headers["x-webhook-signature"] == hmac_hex(
            config["secret"], d.headers["x-webhook-timestamp"], d.body
        )


def test_persistent_5xx_gives_up_after_six_attempts(api: Api, receiver: Receiver) -> None:
    api.setup(receiver.url)
    receiver.script = [Reply(503)] * 10
    api.comment()
    [call] = api.wait_settled(1)
    assert call["status"] == "failed" and call["error"] == "retries_exhausted:http_503"
    assert len(call["attempts"]) == 6 and call["retry_count"] == 5
    assert gaps(call) == SCHEDULE_GAPS
    assert call["next_attempt_at"] is None


@pytest.mark.parametrize(
    ("retry_after", "expected_gap"),
    [("120", 300), ("30", 60), ("100000", 21600)],
)
def test_503_retry_after_seconds_is_rounded_up_to_a_slot(
    api: Api, receiver: Receiver, retry_after: str, expected_gap: float
) -> None:
    api.setup(receiver.url)
    receiver.script = [Reply(503, headers={"Retry-After": retry_after})]
    api.comment()
    [call] = api.wait_settled(1)
    assert call["status"] == "succeeded"
    assert gaps(call) == [expected_gap]


def test_429_with_http_date_retry_after(api: Api, receiver: Receiver, clock: ManualClock) -> None:
    from email.utils import formatdate

    api.setup(receiver.url)
    receiver.script = [Reply(429, headers={"Retry-After": formatdate(START + 700, usegmt=True)})]
    api.comment()
    [call] = api.wait_settled(1)
    assert [a["response_code"] for a in call["attempts"]] == [429, 204]
    assert gaps(call) == [900]


@pytest.mark.parametrize("status", [400, 401, 403, 404, 410, 422])
def test_logical_4xx_fails_without_retry(api: Api, receiver: Receiver, status: int) -> None:
    api.setup(receiver.url)
    receiver.script = [Reply(status, body=b"x" * 5000)]
    api.comment()
    [call] = api.wait_settled(1)
    assert call["status"] == "failed" and call["response_code"] == status
    assert call["error"] == f"http_{status}"
    assert len(call["attempts"]) == 1 and len(receiver.deliveries) == 1
    assert len(call["attempts"][0]["response_body"]) == 2048  # stored truncated


def test_301_is_not_followed_and_location_is_recorded(api: Api, receiver: Receiver) -> None:
    api.setup(receiver.url)
    receiver.script = [Reply(301, headers={"Location": receiver.url + "?moved=1"})]
    api.comment()
    [call] = api.wait_settled(1)
    assert call["status"] == "failed" and call["error"] == "redirect"
    assert call["attempts"][0]["location"] == receiver.url + "?moved=1"
    assert len(receiver.deliveries) == 1  # not followed


@pytest.mark.parametrize(
    "location",
    ["javascript:alert(1)", "mailto:ops@example.com", "data:text/html,hi", "http://[::1"],
)
def test_a_30x_whose_location_cannot_be_parsed_fails_once_as_redirect(
    api: Api, receiver: Receiver, location: str
) -> None:
    api.setup(receiver.url)
    receiver.script = [Reply(302, headers={"Location": location}, body=b"moved")]
    api.comment()
    [call] = api.wait_settled(1)
    assert call["status"] == "failed" and call["error"] == "redirect"
    assert call["response_code"] == 302
    [attempt] = call["attempts"]
    assert (attempt["response_code"], attempt["error"]) == (302, "redirect")
    assert attempt["location"] == location and attempt["response_body"] == "moved"
    assert len(receiver.deliveries) == 1  # not retried


def test_timeout_is_retried(make_api: Callable[..., Api], receiver: Receiver) -> None:
    api = make_api(attempt_timeout=0.2)
    api.setup(receiver.url)
    receiver.script = [Reply(200, delay=1.0)]
    api.comment()
    [call] = api.wait_settled(1)
    assert [a["error"] for a in call["attempts"]] == ["timeout", None]
    assert call["attempts"][0]["response_code"] is None
    assert call["status"] == "succeeded" and gaps(call) == [60]


def test_connection_refused_is_retried_then_fails(make_api: Callable[..., Api]) -> None:
    api = make_api(retry_schedule=(0, 10, 20))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    api.setup(f"http://127.0.0.1:{port}/hook")
    api.comment()
    [call] = api.wait_settled(1)
    assert [a["error"] for a in call["attempts"]] == ["connect_error"] * 3
    assert call["status"] == "failed" and call["error"] == "retries_exhausted:connect_error"
    assert gaps(call) == [10, 20]


def test_each_attempt_is_signed_with_the_secret_current_at_send_time(
    api: Api, receiver: Receiver
) -> None:
    old = api.setup(receiver.url)
    rotated: dict[str, str] = {}

    def rotate() -> None:
        rotated.update(api.setup(receiver.url))

    receiver.script = [Reply(500, before=rotate)]
    api.comment()
    [call] = api.wait_settled(1)
    first, second = receiver.deliveries
    assert rotated["secret"] != old["secret"]
    assert first.headers["x-webhook-signature"] == hmac_hex(
        old["secret"], first.headers["x-webhook-timestamp"], first.body
    )
    assert second.headers["x-webhook-signature"] == hmac_hex(
        rotated["secret"], second.headers["x-webhook-timestamp"], second.body
    )
    assert first.headers["x-webhook-delivery-id"] == second.headers["x-webhook-delivery-id"]


def test_disabling_fails_pending_retries(api: Api, receiver: Receiver) -> None:
    api.setup(receiver.url)

    def disable() -> None:
        api.http.delete(
            f"/webhook/website/{api.wid}/disable",
            headers={"Authorization": f"Bearer {EXAMPLE_SITE.account_token}"},
        )

    receiver.script = [Reply(500, before=disable)]
    api.comment()
    [call] = api.wait_settled(1)
    assert call["status"] == "failed" and call["error"] == "webhook_disabled"
    assert len(receiver.deliveries) == 1


def test_disabling_fails_calls_waiting_for_a_retry(tmp_path, receiver: Receiver) -> None:  # type: ignore[no-untyped-def]
    from gcbridge.emulator.testing import running_emulator

    # Real clock: the retry is an hour away, so the call sits waiting.
    with running_emulator(tmp_path / "real", retry_schedule=(0, 3600)) as emu:
        api = Api(emu)
        api.setup(receiver.url)
        receiver.script = [Reply(500)]
        api.comment()
        waiting = wait_until(lambda: [c for c in api.calls()["calls"] if c["attempts"]])
        assert waiting[0]["status"] == "pending" and waiting[0]["next_attempt_at"] is not None
        api.http.delete(f"/webhook/website/{api.wid}/disable", headers=bearer())
        [call] = api.calls()["calls"]
        assert call["status"] == "failed" and call["error"] == "webhook_disabled"
        assert call["next_attempt_at"] is None
        api.close()
    assert len(receiver.deliveries) == 1
